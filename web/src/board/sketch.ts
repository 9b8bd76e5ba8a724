/**
 * A big board seen from far away, as plain marks on one canvas: boxes in the items' colours and
 * lines for arrows and drawings, no text (under this zoom a note's words are a few pixels high).
 * Thousands of live item components cost the page a frame or more on every pan; one canvas
 * redraw costs a millisecond or two.
 */
import { inside, type Rect } from "./arrange";
import { arrowEnds, controlPoint, type Point } from "./arrows";
import { INK, paint, shapeFill } from "./colours";
import type { Item } from "./model";

/** Below this zoom a big board is drawn as a sketch. */
export const SKETCH_ZOOM = 0.35;
/** Boards with fewer items keep every item live at any zoom: their pages stay fast as they are. */
export const SKETCH_ITEMS = 500;

/** Whether a board of `count` items at `zoom` is drawn as a sketch. */
export function drawsAsSketch(zoom: number, count: number): boolean {
  return zoom < SKETCH_ZOOM && count >= SKETCH_ITEMS;
}

type Bounds = { x: number; y: number; w: number; h: number };

export type Mark =
  | (Bounds & { kind: "box"; fill: string | null; stroke: string | null; round: boolean })
  | (Bounds & { kind: "line"; points: Point[] })
  | (Bounds & { kind: "curve"; from: Point; via: Point; to: Point; colour: string });

/** A colour the canvas can use: the theme's ink where the page paints ink. */
function solid(colour: string, ink: string): string {
  return paint(colour).startsWith("var(") ? ink : colour;
}

function mark(item: Item, box: Bounds, ink: string): Mark | null {
  const stroke = solid(item.color, ink);
  switch (item.kind) {
    case "note":
      return { kind: "box", ...box, fill: item.color, stroke: null, round: false };
    case "shape":
      return { kind: "box", ...box, fill: shapeFill(stroke, item.fill), stroke, round: item.shape === "ellipse" };
    case "frame":
      return { kind: "box", ...box, fill: null, stroke, round: false };
    case "text":
    case "image":
      return { kind: "box", ...box, fill: `${item.kind === "text" ? stroke : INK}33`, stroke: null, round: false };
    case "stroke": {
      const points: Point[] = [];
      const relative = item.points ?? [];
      for (let i = 0; i + 1 < relative.length; i += 2) points.push({ x: box.x + relative[i], y: box.y + relative[i + 1] });
      return { kind: "line", ...box, points };
    }
    default:
      return null;
  }
}

/** The marks for `items` (all but `live`, which are drawn as themselves), in drawing order. */
export function sketchOf(items: Item[], boxOf: (id: string) => Rect | undefined, live: ReadonlySet<string>, ink: string): Mark[] {
  const marks: Mark[] = [];
  for (const item of items) {
    if (live.has(item.id)) continue;
    if (item.kind === "arrow") {
      const ends = arrowEnds(item, boxOf);
      if (!ends) continue;
      const [from, to] = ends;
      const via = controlPoint(from, to, item.bend ?? 0);
      const x = Math.min(from.x, to.x, via.x);
      const y = Math.min(from.y, to.y, via.y);
      const box = { x, y, w: Math.max(from.x, to.x, via.x) - x, h: Math.max(from.y, to.y, via.y) - y };
      marks.push({ kind: "curve", ...box, from, via, to, colour: solid(item.color, ink) });
      continue;
    }
    const box = boxOf(item.id);
    const drawn = box && mark(item, box, ink);
    if (drawn) marks.push(drawn);
  }
  return marks;
}

/** Whether a mark's box meets the part of the board in view. */
export function meets(mark: Bounds, view: Bounds): boolean {
  return mark.x <= view.x + view.w && mark.x + mark.w >= view.x && mark.y <= view.y + view.h && mark.y + mark.h >= view.y;
}

/** The topmost item (not an arrow) under a point of the board, for a click on the sketch. */
export function itemAt(items: Item[], boxOf: (id: string) => Rect | undefined, point: Point): string | undefined {
  for (let i = items.length - 1; i >= 0; i--) {
    const item = items[i];
    if (item.kind === "arrow") continue;
    const box = boxOf(item.id);
    if (box && point.x >= box.x && point.x <= box.x + box.w && point.y >= box.y && point.y <= box.y + box.h) return item.id;
  }
  return undefined;
}

/** The items (not arrows) wholly inside a box drawn around them on the sketch. */
export function itemsIn(items: Item[], boxOf: (id: string) => Rect | undefined, area: Bounds): string[] {
  return items
    .filter((item) => {
      const box = item.kind === "arrow" ? undefined : boxOf(item.id);
      return box !== undefined && inside(box, area);
    })
    .map((item) => item.id);
}

/** How many items in view the sketch lists for the keyboard and screen readers, at most. */
export const LISTED_ITEMS = 200;

/**
 * The items (not arrows, not `live` ones, which are in the page as themselves) meeting the part
 * of the board in view, in reading order (by rows, then left to right), at most `limit` of them,
 * and how many more there are.
 */
export function itemsInView(
  items: Item[],
  boxOf: (id: string) => Rect | undefined,
  view: Bounds,
  live: ReadonlySet<string>,
  limit = LISTED_ITEMS,
): { listed: { item: Item; box: Rect }[]; more: number } {
  const seen: { item: Item; box: Rect }[] = [];
  for (const item of items) {
    if (item.kind === "arrow" || live.has(item.id)) continue;
    const box = boxOf(item.id);
    if (box && meets(box, view)) seen.push({ item, box });
  }
  seen.sort((a, b) => a.box.y - b.box.y || a.box.x - b.box.x);
  return { listed: seen.slice(0, limit), more: Math.max(0, seen.length - limit) };
}
