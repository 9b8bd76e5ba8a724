/**
 * Where a new item goes: the free spot nearest to where the person is looking (or beside the
 * frame that caused it), so it never lands on top of what is already there.
 */

export interface Box {
  x: number;
  y: number;
  w: number;
  h: number;
}

export interface Point {
  x: number;
  y: number;
}

/** The space kept between a new item and its neighbours, in board units. */
export const GAP = 32;

/** Whether two boxes overlap once each is grown by `gap` / 2 on every side. */
export function overlaps(a: Box, b: Box, gap = 0): boolean {
  return a.x < b.x + b.w + gap && b.x < a.x + a.w + gap && a.y < b.y + b.h + gap && b.y < a.y + a.h + gap;
}

function isFree(box: Box, occupied: readonly Box[], gap: number): boolean {
  return occupied.every((other) => !overlaps(box, other, gap));
}

/** The four spots touching `box` on its right, below, left and above, in that order of preference. */
function beside(box: Box, size: { w: number; h: number }, gap: number): Box[] {
  return [
    { x: box.x + box.w + gap, y: box.y, ...size },
    { x: box.x, y: box.y + box.h + gap, ...size },
    { x: box.x - size.w - gap, y: box.y, ...size },
    { x: box.x, y: box.y - size.h - gap, ...size },
  ];
}

/**
 * How far `box`'s centre is from `anchor`: in board units, or with `view` in views, so that a spot
 * one view's width to the side is as near as one a view's height below (a pan to either shows it).
 */
function distance(box: Box, anchor: Point, view?: Box): number {
  const dx = box.x + box.w / 2 - anchor.x;
  const dy = box.y + box.h / 2 - anchor.y;
  return view ? Math.hypot(dx / view.w, dy / view.h) : Math.hypot(dx, dy);
}

/**
 * The top-left corner for a new item of `size`: centred on `anchor` when that is free, else the
 * nearest free spot against an existing item (aligned with it, or level with the anchor). With
 * `near`, a free spot touching that box comes first (an agent's note beside the agent's frame).
 * With `within` (the part of the board the person sees clear), a free spot wholly inside it comes
 * before a nearer one that is not, so the new item shows without the view moving, and nearness is
 * counted in that view's width and height: on a wide screen a spot beside comes before one below,
 * and the pan to it moves what is in sight sideways rather than up under the toolbar.
 */
export function freeSpot(
  occupied: readonly Box[],
  size: { w: number; h: number },
  anchor: Point,
  options: { near?: Box; gap?: number; within?: Box } = {},
): Point {
  const gap = options.gap ?? GAP;
  if (options.near) {
    const touching = beside(options.near, size, gap).find((box) => isFree(box, occupied, gap));
    if (touching) return { x: touching.x, y: touching.y };
    anchor = { x: options.near.x + options.near.w / 2, y: options.near.y + options.near.h / 2 };
  }
  const centred = { x: anchor.x - size.w / 2, y: anchor.y - size.h / 2, ...size };
  if (isFree(centred, occupied, gap)) return { x: centred.x, y: centred.y };
  const candidates: Box[] = [];
  for (const box of occupied) {
    candidates.push(...beside(box, size, gap));
    candidates.push(
      { x: box.x + box.w + gap, y: centred.y, ...size },
      { x: box.x - size.w - gap, y: centred.y, ...size },
      { x: centred.x, y: box.y + box.h + gap, ...size },
      { x: centred.x, y: box.y - size.h - gap, ...size },
    );
  }
  const { within } = options;
  const nearest = (boxes: Box[]): Box | null => {
    let best: Box | null = null;
    for (const box of boxes) {
      if ((best === null || distance(box, anchor, within) < distance(best, anchor, within)) && isFree(box, occupied, gap)) best = box;
    }
    return best;
  };
  const best = (within && nearest(candidates.filter((box) => contains(within, box)))) || nearest(candidates);
  if (best) return { x: best.x, y: best.y };
  // Unreachable in practice (the spot right of the rightmost item is free), kept as a guarantee.
  const right = Math.max(...occupied.map((box) => box.x + box.w));
  return { x: right + gap, y: centred.y };
}

/** Whether `box` lies wholly inside `view` (both in board units). */
export function contains(view: Box, box: Box): boolean {
  return box.x >= view.x && box.y >= view.y && box.x + box.w <= view.x + view.w && box.y + box.h <= view.y + view.h;
}
