/**
 * The board's canvas: the doc's items drawn with @xyflow/react, and every pointer and key event
 * handed on, to React Flow's own picking and dragging under the select tool and to the current
 * tool otherwise. What each tool does is in tools/; what is selected and edited is in the view
 * store; the commands on the selection are in commands.ts.
 */
import { Background, ConnectionMode, type Edge, ReactFlow, useReactFlow } from "@xyflow/react";
import "@xyflow/react/dist/style.css";
import { useCallback, useMemo, useRef } from "react";
import { useAccess, useRoomClient } from "../roomClient";
import { may } from "../room/access";
import { useTheme } from "../theme";
import { ArrowLabelEditor } from "./ArrowLabelEditor";
import "./board.css";
import { INK, paint } from "./colours";
import { paste, positionWriter, removeSelected } from "./commands";
import { Dispatcher } from "./dispatcher";
import { DrawLayer } from "./DrawLayer";
import { EmptyHint } from "./EmptyHint";
import { Notice, ToolHint } from "./Hints";
import { useBoardLink } from "./link";
import { Minimap } from "./Minimap";
import { MAX_ZOOM, MIN_ZOOM, useZoomOverFrames, ZoomBar } from "./navigation";
import { type ArrowEdgeData, type BoardNode, edgeTypes, nodeTypes } from "./nodes";
import { PHONE } from "./phone";
import { Presence } from "./Presence";
import { Sheets } from "./Sheets";
import { Sketch } from "./Sketch";
import { SketchItems } from "./SketchItems";
import type { BoardSession, Peer } from "./sync";
import { BoardToolbar } from "./BoardToolbar";
import { connect } from "./tools/arrow";
import type { BoardEditor } from "./tools/types";
import { useBoardKeys } from "./useBoardKeys";
import { useClipboard } from "./useClipboard";
import { useDragHandlers, useOverlay } from "./useDrag";
import { useFlowItems } from "./useFlowItems";
import { useItems } from "./useItems";
import { useMedia } from "./useMedia";
import { useOpeningView } from "./useOpeningView";
import { useShowFrame } from "./useShowFrame";
import { useFastAtScale, useSketch, useSketching } from "./useSketch";
import { saveView } from "./view";
import { selectEditing, selectSelected, selectStyle, selectTool, useView, useViewStore } from "./viewStore";

const DRAG_WRITE_MS = 50;

