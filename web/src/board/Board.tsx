/**
 * The infinite canvas: the room's Yjs board drawn with @xyflow/react, edited by everyone at once.
 *
 * The Y.Doc is the only source of truth for items. React Flow's own node state is rebuilt from
 * it, with two local overlays: positions and sizes while this client drags or resizes (written
 * to the doc at a bounded rate), and other people's live drag positions from their awareness.
 */
import {
  Background,
  ConnectionMode,
  Controls,
  type Edge,
  type EdgeChange,
  MarkerType,
  MiniMap,
  type NodeChange,
  ReactFlow,
  ReactFlowProvider,
  useReactFlow,
  useViewport,
  ViewportPortal,
} from "@xyflow/react";
import "@xyflow/react/dist/style.css";
import { type KeyboardEvent, type PointerEvent, useCallback, useEffect, useMemo, useRef, useState } from "react";
import type * as Y from "yjs";
import { framePickers } from "../frames";
import { useAccess, useRoomClient } from "../roomClient";
import { useTheme } from "../theme";
import "./board.css";
import { colourEdits, INK, paint, type Style } from "./colours";
import { EmptyHint } from "./EmptyHint";
import { HelpSheet } from "./HelpSheet";
import {
  addItem,
  DEFAULTS,
  deleteItems,
  duplicateItems,
  type HoldsType,
  type Item,
  newId,
  rateLimit,
  readItems,
  reorder,
  strokeBox,
} from "./model";
import { useBoardLink } from "./link";
import { type BoardNode, edgeTypes, itemLabel, nodeTypes, strokePath } from "./nodes";
import { BoardSession, type Peer } from "./sync";
import { Toolbar } from "./Toolbar";
import { placesOnClick, type Tool, toolForKey } from "./tools";
import { PHONE } from "./phone";
import { ThreadSheet } from "./ThreadSheet";
import { useMedia } from "./useMedia";
import { useShowFrame } from "./useShowFrame";
import { loadView, saveView } from "./view";

type Box = { x: number; y: number; w?: number; h?: number };
/** What the board's keys read of a key press, from React's event or the document's. */
type KeyEvent = Pick<KeyboardEvent, "key" | "ctrlKey" | "metaKey" | "altKey" | "shiftKey" | "preventDefault"> & {
  target: EventTarget | null;
};

const DRAG_WRITE_MS = 50;
/** Where the board's frames are too small to read: their thread opens in a sheet instead. */
const ARROW_COLOUR = "#495057";
const PALETTE = ["#e03131", "#2f9e44", "#1971c2", "#f08c00", "#9c36b5", "#0c8599", "#c2255c", "#5c940d"];
/** Keys typed here belong to what has focus (a terminal, a prompt, a field), not to the board. */
const OWN_KEYS = "input, textarea, select, [contenteditable], .board-frame-body, dialog";

function localIdentity(): { name: string; color: string } {
  const stored = localStorage.getItem("canvas.identity");
  if (stored) {
    try {
      const parsed = JSON.parse(stored) as { name?: unknown; color?: unknown };
      if (typeof parsed.name === "string" && typeof parsed.color === "string" && /^#[0-9a-f]{6}$/i.test(parsed.color)) {
        return { name: parsed.name.slice(0, 64), color: parsed.color };
      }
    } catch {
      // A corrupt entry is replaced below.
    }
  }
  const identity = { name: "Host", color: PALETTE[Math.floor(Math.random() * PALETTE.length)] };
  localStorage.setItem("canvas.identity", JSON.stringify(identity));
  return identity;
}

export function Board({ name, color }: { name?: string; color?: string }) {
  const client = useRoomClient();
  const session = useMemo(() => {
    const identity = localIdentity();
    return new BoardSession(client, name ?? identity.name, color ?? identity.color);
  }, [client, name, color]);
  useEffect(() => {
    session.start();
    return () => session.stop();
  }, [session]);
  return (
    <ReactFlowProvider>
      <Canvas session={session} />
    </ReactFlowProvider>
  );
}

function useItems(session: BoardSession): Item[] {
  const [items, setItems] = useState<Item[]>(() => readItems(session.items));
  useEffect(() => {
    const update = () => setItems(readItems(session.items));
    update();
    session.items.observeDeep(update);
    return () => session.items.unobserveDeep(update);
  }, [session]);
  return items;
}

