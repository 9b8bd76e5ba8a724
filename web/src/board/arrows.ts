/** Where an arrow runs: its ends (an item's border, or a free point), its bend and its label's place. */
import type { Rect } from "./arrange";
import type { Item } from "./model";

export interface Point {
  x: number;
  y: number;
}

/** Where the line from the centre of `box` towards `toward` leaves the box. */
export function borderPoint(box: Omit<Rect, "id">, toward: Point): Point {
  const cx = box.x + box.w / 2;
  const cy = box.y + box.h / 2;
  const dx = toward.x - cx;
  const dy = toward.y - cy;
  if (dx === 0 && dy === 0) return { x: cx, y: cy };
  const scale = Math.min(Math.abs(box.w / 2 / (dx || 1e-9)), Math.abs(box.h / 2 / (dy || 1e-9)));
  return { x: cx + dx * scale, y: cy + dy * scale };
}

function centre(box: Omit<Rect, "id">): Point {
  return { x: box.x + box.w / 2, y: box.y + box.h / 2 };
}

/**
 * An arrow's two ends in board units. A bound end leaves its item's border towards the other end
 * (or towards the bend, so a bent arrow leaves its item the way it curves); null when a bound item
 * has no box here.
 */
export function arrowEnds(arrow: Item, boxOf: (id: string) => Omit<Rect, "id"> | undefined): [Point, Point] | null {
  const fromBox = arrow.from !== undefined ? boxOf(arrow.from) : undefined;
  const toBox = arrow.to !== undefined ? boxOf(arrow.to) : undefined;
  if ((arrow.from !== undefined && !fromBox) || (arrow.to !== undefined && !toBox)) return null;
  const rough1 = fromBox ? centre(fromBox) : { x: arrow.x1 ?? 0, y: arrow.y1 ?? 0 };
  const rough2 = toBox ? centre(toBox) : { x: arrow.x2 ?? 0, y: arrow.y2 ?? 0 };
  const control = controlPoint(rough1, rough2, arrow.bend ?? 0);
  return [fromBox ? borderPoint(fromBox, control) : rough1, toBox ? borderPoint(toBox, control) : rough2];
}

/** The quadratic curve's control point that puts the curve's middle `bend` units off the straight line. */
export function controlPoint(start: Point, end: Point, bend: number): Point {
  const mid = { x: (start.x + end.x) / 2, y: (start.y + end.y) / 2 };
  const length = Math.hypot(end.x - start.x, end.y - start.y) || 1;
  const normal = { x: -(end.y - start.y) / length, y: (end.x - start.x) / length };
  return { x: mid.x + normal.x * bend * 2, y: mid.y + normal.y * bend * 2 };
}

/** The curve's middle: where the bend handle and the label sit. */
export function middle(start: Point, end: Point, bend: number): Point {
  const c = controlPoint(start, end, bend);
  return { x: (start.x + 2 * c.x + end.x) / 4, y: (start.y + 2 * c.y + end.y) / 4 };
}

/** The bend that puts the curve's middle nearest `point`: its signed distance from the straight line. */
export function bendThrough(start: Point, end: Point, point: Point): number {
  const length = Math.hypot(end.x - start.x, end.y - start.y) || 1;
  const normal = { x: -(end.y - start.y) / length, y: (end.x - start.x) / length };
  const mid = { x: (start.x + end.x) / 2, y: (start.y + end.y) / 2 };
  return Math.round((point.x - mid.x) * normal.x + (point.y - mid.y) * normal.y);
}

export function arrowPath(start: Point, end: Point, bend: number): string {
  if (!bend) return `M${start.x},${start.y} L${end.x},${end.y}`;
  const c = controlPoint(start, end, bend);
  return `M${start.x},${start.y} Q${c.x},${c.y} ${end.x},${end.y}`;
}

/** The box around an arrow's ends and middle, at least 1 × 1. */
export function arrowBox(start: Point, end: Point, bend: number): Omit<Rect, "id"> {
  const mid = middle(start, end, bend);
  const xs = [start.x, end.x, mid.x];
  const ys = [start.y, end.y, mid.y];
  const x = Math.min(...xs);
  const y = Math.min(...ys);
  return { x, y, w: Math.max(Math.max(...xs) - x, 1), h: Math.max(Math.max(...ys) - y, 1) };
}

/** An SVG stroke-dasharray for a dash style at a stroke width. */
export function dashArray(dash: Item["dash"], width: number): string | undefined {
  if (dash === "dashed") return `${width * 4} ${width * 3}`;
  if (dash === "dotted") return `${width} ${width * 2}`;
  return undefined;
}
