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
  type Edge,
  type EdgeChange,
  MiniMap,
  type NodeChange,
  ReactFlow,
  ReactFlowProvider,
  useReactFlow,
  useStore,
  useStoreApi,
  useViewport,
  ViewportPortal,
} from "@xyflow/react";
import "@xyflow/react/dist/style.css";
import { type KeyboardEvent, type PointerEvent, useCallback, useEffect, useMemo, useRef, useState } from "react";
import type * as Y from "yjs";
import { framePickers } from "../frames";
import { AWARENESS_MAX_DRAGGING } from "../protocol.gen";
import { useAccess, useRoomClient } from "../roomClient";
import { may } from "../room/access";
import { type Theme, useTheme } from "../theme";
import { align, bounds, distribute, type Guide, inside, type Rect, snap } from "./arrange";
import { arrowBox, arrowEnds, middle } from "./arrows";
import "./board.css";
import { INK, NO_STYLE, paint, type Style, styleEdits } from "./colours";
import { type ArrowEnd, DrawLayer } from "./DrawLayer";
import { EmptyHint } from "./EmptyHint";
import { boardSvg, download, pagePaper, svgToPng, visibleText } from "./exportBoard";
import { HelpSheet } from "./HelpSheet";
import { OWN_KEYS } from "./keyTarget";
import {
  addItem,
  type ClipItem,
  DEFAULTS,
  deleteItems,
  duplicateItems,
  type HoldsType,
  isBound,
  type Item,
  newId,
  pasteItems,
  rateLimit,
  readItem,
  readItems,
  reorder,
  strokeBox,
} from "./model";
import { useBoardLink } from "./link";
import { coveredInsets, MAX_ZOOM, MIN_ZOOM, useZoomOverFrames, viewFor, ZoomBar } from "./navigation";
import { type ArrowEdgeData, type BoardNode, edgeTypes, handlesFor, itemLabel, nodeTypes } from "./nodes";
import { BoardSession, type Peer } from "./sync";
import { type Arrangement, type ExportFormat, Toolbar } from "./Toolbar";
import { placesOnClick, type Tool, toolForKey } from "./tools";
import { useClipboard } from "./useClipboard";
import { useItems } from "./useItems";
import { PHONE } from "./phone";
import { ThreadSheet } from "./ThreadSheet";
import { useMedia } from "./useMedia";
import { useShowFrame } from "./useShowFrame";
import { Sketch } from "./Sketch";
import { SketchItems } from "./SketchItems";
import { drawsAsSketch, itemAt, itemsIn, SKETCH_ITEMS, sketchOf } from "./sketch";
import { BoardMap } from "./BoardMap";
import { openingView, PHONE_OPENING_ZOOM, WIDE_OPENING_ZOOM } from "./openingView";
import { loadView, saveView } from "./view";

type Box = { x: number; y: number; w?: number; h?: number };
/** What the board's keys read of a key press, from React's event or the document's. */
type KeyEvent = Pick<KeyboardEvent, "key" | "code" | "ctrlKey" | "metaKey" | "altKey" | "shiftKey" | "preventDefault"> & {
  target: EventTarget | null;
};