export function Canvas({ session, peers }: { session: BoardSession; peers: Map<string, Peer> }) {
  const roomClient = useRoomClient();
  const flow = useReactFlow<BoardNode, Edge>();
  const view = useViewStore();
  const wrapper = useRef<HTMLDivElement>(null);
  const { items, whole } = useItems(session);
  useZoomOverFrames(wrapper);
  const access = useAccess();
  const readOnly = access !== null && !may(access, "edit-board");
  const theme = useTheme();
  // One finger pans the board on a touch screen (two pinch to zoom).
  const touch = useMedia("(pointer: coarse)");
  const phone = useMedia(PHONE);
  const tool = useView(selectTool);
  const selected = useView(selectSelected);
  const editing = useView(selectEditing);
  const style = useView(selectStyle);
  const fastAtScale = useFastAtScale();
  const sketching = useSketching(fastAtScale, items.length);
  const boardId = roomClient.welcome?.roomId ?? "board";
  const byId = useMemo(() => new Map(items.map((item) => [item.id, item])), [items]);
  const overlay = useOverlay(items, byId);
  const { nodes, edges, boxOf, live } = useFlowItems({ session, items, byId, peers, overrides: overlay.overrides, measured: overlay.measured, readOnly, sketching });
  const opening = useOpeningView(boardId, nodes, whole, phone, wrapper);
  const { fit } = opening;
  const { showFrame, reveal } = useShowFrame(session, wrapper, readOnly, (ids) => view.select(ids));
  const link = useBoardLink(session, flow, items, wrapper, showFrame);

  const writePositions = useMemo(() => positionWriter(session, DRAG_WRITE_MS), [session]);
  const editor = useMemo<BoardEditor>(
    () => ({
      session,
      view,
      camera: {
        viewport: () => ({ ...flow.getViewport(), width: wrapper.current?.clientWidth ?? 0, height: wrapper.current?.clientHeight ?? 0 }),
        fit: () => fit(),
        actualSize: () => void flow.zoomTo(1, { duration: 120 }),
      },
      items: () => items,
      byId: (id) => byId.get(id),
      boxOf,
      writePositions,
      mayRemove: (ids) => link.mayRemove(ids),
      readOnly,
    }),
    [session, view, flow, fit, items, byId, boxOf, writePositions, link, readOnly],
  );
  const dispatcher = useMemo(() => new Dispatcher(() => editor), [editor]);
  const drag = useDragHandlers(editor, overlay);
  const sketch = useSketch(editor, { items, byId, live, sketching, fastAtScale }, flow.screenToFlowPosition);
  const onKeyDown = useBoardKeys(dispatcher);
  const notify = useCallback((notice: string) => view.update({ notice }), [view]);

  useClipboard({
    session,
    selected,
    readOnly,
    paste: (clip, offset) => paste(editor, clip, offset),
    remove: () => removeSelected(editor),
    viewCentre: () => {
      const rect = wrapper.current?.getBoundingClientRect();
      return flow.screenToFlowPosition({ x: (rect?.left ?? 0) + (rect?.width ?? 0) / 2, y: (rect?.top ?? 0) + (rect?.height ?? 0) / 2 });
    },
    select: (ids) => view.select(ids),
    notify,
  });

  const labelling = editing ? byId.get(editing) : undefined;
  return (
    <div
      className={`board board-tool-${tool}`}
      ref={wrapper}
      tabIndex={0}
      role="region"
      aria-label="Board"
      aria-keyshortcuts="?"
      data-testid="board"
      data-view={opening.chosen ? "chosen" : "opening"}
      onKeyDown={onKeyDown}
      onPointerMove={(event) => session.setPresence({ cursor: flow.screenToFlowPosition({ x: event.clientX, y: event.clientY }) })}
      onPointerLeave={() => session.setPresence({ cursor: null })}
    >
      <ReactFlow<BoardNode, Edge<ArrowEdgeData>>
        nodes={nodes}
        edges={edges}
        nodeTypes={nodeTypes}
        edgeTypes={edgeTypes}
        colorMode={theme}
        onInit={opening.onInit}
        onNodesChange={drag.onNodesChange}
        onEdgesChange={drag.onEdgesChange}
        onNodeDragStart={drag.onNodeDragStart}
        onMoveStart={(event) => {
          // Before the opening view, any move of the view is someone's choice (a pan, a zoom, "fit",
          // following a person, a frame shown): the board arriving later leaves it where it is.
          opening.onMoveStart();
          link.onMoveStart(event);
        }}
        onMove={link.onMove}
        onNodeDrag={drag.onNodeDrag}
        onNodeDragStop={drag.onNodeDragStop}
        onNodeDoubleClick={(_, node) => !readOnly && !node.data.item.locked && (node.data.item.text || node.data.item.kind === "arrow") && view.edit(node.id)}
        onEdgeDoubleClick={(_, edge) => !readOnly && view.edit(edge.id)}
        onConnect={({ source, target }) => {
          const centre = { x: 0, y: 0 };
          if (source && target) connect(editor, { item: source, point: centre }, { item: target, point: centre });
        }}
        onSelectionEnd={sketch.onSelectionEnd}
        onPaneClick={sketch.onPaneClick}
        onMoveEnd={(_, moved) => saveView(boardId, moved)}
        connectionMode={ConnectionMode.Loose}
        nodesDraggable={!readOnly}
        nodesConnectable={!readOnly}
        deleteKeyCode={null}
        selectionOnDrag={tool === "select" && !touch}
        panOnDrag={tool === "select" && !touch ? [1, 2] : true}
        panOnScroll
        zoomOnScroll={false}
        zoomOnPinch
        panActivationKeyCode="Space"
        multiSelectionKeyCode={["Meta", "Control", "Shift"]}
        zoomOnDoubleClick={false}
        onlyRenderVisibleElements={fastAtScale}
        minZoom={MIN_ZOOM}
        maxZoom={MAX_ZOOM}
        defaultViewport={opening.savedView ?? undefined}
        proOptions={{ hideAttribution: true }}
      >
        <Background gap={24} />
        {sketching && (
          <Sketch
            marks={sketch.marks}
            focused={sketch.focus}
            label={`The board from afar: ${items.length.toLocaleString("en")} items drawn as outlines. The items in view follow as a list; zoom in to read and edit them.`}
          />
        )}
        <Minimap count={items.length} marks={sketch.mapMarks} onCanvas={sketch.mapsOnCanvas} />
        <Presence peers={peers} />
      </ReactFlow>
      {sketching && <SketchItems items={items} boxOf={boxOf} live={live} onFocusItem={sketch.setFocus} onOpen={reveal} />}
      {items.length === 0 && tool === "select" && <EmptyHint readOnly={readOnly} isHost={access === "host"} phone={phone} />}
      {tool !== "select" && !readOnly && <DrawLayer dispatcher={dispatcher} colour={paint(style.stroke ?? INK)} />}
      <ToolHint />
      {labelling?.kind === "arrow" && <ArrowLabelEditor arrow={labelling} session={session} onDone={() => view.edit(null)} />}
      <Notice />
      <BoardToolbar editor={editor} dispatcher={dispatcher} showFrame={showFrame} notify={notify} />
      <ZoomBar onFit={() => fit()} />
      <Sheets items={items} phone={phone} showFrame={showFrame} />
    </div>
  );
}