function usePeers(session: BoardSession): Map<string, Peer> {
  const [peers, setPeers] = useState(() => new Map(session.peers));
  useEffect(() => session.onPeers(() => setPeers(new Map(session.peers))), [session]);
  return peers;
}

function itemMap(session: BoardSession, id: string): Y.Map<unknown> | undefined {
  return session.items.get(id) as Y.Map<unknown> | undefined;
}

function Canvas({ session }: { session: BoardSession }) {
  const roomClient = useRoomClient();
  const flow = useReactFlow<BoardNode, Edge>();
  const wrapper = useRef<HTMLDivElement>(null);
  const items = useItems(session);
  const peers = usePeers(session);
  const access = useAccess();
  const readOnly = access === "view";
  const theme = useTheme();
  // One finger pans the board on a touch screen (two pinch to zoom).
  const touch = useMedia("(pointer: coarse)");
  const phone = useMedia(PHONE);
  const [tool, setTool] = useState<Tool>("select");
  const [selected, setSelected] = useState<Set<string>>(new Set());
  const [editing, setEditing] = useState<string | null>(null);
  const [overrides, setOverrides] = useState<Map<string, Box>>(new Map());
  const [measured, setMeasured] = useState<Map<string, { width: number; height: number }>>(new Map());
  const [pen, setPen] = useState<number[] | null>(null);
  const [arrowFrom, setArrowFrom] = useState<string | null>(null);
  const [style, setStyle] = useState<Style>({ stroke: null, fill: null });
  const [help, setHelp] = useState(false);
  const [picking, setPicking] = useState<HoldsType | null>(null);
  const [reading, setReading] = useState<string | null>(null);
  const boardId = roomClient.welcome?.roomId ?? "board";
  const [savedView] = useState(() => loadView(boardId));
  // Fitting an empty board would wait for the first item and then jump the view from under the
  // person who just placed it.
  const [fitOnLoad] = useState(() => items.length > 0 && savedView === null);
  // Each drag event carries every dragged node, so the latest call's nodes are the ones to write.
  const writePositions = useMemo(
    () =>
      rateLimit((dragged: BoardNode[]) => {
        session.change(() => {
          for (const node of dragged) {
            const map = itemMap(session, node.id);
            map?.set("x", node.position.x);
            map?.set("y", node.position.y);
          }
        });
      }, DRAG_WRITE_MS),
    [session],
  );

  useEffect(() => {
    session.setPresence({ selection: [...selected], editing });
  }, [session, selected, editing]);

  const endEdit = useCallback(() => setEditing(null), []);

  const remoteDrag = useMemo(() => {
    const moved = new Map<string, Box>();
    for (const peer of peers.values()) for (const drag of peer.state.dragging) moved.set(drag.id, drag);
    return moved;
  }, [peers]);

  const remoteSelection = useMemo(() => {
    const colors = new Map<string, string>();
    for (const peer of peers.values()) for (const id of peer.state.selection) colors.set(id, peer.state.color);
    return colors;
  }, [peers]);

  const nodes: BoardNode[] = useMemo(
    () =>
      items
        .filter((item) => item.kind !== "arrow")
        .map((item, index) => {
          const box = overrides.get(item.id) ?? remoteDrag.get(item.id);
          const width = box?.w ?? item.w;
          const height = box?.h ?? item.h;
          return {
            id: item.id,
            type: item.kind,
            position: { x: box?.x ?? item.x, y: box?.y ?? item.y },
            width,
            height,
            measured: measured.get(item.id) ?? { width, height },
            zIndex: index,
            selected: selected.has(item.id),
            draggable: !readOnly && editing !== item.id && tool !== "arrow",
            ariaLabel: itemLabel(item),
            className: arrowFrom === item.id ? "board-arrow-from" : undefined,
            data: {
              item,
              session,
              readOnly,
              editing: editing === item.id,
              remoteColor: remoteSelection.get(item.id),
              onEditEnd: endEdit,
            },
          };
        }),
    [items, overrides, remoteDrag, measured, selected, readOnly, editing, session, remoteSelection, endEdit, tool, arrowFrom],
  );

  const edges: Edge[] = useMemo(
    () =>
      items
        .filter((item) => item.kind === "arrow")
        .map((item) => ({
          id: item.id,
          source: item.from!,
          target: item.to!,
          type: "arrow",
          selected: selected.has(item.id),
          ariaLabel: "Arrow",
          markerEnd: { type: MarkerType.ArrowClosed, color: paint(item.color), width: 18, height: 18 },
          style: { stroke: paint(item.color) },
        })),
    [items, selected],
  );

  const select = useCallback((id: string, on: boolean) => {
    setSelected((old) => {
      if (old.has(id) === on) return old;
      const next = new Set(old);
      if (on) next.add(id);
      else next.delete(id);
      return next;
    });
  }, []);

  const onNodesChange = useCallback(
    (changes: NodeChange<BoardNode>[]) => {
      const boxes = new Map<string, Partial<Box>>();
      for (const change of changes) {
        if (change.type === "select") select(change.id, change.selected);
        else if (change.type === "position" && change.position && change.dragging) {
          boxes.set(change.id, { ...boxes.get(change.id), ...change.position });
        } else if (change.type === "dimensions" && change.dimensions) {
          const size = change.dimensions;
          if (change.resizing) boxes.set(change.id, { ...boxes.get(change.id), ...position(change.id), w: size.width, h: size.height });
          else setMeasured((old) => new Map(old).set(change.id, size));
        }
      }
      if (boxes.size === 0 || readOnly) return;
      setOverrides((old) => {
        const next = new Map(old);
        for (const [id, box] of boxes) {
          const merged = { ...position(id), ...next.get(id), ...box };
          if (merged.x !== undefined && merged.y !== undefined) next.set(id, merged as Box);
        }
        return next;
      });
      function position(id: string): { x: number; y: number } | undefined {
        const node = flow.getNode(id);
        return node ? { x: node.position.x, y: node.position.y } : undefined;
      }
    },
    [flow, select, readOnly],
  );

  const onNodeDrag = useCallback(
    (_: unknown, _node: BoardNode, dragged: BoardNode[]) => {
      writePositions.call(dragged);
      session.setPresence({ dragging: dragged.map((node) => ({ id: node.id, ...node.position })) });
    },
    [session, writePositions],
  );

  const onNodeDragStop = useCallback(
    (_: unknown, _node: BoardNode, dragged: BoardNode[]) => {
      writePositions.call(dragged);
      writePositions.flush();
      session.endStep();
      session.setPresence({ dragging: [] });
      setOverrides((old) => {
        const next = new Map(old);
        for (const node of dragged) next.delete(node.id);
        return next;
      });
    },
    [session, writePositions],
  );

  // A resize ends with the write in NodeResizer's onResizeEnd; then the doc holds the size. Done
  // while rendering, when the items change (React's pattern for state that follows a prop).
  const [sizedItems, setSizedItems] = useState(items);
  if (sizedItems !== items) {
    setSizedItems(items);
    setOverrides((old) => {
      let changed = false;
      const next = new Map(old);
      for (const item of items) {
        const box = next.get(item.id);
        if (box?.w !== undefined && box.w === item.w && box.h === item.h) changed = next.delete(item.id);
      }
      return changed ? next : old;
    });
  }

  const onEdgesChange = useCallback(
    (changes: EdgeChange[]) => {
      for (const change of changes) if (change.type === "select") select(change.id, change.selected);
    },
    [select],
  );

  const showFrame = useShowFrame(session, wrapper, readOnly, setSelected);
  const link = useBoardLink(session, flow, items, wrapper, showFrame);

  const addFrame = useCallback(
    (type: HoldsType) => {
      if (framePickers[type]) {
        setPicking(type);
        return;
      }
      const ref = `${type === "agent" ? "session" : "term"}-${newId()}`;
      if (type === "terminal") {
        const count = readItems(session.items).filter((item) => item.holds?.type === "terminal").length;
        showFrame(type, ref, `Terminal ${count + 1}`);
        // The frame and its shell together: the frame only watches terminals the server lists.
        roomClient.send({ t: "term-open", id: ref });
        return;
      }
      // The frame and its session together; the frame offers the other agents if this fails.
      const agent = roomClient.welcome?.agents.find((a) => a.available);
      showFrame(type, ref, agent?.label ?? "");
      if (agent) roomClient.send({ t: "agent-create", id: ref, agent: agent.id });
    },
    [showFrame, roomClient, session],
  );

  const closePicker = useCallback(() => setPicking(null), []);
  const closeHelp = useCallback(() => setHelp(false), []);

  const create = useCallback(
    (kind: Tool, at: { x: number; y: number }) => {
      let id = "";
      const centred = (size: { w: number; h: number }) => ({ x: at.x - size.w / 2, y: at.y - size.h / 2, ...size });
      session.step(() => {
        if (kind === "note") {
          const fill = style.fill && style.fill !== "none" ? style.fill : DEFAULTS.note.color;
          id = addItem(session.items, { kind, ...centred(DEFAULTS.note), color: fill, text: "" });
        } else if (kind === "text") {
          id = addItem(session.items, { kind, ...centred(DEFAULTS.text), color: style.stroke ?? DEFAULTS.text.color, text: "" });
        } else if (kind === "rect" || kind === "ellipse") {
          const color = style.stroke ?? DEFAULTS.shape.color;
          const fill = style.fill ?? undefined;
          id = addItem(session.items, { kind: "shape", shape: kind, ...centred(DEFAULTS.shape), color, fill, text: "" });
        } else if (kind === "frame") {
          const { color, ...size } = DEFAULTS.frame;
          id = addItem(session.items, { kind: "frame", ...centred(size), color: style.stroke ?? color, title: "" });
          // An empty frame groups what is on it: it goes behind everything.
          for (const [key, z] of reorder(readItems(session.items), new Set([id]), "back")) itemMap(session, key)?.set("z", z);
        }
      });
      if (id) {
        setSelected(new Set([id]));
        if (kind === "note" || kind === "text") setEditing(id);
      }
    },
    [session, style],
  );

  const connect = useCallback(
    (from: string, to: string) => {
      if (from === to) return;
      session.step(() => {
        addItem(session.items, { kind: "arrow", from, to, x: 0, y: 0, w: 1, h: 1, color: style.stroke ?? ARROW_COLOUR });
      });
    },
    [session, style],
  );

  /** The arrow tool: the first item picked is where the arrow starts, the second where it ends. */
  const pickForArrow = useCallback(
    (id: string) => {
      if (arrowFrom === null) {
        setArrowFrom(id);
        return;
      }
      if (id === arrowFrom) return;
      connect(arrowFrom, id);
      setArrowFrom(null);
      setTool("select");
    },
    [arrowFrom, connect],
  );

  const chooseTool = useCallback((next: Tool) => {
    setTool(next);
    setArrowFrom(null);
  }, []);

  const applyStyle = useCallback(
    (choice: Partial<Style>) => {
      setStyle((old) => ({ ...old, ...choice }));
      if (selected.size === 0) return;
      session.step(() => {
        for (const item of readItems(session.items)) {
          if (!selected.has(item.id)) continue;
          const map = itemMap(session, item.id);
          for (const [key, value] of Object.entries(colourEdits(item.kind, choice))) map?.set(key, value);
        }
      });
    },
    [session, selected],
  );

  const removeSelected = useCallback(() => {
    if (selected.size === 0 || !link.mayRemove(selected)) return;
    session.step(() => deleteItems(session.items, selected));
    setSelected(new Set());
  }, [session, selected, link]);

  const duplicateSelected = useCallback(() => {
    if (selected.size === 0) return;
    let copies: string[] = [];
    session.step(() => {
      copies = duplicateItems(session.items, selected);
    });
    setSelected(new Set(copies));
  }, [session, selected]);

  const restack = useCallback(
    (where: "front" | "back") => {
      const order = reorder(items, selected, where);
      session.step(() => {
        for (const [id, z] of order) itemMap(session, id)?.set("z", z);
      });
    },
    [items, selected, session],
  );

  const onKeyDown = useCallback(
    (event: KeyEvent) => {
      const target = event.target as HTMLElement;
      if (target.closest(OWN_KEYS) || readOnly) return;
      const mod = event.ctrlKey || event.metaKey;
      const key = event.key.toLowerCase();
      const focusedNode = target.closest(".react-flow__node")?.getAttribute("data-id");
      const picked = toolForKey(event);
      if (event.key === "Delete" || event.key === "Backspace") removeSelected();
      else if (mod && key === "z" && event.shiftKey) session.undo.redo();
      else if (mod && key === "z") session.undo.undo();
      else if (mod && key === "y") session.undo.redo();
      else if (mod && key === "d") duplicateSelected();
      else if (event.key === "?") setHelp(true);
      else if (event.key === "Escape") chooseTool("select");
      else if (event.key === "Enter" && tool === "arrow" && focusedNode) pickForArrow(focusedNode);
      else if (event.key === "Enter" && selected.size === 1) setEditing([...selected][0]);
      else if (picked && !event.shiftKey) chooseTool(picked);
      else return;
      event.preventDefault();
    },
    [readOnly, removeSelected, duplicateSelected, session, selected, tool, pickForArrow, chooseTool],
  );

  // With nothing focused (the page just loaded, an editor closed), the board's keys still work.
  useEffect(() => {
    const unfocused = (event: globalThis.KeyboardEvent) => {
      if (event.target === document.body) onKeyDown(event);
    };
    document.addEventListener("keydown", unfocused);
    return () => document.removeEventListener("keydown", unfocused);
  }, [onKeyDown]);

  const onPointerMove = useCallback(
    (event: PointerEvent) => {
      const point = flow.screenToFlowPosition({ x: event.clientX, y: event.clientY });
      session.setPresence({ cursor: point });
      if (pen && event.buttons === 1) setPen([...pen, point.x, point.y]);
    },
    [flow, session, pen],
  );

  const finishStroke = useCallback(() => {
    if (!pen) return;
    setPen(null);
    if (pen.length < 4) return;
    const box = strokeBox(pen);
    session.step(() => {
      addItem(session.items, { kind: "stroke", ...box, color: style.stroke ?? INK });
    });
  }, [pen, session, style]);

  const Picker = picking ? framePickers[picking] : undefined;
  // On a phone, an agent's thread or a terminal opens at the screen's width.
  const selectedSheet =
    selected.size === 1
      ? items.find((item) => selected.has(item.id) && (item.holds?.type === "agent" || item.holds?.type === "terminal"))
      : undefined;
  const sheetItem = reading ? items.find((item) => item.id === reading && item.holds) : undefined;
  const closeSheet = useCallback(() => setReading(null), []);

  return (
    <div
      className={`board board-tool-${tool}`}
      ref={wrapper}
      tabIndex={0}
      role="region"
      aria-label="Board"
      aria-keyshortcuts="?"
      data-testid="board"
      onKeyDown={onKeyDown}
      onPointerMove={onPointerMove}
      onPointerLeave={() => session.setPresence({ cursor: null })}
    >
      <ReactFlow<BoardNode, Edge>
        nodes={nodes}
        edges={edges}
        nodeTypes={nodeTypes}
        edgeTypes={edgeTypes}
        colorMode={theme}
        onNodesChange={onNodesChange}
        onEdgesChange={onEdgesChange}
        onNodeDragStart={() => session.endStep()}
        onMoveStart={link.onMoveStart}
        onMove={link.onMove}
        onNodeDrag={onNodeDrag}
        onNodeDragStop={onNodeDragStop}
        onNodeClick={(_, node) => tool === "arrow" && !readOnly && pickForArrow(node.id)}
        onNodeDoubleClick={(_, node) => !readOnly && node.data.item.text && setEditing(node.id)}
        onConnect={(connection) => {
          if (connection.source && connection.target) connect(connection.source, connection.target);
        }}
        onPaneClick={(event) => {
          setArrowFrom(null);
          if (!placesOnClick(tool) || readOnly) return;
          create(tool, flow.screenToFlowPosition({ x: event.clientX, y: event.clientY }));
          setTool("select");
        }}
        onMoveEnd={(_, view) => saveView(boardId, view)}
        connectionMode={ConnectionMode.Loose}
        nodesDraggable={!readOnly}
        nodesConnectable={!readOnly}
        deleteKeyCode={null}
        selectionOnDrag={tool === "select" && !touch}
        panOnDrag={tool === "select" && !touch ? [1, 2] : tool !== "pen"}
        panActivationKeyCode="Space"
        multiSelectionKeyCode={["Meta", "Control", "Shift"]}
        zoomOnDoubleClick={false}
        minZoom={0.05}
        maxZoom={4}
        defaultViewport={savedView ?? undefined}
        fitView={fitOnLoad}
        fitViewOptions={{ maxZoom: 1 }}
        proOptions={{ hideAttribution: true }}
      >
        <Background gap={24} />
        <Controls showInteractive={false} />
        <MiniMap
          pannable
          zoomable
          ariaLabel="Map of the board: click or drag to move the view"
          nodeColor={(node) => paint((node.data as { item: Item }).item.color)}
          onClick={(_, point) => flow.setCenter(point.x, point.y, { zoom: flow.getZoom(), duration: 150 })}
        />
        <ViewportPortal>
          {[...peers].map(([id, peer]) => (peer.state.cursor ? <Cursor key={id} peer={peer} /> : null))}
        </ViewportPortal>
      </ReactFlow>
      {items.length === 0 && tool === "select" && <EmptyHint readOnly={readOnly} isHost={access === "host"} />}
      {pen && pen.length >= 4 && <PenPreview points={pen} colour={paint(style.stroke ?? INK)} />}
      {tool === "pen" && !readOnly && (
        <div
          className="board-pen-layer"
          data-testid="board-pen-layer"
          onPointerDown={(event) => {
            (event.target as HTMLElement).setPointerCapture(event.pointerId);
            const point = flow.screenToFlowPosition({ x: event.clientX, y: event.clientY });
            setPen([point.x, point.y]);
          }}
          onPointerUp={finishStroke}
        />
      )}
      {tool === "arrow" && (
        <div className="board-tool-tip" role="status">
          {arrowFrom ? "Now click the item the arrow points to" : "Click the item the arrow starts from"}
        </div>
      )}
      <Toolbar
        tool={tool}
        setTool={chooseTool}
        readOnly={readOnly}
        hasSelection={selected.size > 0}
        onSelection={(action) => {
          if (action === "delete") removeSelected();
          else if (action === "duplicate") duplicateSelected();
          else restack(action);
        }}
        onUndo={() => session.undo.undo()}
        onRedo={() => session.undo.redo()}
        onFrame={addFrame}
        style={style}
        onStyle={applyStyle}
        onHelp={() => setHelp(true)}
      />
      {phone && selectedSheet && (
        <button
          type="button"
          className="board-thread-button"
          data-testid={selectedSheet.holds?.type === "terminal" ? "board-open-terminal" : "board-open-thread"}
          onClick={() => setReading(selectedSheet.id)}
        >
          {selectedSheet.holds?.type === "terminal" ? "Open the terminal" : "Open the thread"}
        </button>
      )}
      {sheetItem && <ThreadSheet item={sheetItem} onClose={closeSheet} />}
      {help && <HelpSheet onClose={closeHelp} />}
      {Picker && picking && (
        <Picker
          onClose={closePicker}
          onPick={(ref, title) => {
            setPicking(null);
            showFrame(picking, ref, title);
          }}
        />
      )}
    </div>
  );
}

/** The stroke being drawn, in flow coordinates, until it becomes an item on pointer up. */
function PenPreview({ points, colour }: { points: number[]; colour: string }) {
  const flow = useReactFlow();
  const { x, y, zoom } = flow.getViewport();
  return (
    <svg className="board-pen-preview">
      <g transform={`translate(${x} ${y}) scale(${zoom})`}>
        <path d={strokePath(points)} fill={colour} />
      </g>
    </svg>
  );
}

function Cursor({ peer }: { peer: Peer }) {
  const { zoom } = useViewport();
  const { cursor, color, name } = peer.state;
  if (!cursor) return null;
  return (
    <div
      className="board-cursor"
      style={{ transform: `translate(${cursor.x}px, ${cursor.y}px) scale(${1 / zoom})` }}
      data-testid="board-cursor"
    >
      <svg width="18" height="18" viewBox="0 0 18 18" aria-hidden="true">
        <path d="M1 1 L1 15 L5 11 L8 17 L10 16 L7 10 L13 10 Z" fill={color} stroke="#fff" strokeWidth="1" />
      </svg>
      <span style={{ background: color }}>{name}</span>
    </div>
  );
}