const DRAG_WRITE_MS = 50;
/** A drawn box smaller than this (board units) on either side is taken as a click: the default size. */
const MIN_DRAWN = 8;
/** How close (screen pixels) an edge or centre must come to another's to snap to it. */
const SNAP_PX = 6;
/** Snapping looks at this many items on screen at most, and not when many items move at once. */
const MAX_SNAP_TARGETS = 400;
const MAX_SNAP_ITEMS = 50;
const NONE: ReadonlySet<string> = new Set();
const NUDGE: Record<string, [number, number]> = { ArrowLeft: [-1, 0], ArrowRight: [1, 0], ArrowUp: [0, -1], ArrowDown: [0, 1] };
/** Where the board's frames are too small to read: their thread opens in a sheet instead. */
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
  const [refusals, setRefusals] = useState(0);
  const session = useMemo(() => {
    const identity = localIdentity();
    return new BoardSession(client, name ?? identity.name, color ?? identity.color);
    // A refused change makes a new session: the board as the server holds it.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [client, name, color, refusals]);
  useEffect(() => {
    session.start();
    const off = session.onRefused(() => setRefusals((count) => count + 1));
    return () => {
      off();
      session.stop();
    };
  }, [session]);
  return (
    <ReactFlowProvider>
      <Canvas session={session} />
    </ReactFlowProvider>
  );
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
  const { items, whole } = useItems(session);
  useZoomOverFrames(wrapper);
  const peers = usePeers(session);
  const access = useAccess();
  const readOnly = access !== null && !may(access, "edit-board");
  const theme = useTheme();
  // One finger pans the board on a touch screen (two pinch to zoom).
  const touch = useMedia("(pointer: coarse)");
  const phone = useMedia(PHONE);
  const [tool, setTool] = useState<Tool>("select");
  const [selected, setSelected] = useState<Set<string>>(new Set());
  const [editing, setEditing] = useState<string | null>(null);
  const [overrides, setOverrides] = useState<Map<string, Box>>(new Map());
  const [measured, setMeasured] = useState<Map<string, { width: number; height: number }>>(new Map());
  const [arrowFrom, setArrowFrom] = useState<string | null>(null);
  const [style, setStyle] = useState<Style>(NO_STYLE);
  const [guides, setGuides] = useState<Guide[]>([]);
  const [help, setHelp] = useState(false);
  const [picking, setPicking] = useState<HoldsType | null>(null);
  const [reading, setReading] = useState<string | null>(null);
  const [notice, setNotice] = useState<string | null>(null);
  const [fastAtScale] = useState(culling);
  // Far out on a big board, items are drawn as one sketch; the ones someone works on stay live.
  const sketching = useStore((state) => fastAtScale && drawsAsSketch(state.transform[2], items.length));
  const boardId = roomClient.welcome?.roomId ?? "board";
  const [savedView] = useState(() => loadView(boardId));
  const [flowReady, setFlowReady] = useState(false);
  // The first view is chosen once, when the board is whole: a big board comes in parts after the
  // welcome. An empty board is not fitted later: that would jump the view from under the person
  // who just placed its first item.
  const [viewChosen, setViewChosen] = useState(savedView !== null);
  const byId = useMemo(() => new Map(items.map((item) => [item.id, item])), [items]);
  /** Where each item being dragged started, and the items a dragged frame carries along. */
  const dragStart = useRef<{ origin: Map<string, { x: number; y: number }>; carried: string[] } | null>(null);
  // Where the last drag event put the dragged items (snapped). React Flow calls the drag handlers
  // in the same task as the change, before React renders it, so the overrides may be a move behind.
  const dragAt = useRef<Map<string, { x: number; y: number }>>(new Map());
  // Items just dropped: they keep their drag position until the doc's next items arrive (the doc
  // follows once per frame), so a drop never shows the last position written during the drag.
  const [dropped, setDropped] = useState<ReadonlySet<string>>(new Set());

  // Each drag event carries every dragged node, so the latest call's positions are the ones to write.
  const writePositions = useMemo(
    () =>
      rateLimit((moved: Map<string, { x: number; y: number }>) => {
        session.change(() => {
          for (const [id, at] of moved) writePosition(session, id, at);
        });
      }, DRAG_WRITE_MS),
    [session],
  );

  useEffect(() => {
    session.setPresence({ selection: [...selected], editing });
  }, [session, selected, editing]);

  /** What is typed between creating a note and its editor taking the focus, for that editor. */
  const typedAhead = useRef<{ id: string; text: string } | null>(null);
  const endEdit = useCallback(() => {
    typedAhead.current = null;
    setEditing(null);
  }, []);
  const takeTyped = useCallback((id: string) => {
    const ahead = typedAhead.current;
    typedAhead.current = null;
    return ahead?.id === id ? ahead.text : "";
  }, []);

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

  /** An item's box as drawn now: a local drag or resize, a peer's drag, or the doc. */
  const boxOf = useCallback(
    (id: string): Rect | undefined => {
      const item = byId.get(id);
      if (!item || item.kind === "arrow") return undefined;
      const box = overrides.get(id) ?? remoteDrag.get(id);
      return { id, x: box?.x ?? item.x, y: box?.y ?? item.y, w: box?.w ?? item.w, h: box?.h ?? item.h };
    },
    [byId, overrides, remoteDrag],
  );

  const live = useMemo(() => new Set([...selected, ...overrides.keys(), ...(editing ? [editing] : [])]), [selected, overrides, editing]);

  const nodes: BoardNode[] = useMemo(
    () =>
      items.flatMap((item, index): BoardNode[] => {
        if (item.kind === "arrow" && isBound(item)) return [];
        const ends = item.kind === "arrow" ? (arrowEnds(item, boxOf) ?? undefined) : undefined;
        if (item.kind === "arrow" && !ends) return [];
        const arrowAt = ends ? arrowBox(ends[0], ends[1], item.bend ?? 0) : undefined;
        const box = arrowAt ? { ...arrowAt, ...overrides.get(item.id) } : boxOf(item.id)!;
        const width = box.w ?? item.w;
        const height = box.h ?? item.h;
        return [
          {
            id: item.id,
            type: item.kind,
            position: { x: box.x, y: box.y },
            width,
            height,
            measured: measured.get(item.id) ?? { width, height },
            handles: handlesFor(width, height),
            // Frames that hold nothing lie under what is dropped on them.
            zIndex: item.kind === "frame" && !item.holds ? index - items.length : index,
            selected: selected.has(item.id),
            hidden: sketching && !live.has(item.id),
            draggable: !readOnly && !item.locked && editing !== item.id && tool === "select",
            ariaLabel: itemLabel(item),
            className: arrowFrom === item.id ? "board-arrow-from" : undefined,
            data: {
              item,
              session,
              readOnly,
              editing: editing === item.id,
              remoteColor: remoteSelection.get(item.id),
              onEditEnd: endEdit,
              takeTyped,
              ends,
            },
          },
        ];
      }),
    [items, overrides, boxOf, measured, selected, readOnly, editing, session, remoteSelection, endEdit, takeTyped, tool, arrowFrom, sketching, live],
  );

  // On the sketch, arrows not picked are left out rather than hidden: React Flow keeps a hidden
  // edge's component, which works out where the edge runs on every move of the view.
  const edges: Edge<ArrowEdgeData>[] = useMemo(
    () =>
      items
        .filter((item) => item.kind === "arrow" && isBound(item) && !(sketching && !selected.has(item.id)))
        .map((item) => ({
          id: item.id,
          source: item.from!,
          target: item.to!,
          type: "arrow",
          selected: selected.has(item.id),
          ariaLabel: item.label ? `Arrow: ${item.label}` : "Arrow",
          data: { item, session, editable: !readOnly && !item.locked },
        })),
    [items, selected, session, readOnly, sketching],
  );

  const ink = useMemo(() => themeInk(theme), [theme]);
  const marks = useMemo(() => (sketching ? sketchOf(items, boxOf, live, ink) : []), [sketching, items, boxOf, live, ink]);
  // A big board's map is drawn on a canvas, from the items as the doc holds them.
  const mapsOnCanvas = fastAtScale && items.length >= SKETCH_ITEMS;
  const docBoxOf = useCallback((id: string) => {
    const item = byId.get(id);
    return item && item.kind !== "arrow" ? { id, x: item.x, y: item.y, w: item.w, h: item.h } : undefined;
  }, [byId]);
  const mapMarks = useMemo(() => (mapsOnCanvas ? sketchOf(items, docBoxOf, NONE, ink) : []), [mapsOnCanvas, items, docBoxOf, ink]);

  const select = useCallback(
    (changes: { id: string; on: boolean }[]) => {
      setSelected((old) => {
        const next = new Set(old);
        // Picking one member of a group picks the whole group, even as React Flow unpicks the others.
        const ordered = [...changes.filter((c) => !c.on), ...changes.filter((c) => c.on)];
        for (const { id, on } of ordered) {
          const group = byId.get(id)?.group;
          const members = group ? items.filter((item) => item.group === group).map((item) => item.id) : [id];
          for (const member of members) {
            if (on) next.add(member);
            else next.delete(member);
          }
        }
        return next.size === old.size && [...next].every((id) => old.has(id)) ? old : next;
      });
    },
    [byId, items],
  );

  /** A click on the sketch picks the item under it (which then is drawn live, to be dragged or edited). */
  const pickInSketch = useCallback(
    (event: { clientX: number; clientY: number; shiftKey: boolean; ctrlKey: boolean; metaKey: boolean }) => {
      const id = itemAt(items, boxOf, flow.screenToFlowPosition({ x: event.clientX, y: event.clientY }));
      if (!id) return;
      if (!(event.shiftKey || event.ctrlKey || event.metaKey)) setSelected(new Set());
      select([{ id, on: true }]);
    },
    [items, boxOf, flow, select],
  );

  // React Flow's selection box picks only the items drawn live: on the sketch, the items in the
  // box are picked when it is let go (the box as last drawn, in board units).
  const flowStore = useStoreApi<BoardNode, Edge>();
  const sketchBox = useRef<Omit<Rect, "id"> | null>(null);
  useEffect(() => {
    if (!sketching) return;
    return flowStore.subscribe(({ userSelectionRect: drawn, transform: [x, y, zoom] }) => {
      if (drawn) sketchBox.current = { x: (drawn.x - x) / zoom, y: (drawn.y - y) / zoom, w: drawn.width / zoom, h: drawn.height / zoom };
    });
  }, [sketching, flowStore]);
  const onSelectionEnd = useCallback(() => {
    const area = sketchBox.current;
    sketchBox.current = null;
    if (sketching && area) select(itemsIn(items, boxOf, area).map((id) => ({ id, on: true })));
  }, [sketching, items, boxOf, select]);

  /** Snaps the first dragged item to other items' edges and centres; every dragged item moves by the same shift. */
  const snapped = useCallback(
    (moves: Map<string, { x: number; y: number }>): Map<string, { x: number; y: number }> => {
      const [first] = moves;
      const item = first && byId.get(first[0]);
      if (!item || moves.size > MAX_SNAP_ITEMS) {
        setGuides([]);
        return moves;
      }
      const view = flow.getViewport();
      const moving = new Set(moves.keys());
      const others = visibleBoxes(items, moving, boxOf, view, wrapper.current);
      const size = boxOf(item.id) ?? { w: item.w, h: item.h };
      const { dx, dy, guides: lines } = snap({ ...first[1], w: size.w, h: size.h }, others, SNAP_PX / view.zoom);
      setGuides(lines);
      if (!dx && !dy) return moves;
      return new Map([...moves].map(([id, at]) => [id, { x: at.x + dx, y: at.y + dy }]));
    },
    [byId, boxOf, items, flow],
  );

  const onNodesChange = useCallback(
    (changes: NodeChange<BoardNode>[]) => {
      const boxes = new Map<string, Partial<Box>>();
      const moves = new Map<string, { x: number; y: number }>();
      const picks: { id: string; on: boolean }[] = [];
      for (const change of changes) {
        if (change.type === "select") picks.push({ id: change.id, on: change.selected });
        else if (change.type === "position" && change.position && change.dragging) moves.set(change.id, change.position);
        else if (change.type === "dimensions" && change.dimensions) {
          const size = change.dimensions;
          if (change.resizing) boxes.set(change.id, { ...boxes.get(change.id), ...position(change.id), w: size.width, h: size.height });
          else setMeasured((old) => new Map(old).set(change.id, size));
        }
      }
      if (picks.length) select(picks);
      if (moves.size) {
        dragAt.current = snapped(moves);
        for (const [id, at] of dragAt.current) boxes.set(id, { ...boxes.get(id), ...at });
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
    [flow, select, readOnly, snapped],
  );

  const onNodeDragStart = useCallback(
    (_: unknown, _node: BoardNode, dragged: BoardNode[]) => {
      session.endStep();
      const ids = new Set(dragged.map((node) => node.id));
      const origin = new Map(dragged.map((node) => [node.id, { ...node.position }]));
      const carried = carriedBy(items, ids, boxOf);
      for (const id of carried) origin.set(id, { x: byId.get(id)!.x, y: byId.get(id)!.y });
      dragStart.current = { origin, carried };
      dragAt.current = new Map();
    },
    [session, items, boxOf, byId],
  );

  /** Where the dragged items are (as the last drag event put them, snapped), with what dragged frames carry. */
  const dragPositions = useCallback(
    (dragged: BoardNode[]): Map<string, { x: number; y: number }> => {
      const moved = new Map<string, { x: number; y: number }>();
      for (const node of dragged) moved.set(node.id, dragAt.current.get(node.id) ?? node.position);
      const start = dragStart.current;
      const lead = dragged[0];
      const from = lead && start?.origin.get(lead.id);
      const to = lead && moved.get(lead.id);
      if (start && from && to) {
        for (const id of start.carried) {
          const origin = start.origin.get(id)!;
          moved.set(id, { x: origin.x + to.x - from.x, y: origin.y + to.y - from.y });
        }
      }
      return moved;
    },
    [],
  );

  const onNodeDrag = useCallback(
    (_: unknown, _node: BoardNode, dragged: BoardNode[]) => {
      const moved = dragPositions(dragged);
      const carried = dragStart.current?.carried ?? [];
      if (carried.length) {
        setOverrides((old) => {
          const next = new Map(old);
          for (const id of carried) next.set(id, { ...next.get(id), ...moved.get(id)! });
          return next;
        });
      }
      writePositions.call(moved);
      session.setPresence({ dragging: [...moved].slice(0, AWARENESS_MAX_DRAGGING).map(([id, at]) => ({ id, ...at })) });
    },
    [session, writePositions, dragPositions],
  );

  const onNodeDragStop = useCallback(
    (_: unknown, _node: BoardNode, dragged: BoardNode[]) => {
      const moved = dragPositions(dragged);
      writePositions.call(moved);
      writePositions.flush();
      session.endStep();
      session.setPresence({ dragging: [] });
      dragStart.current = null;
      dragAt.current = new Map();
      setGuides([]);
      setDropped((old) => new Set([...old, ...moved.keys()]));
    },
    [session, writePositions, dragPositions],
  );

  // A drop or a resize ends with a write; once the doc's items hold it, the override goes. Done
  // while rendering, when the items change (React's pattern for state that follows a prop).
  const [settledItems, setSettledItems] = useState(items);
  if (settledItems !== items) {
    setSettledItems(items);
    const landed = dropped;
    if (landed.size) setDropped(new Set());
    setOverrides((old) => {
      let changed = false;
      const next = new Map(old);
      for (const item of items) {
        const box = next.get(item.id);
        const resized = box?.w !== undefined && box.w === item.w && box.h === item.h;
        if (resized || landed.has(item.id)) changed = next.delete(item.id);
      }
      for (const id of landed) if (!byId.has(id)) changed = next.delete(id) || changed;
      return changed ? next : old;
    });
  }

  const onEdgesChange = useCallback(
    (changes: EdgeChange[]) => {
      const picks = changes.flatMap((change) => (change.type === "select" ? [{ id: change.id, on: change.selected }] : []));
      if (picks.length) select(picks);
    },
    [select],
  );

  const fit = useCallback(
    (ids?: Set<string>, duration = 200) => {
      const board = wrapper.current;
      const box = bounds(nodes.filter((node) => !ids || ids.has(node.id)).map(nodeBox));
      if (!board || !box) return;
      const area = board.getBoundingClientRect();
      void flow.setViewport(viewFor(box, { w: area.width, h: area.height }, coveredInsets(board)), { duration });
    },
    [flow, nodes],
  );

  // The first view of a board shows what is on it, readably, in the part nothing floats over
  // (once React Flow can move its view and the board is whole).
  useEffect(() => {
    const board = wrapper.current;
    if (viewChosen || !whole || !flowReady || !board) return;
    setViewChosen(true);
    const area = board.getBoundingClientRect();
    const boxes = nodes.map((node) => ({ ...nodeBox(node), z: node.data.item.z }));
    const view = openingView(boxes, { w: area.width, h: area.height }, coveredInsets(board), phone ? PHONE_OPENING_ZOOM : WIDE_OPENING_ZOOM);
    if (view) void flow.setViewport(view);
  }, [viewChosen, whole, flowReady, nodes, flow, phone]);
  const onInit = useCallback(() => setFlowReady(true), []);

  const { showFrame, reveal } = useShowFrame(session, wrapper, readOnly, setSelected);
  const [sketchFocus, setSketchFocus] = useState<Rect | null>(null);
  const link = useBoardLink(session, flow, items, wrapper, showFrame);
  const onMoveStart = useCallback(
    (event: MouseEvent | TouchEvent | null) => {
      // Before the opening view, any move of the view is someone's choice (a pan, a zoom, "fit",
      // following a person, a frame shown): the board arriving later leaves it where it is.
      setViewChosen(true);
      link.onMoveStart(event);
    },
    [link],
  );

  /**
   * What the Agent, Terminal and File buttons do: an agent or a file is chosen in its picker
   * first; a terminal starts at once.
   */
  const addFrame = useCallback(
    (type: HoldsType) => {
      if (type !== "terminal") {
        setPicking(type);
        return;
      }
      const ref = `term-${newId()}`;
      const count = readItems(session.items).filter((item) => item.holds?.type === "terminal").length;
      showFrame(type, ref, `Terminal ${count + 1}`);
      // The frame and its shell together: the frame only watches terminals the server lists.
      roomClient.send({ t: "term-open", id: ref });
    },
    [showFrame, roomClient, session],
  );

  const closePicker = useCallback(() => setPicking(null), []);
  const closeHelp = useCallback(() => setHelp(false), []);

  const create = useCallback(
    (kind: Tool, drawn: { x: number; y: number; w: number; h: number } | null, at: { x: number; y: number }) => {
      if (!placesOnClick(kind)) return;
      let id = "";
      const sized = (size: { w: number; h: number }) =>
        drawn && drawn.w >= MIN_DRAWN && drawn.h >= MIN_DRAWN ? drawn : { x: at.x - size.w / 2, y: at.y - size.h / 2, ...size };
      const lines = { strokeWidth: style.strokeWidth ?? undefined, dash: style.dash ?? undefined };
      const words = { fontSize: style.fontSize ?? undefined };
      session.step(() => {
        if (kind === "note") {
          const fill = style.fill && style.fill !== "none" ? style.fill : DEFAULTS.note.color;
          id = addItem(session.items, { kind, ...sized(DEFAULTS.note), color: fill, text: "", ...words });
        } else if (kind === "text") {
          id = addItem(session.items, { kind, ...sized(DEFAULTS.text), color: style.stroke ?? DEFAULTS.text.color, text: "", ...words });
        } else if (kind === "rect" || kind === "ellipse") {
          const color = style.stroke ?? DEFAULTS.shape.color;
          const fill = style.fill ?? undefined;
          id = addItem(session.items, { kind: "shape", shape: kind, ...sized(DEFAULTS.shape), color, fill, text: "", ...lines, ...words });
        } else {
          const { color, ...size } = DEFAULTS.frame;
          id = addItem(session.items, { kind: "frame", ...sized(size), color: style.stroke ?? color, title: "" });
          // An empty frame holds what is on it: it goes behind everything.
          for (const [key, z] of reorder(readItems(session.items), new Set([id]), "back")) itemMap(session, key)?.set("z", z);
        }
      });
      setSelected(new Set([id]));
      if (kind === "note" || kind === "text") {
        typedAhead.current = { id, text: "" };
        setEditing(id);
      }
      setTool("select");
    },
    [session, style],
  );

  const connect = useCallback(
    (from: ArrowEnd, to: ArrowEnd) => {
      if (from.item && from.item === to.item) return;
      let id = "";
      const end = (which: "1" | "2", point: ArrowEnd) =>
        point.item ? { [which === "1" ? "from" : "to"]: point.item } : { [`x${which}`]: point.point.x, [`y${which}`]: point.point.y };
      session.step(() => {
        id = addItem(session.items, {
          kind: "arrow",
          ...end("1", from),
          ...end("2", to),
          x: Math.min(from.point.x, to.point.x),
          y: Math.min(from.point.y, to.point.y),
          w: 1,
          h: 1,
          color: style.stroke ?? INK,
          strokeWidth: style.strokeWidth ?? undefined,
          dash: style.dash ?? undefined,
        });
      });
      setSelected(new Set([id]));
      setTool("select");
    },
    [session, style],
  );

  /** The arrow tool by clicks or keys: the first item picked is where the arrow starts, the second where it ends. */
  const pickForArrow = useCallback(
    (id: string) => {
      if (arrowFrom === null) {
        setArrowFrom(id);
        return;
      }
      if (id === arrowFrom) return;
      const centre = (key: string) => {
        const box = boxOf(key);
        return box ? { x: box.x + box.w / 2, y: box.y + box.h / 2 } : { x: 0, y: 0 };
      };
      connect({ item: arrowFrom, point: centre(arrowFrom) }, { item: id, point: centre(id) });
      setArrowFrom(null);
    },
    [arrowFrom, connect, boxOf],
  );

  const finishStroke = useCallback(
    (points: number[]) => {
      if (points.length < 4) return;
      const box = strokeBox(points);
      session.step(() => {
        addItem(session.items, { kind: "stroke", ...box, color: style.stroke ?? INK, strokeWidth: style.strokeWidth ?? undefined });
      });
    },
    [session, style],
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
          if (!selected.has(item.id) || item.locked) continue;
          const map = itemMap(session, item.id);
          for (const [key, value] of Object.entries(styleEdits(item.kind, choice))) map?.set(key, value);
        }
      });
    },
    [session, selected],
  );

  const unlocked = useCallback((ids: Set<string>) => new Set([...ids].filter((id) => !byId.get(id)?.locked)), [byId]);

  const removeSelected = useCallback(() => {
    const doomed = unlocked(selected);
    if (doomed.size === 0 || !link.mayRemove(doomed)) return;
    session.step(() => deleteItems(session.items, doomed));
    setSelected(new Set());
  }, [session, selected, link, unlocked]);

  const paste = useCallback(
    (clip: ClipItem[], offset: { x: number; y: number }) => {
      let copies: string[] = [];
      session.step(() => {
        copies = pasteItems(session.items, clip, offset);
      });
      setSelected(new Set(copies));
    },
    [session],
  );

  const duplicateSelected = useCallback(() => {
    if (selected.size === 0) return;
    let copies: string[] = [];
    session.step(() => {
      copies = duplicateItems(session.items, selected);
    });
    setSelected(new Set(copies));
  }, [session, selected]);

  /** Where pasted text or an image goes: the middle of the view. */
  const viewCentre = useCallback(() => {
    const rect = wrapper.current?.getBoundingClientRect();
    return flow.screenToFlowPosition({ x: (rect?.left ?? 0) + (rect?.width ?? 0) / 2, y: (rect?.top ?? 0) + (rect?.height ?? 0) / 2 });
  }, [flow]);

  useClipboard({ session, selected, readOnly, paste, remove: removeSelected, viewCentre, select: setSelected, notify: setNotice });

  const restack = useCallback(
    (where: "front" | "back") => {
      const order = reorder(items, selected, where);
      session.step(() => {
        for (const [id, z] of order) itemMap(session, id)?.set("z", z);
      });
    },
    [items, selected, session],
  );

  const setGroup = useCallback(
    (on: boolean) => {
      const ids = [...selected].filter((id) => byId.get(id)?.kind !== "arrow" || on);
      if (on && ids.length < 2) return;
      const group = newId();
      session.step(() => {
        for (const id of ids) {
          if (on) itemMap(session, id)?.set("group", group);
          else itemMap(session, id)?.delete("group");
        }
      });
    },
    [session, selected, byId],
  );

  const setLocked = useCallback(
    (on: boolean) => {
      session.step(() => {
        for (const id of selected) {
          if (on) itemMap(session, id)?.set("locked", true);
          else itemMap(session, id)?.delete("locked");
        }
      });
    },
    [session, selected],
  );

  const moveTo = useCallback(
    (moved: Map<string, { x: number; y: number }>) => {
      session.step(() => {
        for (const [id, at] of moved) writePosition(session, id, at);
      });
    },
    [session],
  );

  const arrange = useCallback(
    (how: Arrangement) => {
      const boxes = [...unlocked(selected)].map((id) => boxOf(id)).filter((box): box is Rect => box !== undefined);
      moveTo(how === "horizontal" || how === "vertical" ? distribute(boxes, how) : align(boxes, how));
    },
    [selected, unlocked, boxOf, moveTo],
  );

  /** The arrow keys move the selection, as a drag would (WCAG 2.5.7). */
  const nudge = useCallback(
    (dx: number, dy: number) => {
      const moved = new Map<string, { x: number; y: number }>();
      for (const id of unlocked(selected)) {
        const box = boxOf(id);
        if (box) moved.set(id, { x: box.x + dx, y: box.y + dy });
      }
      for (const id of carriedBy(items, new Set(moved.keys()), boxOf)) {
        const box = boxOf(id)!;
        moved.set(id, { x: box.x + dx, y: box.y + dy });
      }
      moveTo(moved);
    },
    [selected, unlocked, boxOf, moveTo, items],
  );

  const exportBoard = useCallback(
    async (format: ExportFormat) => {
      const chosen = selected.size ? items.filter((item) => selected.has(item.id)) : items;
      const { svg, w, h } = boardSvg(chosen, items, visibleText, pagePaper());
      const name = `board-${new Date().toISOString().slice(0, 10)}.${format}`;
      try {
        download(format === "svg" ? new Blob([svg], { type: "image/svg+xml" }) : await svgToPng(svg, w, h), name);
      } catch (error) {
        setNotice(error instanceof Error ? error.message : "The export failed.");
      }
    },
    [items, selected],
  );

  const onKeyDown = useCallback(
    (event: KeyEvent) => {
      const target = event.target as HTMLElement;
      if (target.closest(OWN_KEYS)) return;
      const mod = event.ctrlKey || event.metaKey;
      const ahead = typedAhead.current;
      // Keys typed before a new note's editor shows are its first words, not the board's shortcuts.
      if (ahead && !mod && (event.key.length === 1 || event.key === "Backspace")) {
        ahead.text = event.key === "Backspace" ? ahead.text.slice(0, -1) : ahead.text + event.key;
        event.preventDefault();
        return;
      }
      const key = event.key.toLowerCase();
      if (event.shiftKey && event.code === "Digit1") fit();
      else if (event.shiftKey && event.code === "Digit0") void flow.zoomTo(1, { duration: 120 });
      else if (event.key === "?") setHelp(true);
      else if (readOnly) return;
      else if (event.key === "Delete" || event.key === "Backspace") removeSelected();
      else if (mod && key === "z" && event.shiftKey) session.undo.redo();
      else if (mod && key === "z") session.undo.undo();
      else if (mod && key === "y") session.undo.redo();
      else if (mod && key === "d") duplicateSelected();
      else if (mod && key === "a") setSelected(new Set(items.map((item) => item.id)));
      else if (mod && key === "g") setGroup(!event.shiftKey);
      else if (mod && event.shiftKey && key === "l") setLocked(![...selected].every((id) => byId.get(id)?.locked));
      else if (event.key === "Escape") chooseTool("select");
      else if (event.key in NUDGE && selected.size > 0 && !mod) {
        const [dx, dy] = NUDGE[event.key];
        nudge(dx * (event.shiftKey ? 10 : 1), dy * (event.shiftKey ? 10 : 1));
      } else if (event.key === "Enter" && tool === "arrow" && target.closest(".react-flow__node")) {
        pickForArrow(target.closest(".react-flow__node")!.getAttribute("data-id")!);
      } else if (event.key === "Enter" && selected.size === 1 && !byId.get([...selected][0])?.locked) setEditing([...selected][0]);
      else {
        const picked = toolForKey(event);
        if (!picked || event.shiftKey) return;
        chooseTool(picked);
      }
      event.preventDefault();
    },
    [readOnly, removeSelected, duplicateSelected, session, selected, tool, pickForArrow, chooseTool, fit, flow, items, setGroup, setLocked, byId, nudge],
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
    (event: PointerEvent) => session.setPresence({ cursor: flow.screenToFlowPosition({ x: event.clientX, y: event.clientY }) }),
    [flow, session],
  );

  const Picker = picking ? framePickers[picking] : undefined;
  // On a phone, an agent's thread or a terminal opens at the screen's width.
  const selectedSheet =
    selected.size === 1
      ? items.find((item) => selected.has(item.id) && (item.holds?.type === "agent" || item.holds?.type === "terminal"))
      : undefined;
  const sheetItem = reading ? items.find((item) => item.id === reading && item.holds) : undefined;
  const closeSheet = useCallback(() => setReading(null), []);
  const chosen = [...selected].map((id) => byId.get(id)).filter((item): item is Item => item !== undefined);
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
      data-view={viewChosen ? "chosen" : "opening"}
      onKeyDown={onKeyDown}
      onPointerMove={onPointerMove}
      onPointerLeave={() => session.setPresence({ cursor: null })}
    >
      <ReactFlow<BoardNode, Edge<ArrowEdgeData>>
        nodes={nodes}
        edges={edges}
        nodeTypes={nodeTypes}
        edgeTypes={edgeTypes}
        colorMode={theme}
        onInit={onInit}
        onNodesChange={onNodesChange}
        onEdgesChange={onEdgesChange}
        onNodeDragStart={onNodeDragStart}
        onMoveStart={onMoveStart}
        onMove={link.onMove}
        onNodeDrag={onNodeDrag}
        onNodeDragStop={onNodeDragStop}
        onNodeDoubleClick={(_, node) => !readOnly && !node.data.item.locked && (node.data.item.text || node.data.item.kind === "arrow") && setEditing(node.id)}
        onEdgeDoubleClick={(_, edge) => !readOnly && setEditing(edge.id)}
        onConnect={(connection) => {
          const centre = { x: 0, y: 0 };
          if (connection.source && connection.target) connect({ item: connection.source, point: centre }, { item: connection.target, point: centre });
        }}
        onSelectionEnd={onSelectionEnd}
        onPaneClick={(event) => {
          setArrowFrom(null);
          if (sketching) pickInSketch(event);
        }}
        onMoveEnd={(_, view) => saveView(boardId, view)}
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
        defaultViewport={savedView ?? undefined}
        proOptions={{ hideAttribution: true }}
      >
        <Background gap={24} />
        {sketching && (
          <Sketch
            marks={marks}
            focused={sketchFocus}
            label={`The board from afar: ${items.length.toLocaleString("en")} items drawn as outlines. The items in view follow as a list; zoom in to read and edit them.`}
          />
        )}
        {/* An empty board has nothing to map: no blank box where the map would be. */}
        {items.length === 0 ? null : mapsOnCanvas ? (
          <BoardMap marks={mapMarks} label={`Map of the board, ${items.length.toLocaleString("en")} items: click or drag to move the view`} />
        ) : (
          <MiniMap
            pannable
            zoomable
            ariaLabel="Map of the board: click or drag to move the view"
            nodeColor={(node) => (node.type === "arrow" ? "transparent" : paint((node.data as { item: Item }).item.color))}
            onClick={(_, point) => flow.setCenter(point.x, point.y, { zoom: flow.getZoom(), duration: 150 })}
          />
        )}
        <ViewportPortal>
          <Guides guides={guides} />
          {[...peers].map(([id, peer]) => (peer.state.cursor ? <Cursor key={id} peer={peer} /> : null))}
        </ViewportPortal>
      </ReactFlow>
      {sketching && <SketchItems items={items} boxOf={boxOf} live={live} onFocusItem={setSketchFocus} onOpen={reveal} />}
      {items.length === 0 && tool === "select" && <EmptyHint readOnly={readOnly} isHost={access === "host"} phone={phone} />}
      {tool !== "select" && !readOnly && (
        <DrawLayer
          tool={tool}
          colour={paint(style.stroke ?? INK)}
          onShape={(drawn, at) => create(tool, drawn, at)}
          onArrow={connect}
          onPickItem={pickForArrow}
          onStroke={finishStroke}
        />
      )}
      {tool === "arrow" && (
        <div className="board-tool-tip" role="status">
          {arrowFrom ? "Now click the item the arrow points to" : "Drag from anywhere to anywhere, or click two items"}
        </div>
      )}
      {labelling?.kind === "arrow" && <ArrowLabelEditor arrow={labelling} session={session} onDone={endEdit} />}
      {notice && (
        <div className="board-notice" role="status" onAnimationEnd={() => setNotice(null)}>
          {notice}
        </div>
      )}
      <Toolbar
        tool={tool}
        setTool={chooseTool}
        readOnly={readOnly}
        selection={{ count: selected.size, grouped: chosen.some((item) => item.group), locked: chosen.length > 0 && chosen.every((item) => item.locked) }}
        onSelection={(action) => {
          if (action === "delete") removeSelected();
          else if (action === "duplicate") duplicateSelected();
          else if (action === "group" || action === "ungroup") setGroup(action === "group");
          else if (action === "lock" || action === "unlock") setLocked(action === "lock");
          else restack(action);
        }}
        onArrange={arrange}
        onExport={(format) => void exportBoard(format)}
        onUndo={() => session.undo.undo()}
        onRedo={() => session.undo.redo()}
        onFrame={addFrame}
        style={style}
        onStyle={applyStyle}
        onHelp={() => setHelp(true)}
      />
      <ZoomBar onFit={() => fit()} />
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

