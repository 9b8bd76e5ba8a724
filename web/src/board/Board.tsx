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
import { useAccess, useRoomClient } from "../roomClient";
import "./board.css";
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
import { type BoardNode, edgeTypes, nodeTypes, strokePath } from "./nodes";
import { BoardSession, type Peer } from "./sync";

type Tool = "select" | "note" | "text" | "rect" | "ellipse" | "pen";
type Box = { x: number; y: number; w?: number; h?: number };

const DRAG_WRITE_MS = 50;
const PALETTE = ["#e03131", "#2f9e44", "#1971c2", "#f08c00", "#9c36b5", "#0c8599", "#c2255c", "#5c940d"];

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
  const link = useBoardLink(session, flow, items, wrapper);
  const readOnly = useAccess() === "view";
  const [tool, setTool] = useState<Tool>("select");
  const [selected, setSelected] = useState<Set<string>>(new Set());
  const [editing, setEditing] = useState<string | null>(null);
  const [overrides, setOverrides] = useState<Map<string, Box>>(new Map());
  const [measured, setMeasured] = useState<Map<string, { width: number; height: number }>>(new Map());
  const [pen, setPen] = useState<number[] | null>(null);
  // Fitting an empty board would wait for the first item and then jump the view from under the
  // person who just placed it.
  const [fitOnLoad] = useState(() => items.length > 0);
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
    session.setPresence({ selection: [...selected].slice(0, 200), editing });
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
            draggable: !readOnly && editing !== item.id,
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
    [items, overrides, remoteDrag, measured, selected, readOnly, editing, session, remoteSelection, endEdit],
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
          markerEnd: { type: MarkerType.ArrowClosed, color: item.color, width: 18, height: 18 },
          style: { stroke: item.color },
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

  const create = useCallback(
    (kind: Tool, at: { x: number; y: number }) => {
      let id = "";
      session.step(() => {
        if (kind === "note" || kind === "text") {
          const size = DEFAULTS[kind];
          id = addItem(session.items, { kind, x: at.x - size.w / 2, y: at.y - size.h / 2, ...size, text: "" });
        } else if (kind === "rect" || kind === "ellipse") {
          const size = DEFAULTS.shape;
          id = addItem(session.items, {
            kind: "shape",
            shape: kind,
            x: at.x - size.w / 2,
            y: at.y - size.h / 2,
            ...size,
            text: "",
          });
        }
      });
      if (id) {
        setSelected(new Set([id]));
        if (kind === "note" || kind === "text") setEditing(id);
      }
    },
    [session],
  );

  const viewCentre = useCallback(() => {
    const rect = wrapper.current?.getBoundingClientRect();
    return flow.screenToFlowPosition({
      x: (rect?.left ?? 0) + (rect?.width ?? 0) / 2,
      y: (rect?.top ?? 0) + (rect?.height ?? 0) / 2,
    });
  }, [flow]);

  const addFrame = useCallback(
    (type: HoldsType) => {
      let ref: string | null = `${type === "agent" ? "session" : "term"}-${newId()}`;
      if (type === "file") ref = window.prompt("Path of the shared file to show (relative to the project)")?.trim() || null;
      if (!ref) return;
      const centre = viewCentre();
      const size = DEFAULTS.frame;
      let id = "";
      session.step(() => {
        id = addItem(session.items, {
          kind: "frame",
          x: centre.x - size.w / 2,
          y: centre.y - size.h / 2,
          ...size,
          holds: { type, ref: ref! },
          title: type === "file" ? ref! : "",
        });
      });
      setSelected(new Set([id]));
      if (type === "agent") {
        // The frame and its session together; the frame offers the other agents if this fails.
        const agent = roomClient.welcome?.agents.find((a) => a.available);
        if (agent) roomClient.send({ t: "agent-create", id: ref!, agent: agent.id });
      } else if (type === "terminal") {
        roomClient.send({ t: "term-open", id: ref! });
      }
    },
    [session, viewCentre, roomClient],
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
    (event: KeyboardEvent) => {
      const target = event.target as HTMLElement;
      if (target.tagName === "TEXTAREA" || target.tagName === "INPUT" || readOnly) return;
      const mod = event.ctrlKey || event.metaKey;
      if (event.key === "Delete" || event.key === "Backspace") removeSelected();
      else if (mod && event.key.toLowerCase() === "z" && event.shiftKey) session.undo.redo();
      else if (mod && event.key.toLowerCase() === "z") session.undo.undo();
      else if (mod && event.key.toLowerCase() === "y") session.undo.redo();
      else if (mod && event.key.toLowerCase() === "d") duplicateSelected();
      else if (event.key === "Enter" && selected.size === 1) setEditing([...selected][0]);
      else return;
      event.preventDefault();
    },
    [readOnly, removeSelected, duplicateSelected, session, selected],
  );

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
      addItem(session.items, { kind: "stroke", ...box, color: "#1e1e1e" });
    });
  }, [pen, session]);

  return (
    <div
      className={`board board-tool-${tool}`}
      ref={wrapper}
      tabIndex={0}
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
        onNodesChange={onNodesChange}
        onEdgesChange={onEdgesChange}
        onNodeDragStart={() => session.endStep()}
        onMoveStart={link.onMoveStart}
        onMove={link.onMove}
        onNodeDrag={onNodeDrag}
        onNodeDragStop={onNodeDragStop}
        onNodeDoubleClick={(_, node) => !readOnly && node.data.item.text && setEditing(node.id)}
        onConnect={(connection) => {
          if (!connection.source || !connection.target || connection.source === connection.target) return;
          session.step(() => {
            addItem(session.items, {
              kind: "arrow",
              from: connection.source,
              to: connection.target,
              x: 0,
              y: 0,
              w: 1,
              h: 1,
              color: "#495057",
            });
          });
        }}
        onPaneClick={(event) => {
          if (tool === "select" || tool === "pen" || readOnly) return;
          create(tool, flow.screenToFlowPosition({ x: event.clientX, y: event.clientY }));
          setTool("select");
        }}
        connectionMode={ConnectionMode.Loose}
        nodesDraggable={!readOnly}
        nodesConnectable={!readOnly}
        deleteKeyCode={null}
        selectionOnDrag={tool === "select"}
        panOnDrag={tool === "select" ? [1, 2] : tool === "pen" ? false : true}
        panActivationKeyCode="Space"
        multiSelectionKeyCode={["Meta", "Control", "Shift"]}
        zoomOnDoubleClick={false}
        minZoom={0.05}
        maxZoom={4}
        fitView={fitOnLoad}
        fitViewOptions={{ maxZoom: 1 }}
        proOptions={{ hideAttribution: true }}
      >
        <Background gap={24} />
        <Controls showInteractive={false} />
        <MiniMap pannable zoomable nodeColor={(node) => (node.data as { item: Item }).item.color} />
        <ViewportPortal>
          {[...peers].map(([id, peer]) => (peer.state.cursor ? <Cursor key={id} peer={peer} /> : null))}
        </ViewportPortal>
      </ReactFlow>
      {pen && pen.length >= 4 && <PenPreview points={pen} />}
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
      <Toolbar
        tool={tool}
        setTool={setTool}
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
      />
    </div>
  );
}

