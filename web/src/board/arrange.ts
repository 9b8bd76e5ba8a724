/** Align, distribute and snap: pure geometry on item boxes, so the canvas only writes the results. */

export interface Rect {
  id: string;
  x: number;
  y: number;
  w: number;
  h: number;
}

export type Alignment = "left" | "centre" | "right" | "top" | "middle" | "bottom";
export type Distribution = "horizontal" | "vertical";

/** New top-left corners that line the boxes up on the selection's edge or centre line. */
export function align(boxes: Rect[], how: Alignment): Map<string, { x: number; y: number }> {
  const left = Math.min(...boxes.map((b) => b.x));
  const right = Math.max(...boxes.map((b) => b.x + b.w));
  const top = Math.min(...boxes.map((b) => b.y));
  const bottom = Math.max(...boxes.map((b) => b.y + b.h));
  const moved = new Map<string, { x: number; y: number }>();
  for (const b of boxes) {
    const x = how === "left" ? left : how === "right" ? right - b.w : how === "centre" ? (left + right - b.w) / 2 : b.x;
    const y = how === "top" ? top : how === "bottom" ? bottom - b.h : how === "middle" ? (top + bottom - b.h) / 2 : b.y;
    moved.set(b.id, { x, y });
  }
  return moved;
}

/** New corners that leave equal gaps between the boxes, the first and last staying where they are. */
export function distribute(boxes: Rect[], how: Distribution): Map<string, { x: number; y: number }> {
  const horizontal = how === "horizontal";
  const start = (b: Rect) => (horizontal ? b.x : b.y);
  const size = (b: Rect) => (horizontal ? b.w : b.h);
  const sorted = [...boxes].sort((a, b) => start(a) - start(b));
  const moved = new Map<string, { x: number; y: number }>();
  if (sorted.length < 3) return moved;
  const first = sorted[0];
  const last = sorted[sorted.length - 1];
  const used = sorted.reduce((sum, b) => sum + size(b), 0);
  const gap = (start(last) + size(last) - start(first) - used) / (sorted.length - 1);
  let at = start(first);
  for (const b of sorted) {
    moved.set(b.id, horizontal ? { x: at, y: b.y } : { x: b.x, y: at });
    at += size(b) + gap;
  }
  return moved;
}

/** A line the dragged box snapped to, in board units: vertical at `x` or horizontal at `y`. */
export type Guide = { axis: "x"; at: number; from: number; to: number } | { axis: "y"; at: number; from: number; to: number };

/**
 * Where a box being dragged snaps: the nearest of its edges and centre to another box's edges or
 * centre on each axis, within `threshold`; the shift to apply and the guides to draw.
 */
export function snap(moving: Omit<Rect, "id">, others: Rect[], threshold: number): { dx: number; dy: number; guides: Guide[] } {
  const lines = (start: number, size: number) => [start, start + size / 2, start + size];
  let best: { x: number | null; y: number | null; dx: number; dy: number } = { x: null, y: null, dx: threshold + 1, dy: threshold + 1 };
  for (const other of others) {
    for (const mine of lines(moving.x, moving.w)) {
      for (const theirs of lines(other.x, other.w)) {
        const d = theirs - mine;
        if (Math.abs(d) < Math.abs(best.dx)) best = { ...best, x: theirs, dx: d };
      }
    }
    for (const mine of lines(moving.y, moving.h)) {
      for (const theirs of lines(other.y, other.h)) {
        const d = theirs - mine;
        if (Math.abs(d) < Math.abs(best.dy)) best = { ...best, y: theirs, dy: d };
      }
    }
  }
  const dx = Math.abs(best.dx) <= threshold ? best.dx : 0;
  const dy = Math.abs(best.dy) <= threshold ? best.dy : 0;
  const guides: Guide[] = [];
  const snapped = { x: moving.x + dx, y: moving.y + dy, w: moving.w, h: moving.h };
  if (best.x !== null && Math.abs(best.dx) <= threshold) {
    const touching = others.filter((o) => lines(o.x, o.w).some((v) => Math.abs(v - best.x!) < 0.5));
    const ys = [snapped.y, snapped.y + snapped.h, ...touching.flatMap((o) => [o.y, o.y + o.h])];
    guides.push({ axis: "x", at: best.x, from: Math.min(...ys), to: Math.max(...ys) });
  }
  if (best.y !== null && Math.abs(best.dy) <= threshold) {
    const touching = others.filter((o) => lines(o.y, o.h).some((v) => Math.abs(v - best.y!) < 0.5));
    const xs = [snapped.x, snapped.x + snapped.w, ...touching.flatMap((o) => [o.x, o.x + o.w])];
    guides.push({ axis: "y", at: best.y, from: Math.min(...xs), to: Math.max(...xs) });
  }
  return { dx, dy, guides };
}

/** The box around boxes, or null for none. */
export function bounds(boxes: Omit<Rect, "id">[]): Omit<Rect, "id"> | null {
  if (boxes.length === 0) return null;
  const x = Math.min(...boxes.map((b) => b.x));
  const y = Math.min(...boxes.map((b) => b.y));
  return { x, y, w: Math.max(...boxes.map((b) => b.x + b.w)) - x, h: Math.max(...boxes.map((b) => b.y + b.h)) - y };
}

/** Whether `inner` lies wholly inside `outer`: what a frame holds and carries along. */
export function inside(inner: Omit<Rect, "id">, outer: Omit<Rect, "id">): boolean {
  return inner.x >= outer.x && inner.y >= outer.y && inner.x + inner.w <= outer.x + outer.w && inner.y + inner.h <= outer.y + outer.h;
}