/** A node's box on the board as React Flow draws it. */
function nodeBox(node: BoardNode): Omit<Rect, "id"> {
  return { ...node.position, w: node.width ?? 1, h: node.height ?? 1 };
}

/** Writes an item's new top-left corner; a free arrow moves its free ends by as much instead. */
function writePosition(session: BoardSession, id: string, at: { x: number; y: number }): void {
  const map = itemMap(session, id);
  if (!map) return;
  if (map.get("kind") !== "arrow") {
    map.set("x", at.x);
    map.set("y", at.y);
    return;
  }
  const item = readItem(id, map);
  const ends = item && arrowEnds(item, (key) => readItem(key, session.items.get(key)) ?? undefined);
  if (!item || !ends) return;
  const box = arrowBox(ends[0], ends[1], item.bend ?? 0);
  const [dx, dy] = [at.x - box.x, at.y - box.y];
  for (const [x, y] of [["x1", "y1"], ["x2", "y2"]] as const) {
    const px = map.get(x);
    const py = map.get(y);
    if (typeof px === "number" && typeof py === "number") {
      map.set(x, px + dx);
      map.set(y, py + dy);
    }
  }
}

/** Items a drag carries along: those lying inside a dragged empty frame (and not dragged themselves). */
function carriedBy(items: Item[], dragged: Set<string>, boxOf: (id: string) => Rect | undefined): string[] {
  const frames = items.filter((item) => dragged.has(item.id) && item.kind === "frame" && !item.holds).map((item) => boxOf(item.id)!);
  if (frames.length === 0) return [];
  return items
    .filter((item) => !dragged.has(item.id) && item.kind !== "arrow" && !item.locked)
    .filter((item) => frames.some((frame) => item.id !== frame.id && inside(boxOf(item.id)!, frame)))
    .map((item) => item.id);
}

