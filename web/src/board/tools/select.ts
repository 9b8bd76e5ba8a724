/**
 * The select tool. The canvas's own machinery picks, drags and resizes items under it; this tool
 * decides what a drag does: snap the lead item to the edges and centres of what is on screen,
 * carry along what lies in a dragged empty frame, write the positions at a bounded rate and tell
 * peers where the items are. On the sketch from afar it picks what a click or a box covers.
 */
import { AWARENESS_MAX_DRAGGING } from "../../protocol.gen";
import { type Rect, snap } from "../arrange";
import type { Point } from "../arrows";
import { carriedBy, pick } from "../commands";
import { itemAt, itemsIn } from "../sketch";
import { IDLE } from "../viewStore";
import type { BoardEditor, BoardTool } from "./types";

/** How close (screen pixels) an edge or centre must come to another's to snap to it. */
const SNAP_PX = 6;
/** Snapping looks at this many items on screen at most, and not when many items move at once. */
const MAX_SNAP_TARGETS = 400;
const MAX_SNAP_ITEMS = 50;

/** A dragged item as the canvas reports it: its id and where it is drawn now. */
export interface Dragged {
  id: string;
  position: Point;
}

/** The boxes a drag may snap to: items on screen, not being dragged. */
function visibleBoxes(editor: BoardEditor, moving: ReadonlySet<string>): Rect[] {
  const view = editor.camera.viewport();
  const shown = { x: -view.x / view.zoom, y: -view.y / view.zoom, w: view.width / view.zoom, h: view.height / view.zoom };
  const boxes: Rect[] = [];
  for (const item of editor.items()) {
    if (moving.has(item.id) || item.kind === "arrow") continue;
    const box = editor.boxOf(item.id);
    if (box && box.x < shown.x + shown.w && box.x + box.w > shown.x && box.y < shown.y + shown.h && box.y + box.h > shown.y) boxes.push(box);
    if (boxes.length >= MAX_SNAP_TARGETS) break;
  }
  return boxes;
}

/** Snaps the first moved item to other items' edges and centres; every moved item shifts by as much. */
function snapped(editor: BoardEditor, moves: Map<string, Point>): Map<string, Point> {
  const [first] = moves;
  const item = first && editor.byId(first[0]);
  if (!item || moves.size > MAX_SNAP_ITEMS) {
    editor.view.setGuides([]);
    return moves;
  }
  const size = editor.boxOf(item.id) ?? { w: item.w, h: item.h };
  const { dx, dy, guides } = snap({ ...first[1], w: size.w, h: size.h }, visibleBoxes(editor, new Set(moves.keys())), SNAP_PX / editor.camera.viewport().zoom);
  editor.view.setGuides(guides);
  if (!dx && !dy) return moves;
  return new Map([...moves].map(([id, at]) => [id, { x: at.x + dx, y: at.y + dy }]));
}

/** Where the dragged items are (as the last move put them, snapped), with what dragged frames carry. */
function dragPositions(editor: BoardEditor, dragged: Dragged[]): Map<string, Point> {
  const state = editor.view.getState().toolState;
  const start = state.name === "dragging" ? state : null;
  const moved = new Map<string, Point>();
  for (const node of dragged) moved.set(node.id, start?.at.get(node.id) ?? node.position);
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
}

export const selectTool = {
  id: "select" as const,

  /** A drag begins: one undo step for all of it, and what dragged empty frames carry. */
  onDragStart(editor: BoardEditor, dragged: Dragged[]): void {
    editor.session.endStep();
    const origin = new Map(dragged.map((node) => [node.id, { ...node.position }]));
    const carried = carriedBy(editor.items(), new Set(origin.keys()), editor.boxOf);
    for (const id of carried) origin.set(id, { x: editor.byId(id)!.x, y: editor.byId(id)!.y });
    editor.view.setToolState({ name: "dragging", origin, carried, at: new Map() });
  },

  /** Where the canvas would move the dragged items: snapped, which is where they are drawn. */
  onDragMove(editor: BoardEditor, moves: Map<string, Point>): Map<string, Point> {
    const at = snapped(editor, moves);
    const state = editor.view.getState().toolState;
    if (state.name === "dragging") editor.view.setToolState({ ...state, at });
    return at;
  },

  /** The drag went on: writes where everything is (carried items too), and returns that. */
  onDrag(editor: BoardEditor, dragged: Dragged[]): Map<string, Point> {
    const moved = dragPositions(editor, dragged);
    editor.writePositions.call(moved);
    editor.session.setPresence({ dragging: [...moved].slice(0, AWARENESS_MAX_DRAGGING).map(([id, at]) => ({ id, ...at })) });
    return moved;
  },

  /** The drop: the last positions written at once, one undo step closed; returns what moved. */
  onDragStop(editor: BoardEditor, dragged: Dragged[]): Map<string, Point> {
    const moved = dragPositions(editor, dragged);
    editor.writePositions.call(moved);
    editor.writePositions.flush();
    editor.session.endStep();
    editor.session.setPresence({ dragging: [] });
    editor.view.setToolState(IDLE);
    editor.view.setGuides([]);
    return moved;
  },

  /** What a drag carries besides the dragged items (the contents of dragged empty frames). */
  carried(editor: BoardEditor): string[] {
    const state = editor.view.getState().toolState;
    return state.name === "dragging" ? state.carried : [];
  },

  /** A click on the sketch picks the item under it (which is then drawn live, to drag or edit). */
  pickAt(editor: BoardEditor, point: Point, adding: boolean): void {
    const id = itemAt(editor.items(), editor.boxOf, point);
    if (!id) return;
    if (!adding) editor.view.select([]);
    pick(editor, [{ id, on: true }]);
  },

  /** A box let go over the sketch picks what lies in it. */
  pickIn(editor: BoardEditor, area: Omit<Rect, "id">): void {
    pick(editor, itemsIn(editor.items(), editor.boxOf, area).map((id) => ({ id, on: true })));
  },
} satisfies BoardTool & Record<string, unknown>;