/** The stroke being drawn, in flow coordinates, until it becomes an item on pointer up. */
function PenPreview({ points }: { points: number[] }) {
  const flow = useReactFlow();
  const { x, y, zoom } = flow.getViewport();
  return (
    <svg className="board-pen-preview">
      <g transform={`translate(${x} ${y}) scale(${zoom})`}>
        <path d={strokePath(points)} fill="#1e1e1e" />
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
      <svg width="18" height="18" viewBox="0 0 18 18">
        <path d="M1 1 L1 15 L5 11 L8 17 L10 16 L7 10 L13 10 Z" fill={color} stroke="#fff" strokeWidth="1" />
      </svg>
      <span style={{ background: color }}>{name}</span>
    </div>
  );
}

const TOOLS: [Tool, string, string][] = [
  ["select", "Select", "Select"],
  ["note", "Sticky note", "Note"],
  ["text", "Text", "Text"],
  ["rect", "Rectangle", "▭"],
  ["ellipse", "Ellipse", "◯"],
  ["pen", "Pen", "Pen"],
];

type SelectionAction = "duplicate" | "front" | "back" | "delete";

/** What the toolbar does to the selection: action (and test id), title, aria label, text. */
const SELECTION_ACTIONS: [SelectionAction, string, string, string][] = [
  ["duplicate", "Duplicate (Ctrl+D)", "Duplicate", "Duplicate"],
  ["front", "Bring to front", "Bring to front", "Front"],
  ["back", "Send to back", "Send to back", "Back"],
  ["delete", "Delete (Del)", "Delete", "Delete"],
];

const FRAME_BUTTONS: [HoldsType, string][] = [
  ["terminal", "Terminal"],
  ["agent", "Agent"],
  ["file", "File"],
];

function Toolbar(props: {
  tool: Tool;
  setTool: (tool: Tool) => void;
  readOnly: boolean;
  hasSelection: boolean;
  onSelection: (action: SelectionAction) => void;
  onUndo: () => void;
  onRedo: () => void;
  onFrame: (type: HoldsType) => void;
}) {
  if (props.readOnly) {
    return (
      <div className="board-toolbar" data-testid="board-toolbar">
        <span className="board-readonly">View only</span>
      </div>
    );
  }
  return (
    <div className="board-toolbar" data-testid="board-toolbar">
      {TOOLS.map(([tool, label, icon]) => (
        <button
          key={tool}
          type="button"
          title={label}
          aria-label={label}
          aria-pressed={props.tool === tool}
          data-testid={`board-tool-${tool}`}
          className={props.tool === tool ? "active" : ""}
          onClick={() => props.setTool(tool)}
        >
          {icon}
        </button>
      ))}
      <span className="board-sep" />
      <button type="button" title="Undo (Ctrl+Z)" aria-label="Undo" data-testid="board-undo" onClick={props.onUndo}>
        ↶
      </button>
      <button type="button" title="Redo (Ctrl+Shift+Z)" aria-label="Redo" data-testid="board-redo" onClick={props.onRedo}>
        ↷
      </button>
      <span className="board-sep" />
      {SELECTION_ACTIONS.map(([action, title, label, text]) => (
        <button
          key={action}
          type="button"
          title={title}
          aria-label={label}
          data-testid={`board-${action}`}
          disabled={!props.hasSelection}
          onClick={() => props.onSelection(action)}
        >
          {text}
        </button>
      ))}
      <span className="board-sep" />
      {FRAME_BUTTONS.map(([type, text]) => (
        <button
          key={type}
          type="button"
          title={`Add ${type === "agent" ? "an" : "a"} ${type} frame`}
          aria-label={`Add ${type}`}
          onClick={() => props.onFrame(type)}
        >
          {text}
        </button>
      ))}
    </div>
  );
}