/** The boxes a drag may snap to: items on screen, not being dragged. */
function visibleBoxes(
  items: Item[],
  moving: Set<string>,
  boxOf: (id: string) => Rect | undefined,
  view: { x: number; y: number; zoom: number },
  board: HTMLElement | null,
): Rect[] {
  const w = (board?.clientWidth ?? 0) / view.zoom;
  const h = (board?.clientHeight ?? 0) / view.zoom;
  const shown = { x: -view.x / view.zoom, y: -view.y / view.zoom, w, h };
  const boxes: Rect[] = [];
  for (const item of items) {
    if (moving.has(item.id) || item.kind === "arrow") continue;
    const box = boxOf(item.id);
    if (box && box.x < shown.x + shown.w && box.x + box.w > shown.x && box.y < shown.y + shown.h && box.y + box.h > shown.y) boxes.push(box);
    if (boxes.length >= MAX_SNAP_TARGETS) break;
  }
  return boxes;
}

function Guides({ guides }: { guides: Guide[] }) {
  const { zoom } = useViewport();
  if (guides.length === 0) return null;
  return (
    <svg className="board-guides" aria-hidden="true">
      {guides.map((guide, i) =>
        guide.axis === "x" ? (
          <line key={i} x1={guide.at} x2={guide.at} y1={guide.from} y2={guide.to} strokeWidth={1 / zoom} />
        ) : (
          <line key={i} y1={guide.at} y2={guide.at} x1={guide.from} x2={guide.to} strokeWidth={1 / zoom} />
        ),
      )}
    </svg>
  );
}

