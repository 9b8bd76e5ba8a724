/**
 * Where the board lies on its map (BoardMap.tsx): the span to show (the items and the view), and
 * how a board point and a map pixel turn into each other.
 */

export type Bounds = { x: number; y: number; w: number; h: number };

/** Board point p is at (p - origin) * scale + offset on the map, in device pixels. */
export interface Mapping {
  origin: { x: number; y: number };
  scale: number;
  offset: { x: number; y: number };
}

/** The smallest box holding both. */
export function union(a: Bounds, b: Bounds): Bounds {
  const x = Math.min(a.x, b.x);
  const y = Math.min(a.y, b.y);
  return { x, y, w: Math.max(a.x + a.w, b.x + b.w) - x, h: Math.max(a.y + a.h, b.y + b.h) - y };
}

/** The smallest box holding every one of `boxes`; null for none. */
export function extent(boxes: readonly Bounds[]): Bounds | null {
  if (boxes.length === 0) return null;
  let [x1, y1, x2, y2] = [Infinity, Infinity, -Infinity, -Infinity];
  for (const box of boxes) {
    x1 = Math.min(x1, box.x);
    y1 = Math.min(y1, box.y);
    x2 = Math.max(x2, box.x + box.w);
    y2 = Math.max(y2, box.y + box.h);
  }
  return { x: x1, y: y1, w: x2 - x1, h: y2 - y1 };
}

/** `span` as large as it fits in a `width` by `height` map, centred. */
export function fitted(span: Bounds, width: number, height: number): Mapping {
  const scale = Math.min(width / Math.max(span.w, 1), height / Math.max(span.h, 1));
  return { origin: { x: span.x, y: span.y }, scale, offset: { x: (width - span.w * scale) / 2, y: (height - span.h * scale) / 2 } };
}

/** The board point under a map pixel. */
export function onBoard(at: Mapping, pixel: { x: number; y: number }): { x: number; y: number } {
  return { x: (pixel.x - at.offset.x) / at.scale + at.origin.x, y: (pixel.y - at.offset.y) / at.scale + at.origin.y };
}