/** The label of an arrow, typed in a field over the arrow's middle. */
function ArrowLabelEditor({ arrow, session, onDone }: { arrow: Item; session: BoardSession; onDone: () => void }) {
  const flow = useReactFlow();
  useViewport();
  const ends = arrowEnds(arrow, (id) => readItem(id, session.items.get(id)) ?? undefined);
  const [value, setValue] = useState(arrow.label ?? "");
  if (!ends) return null;
  const mid = middle(ends[0], ends[1], arrow.bend ?? 0);
  const rect = flow.flowToScreenPosition(mid);
  const board = document.querySelector('[data-testid="board"]')?.getBoundingClientRect();
  const save = () => {
    session.step(() => {
      const map = itemMap(session, arrow.id);
      if (value.trim()) map?.set("label", value.slice(0, 200));
      else map?.delete("label");
    });
    onDone();
  };
  return (
    <input
      className="board-arrow-label-editor"
      data-testid="board-arrow-label"
      aria-label="Arrow label"
      autoFocus
      maxLength={200}
      value={value}
      style={{ left: rect.x - (board?.left ?? 0), top: rect.y - (board?.top ?? 0) }}
      onChange={(event) => setValue(event.target.value)}
      onBlur={save}
      onKeyDown={(event) => {
        event.stopPropagation();
        if (event.key === "Enter" || event.key === "Escape") save();
      }}
    />
  );
}

/** The board's ink as the page paints it in `theme`, the page's theme (set on it before anyone hears of a change). */
function themeInk(theme: Theme): string {
  const ink = getComputedStyle(document.documentElement).getPropertyValue("--board-ink").trim();
  return ink && document.documentElement.dataset.theme === theme ? ink : INK;
}

/**
 * Culling and the sketch from afar can be turned off (`localStorage["canvas.board.culling"] =
 * "off"`) to measure what they save.
 */
function culling(): boolean {
  return localStorage.getItem("canvas.board.culling") !== "off";
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
