/**
 * The view a board opens at when no view of its own was kept: all of its items when they fit at a
 * zoom where their text still reads, else that zoom where the work is (as tldraw and Excalidraw
 * open), with "fit" one click away. A phone fitting a whole board would show it too small to read.
 */
import { bounds } from "./arrange";
import { type Insets, uncovered, viewFor } from "./navigation";
import type { Box } from "./placement";
import type { View } from "./view";

/** A note's 16 px text is 12.8 px on screen from this zoom on: a phone held close still reads it. */
export const PHONE_OPENING_ZOOM = 0.8;
/** A wider screen shows a board whole down to this zoom, where a note's text is 11.2 px. */
export const WIDE_OPENING_ZOOM = 0.7;

/** An item's box and its stacking order (adr/0003: a new item gets the top `z`). */
export type StackedBox = Box & { z: number };

/** `box`'s size cut to what the uncovered part of a screen `area` shows at `zoom` (its top left is kept). */
export function readableSize(area: { w: number; h: number }, insets: Insets, zoom: number, box: { w: number; h: number }): { w: number; h: number } {
  const clear = uncovered(area, insets);
  return { w: Math.min(box.w, clear.w / zoom), h: Math.min(box.h, clear.h / zoom) };
}

/**
 * Where the work is: the item in front of all others, which is the one made (or brought to the
 * front) last; when no item is in front of all others, the top left of the board.
 */
export function workedOn(boxes: readonly StackedBox[]): Box {
  let front: StackedBox | null = null;
  let tied = false;
  for (const box of boxes) {
    if (front === null || box.z > front.z) [front, tied] = [box, false];
    else if (box.z === front.z) tied = true;
  }
  if (front && !tied) return front;
  const whole = bounds([...boxes]) ?? { x: 0, y: 0, w: 1, h: 1 };
  return { x: whole.x, y: whole.y, w: whole.w, h: whole.h };
}

/**
 * The first view of a board of `boxes` on a screen `area` whose `insets` float over it: all of
 * them (at 100 % at most) when that zoom is `readable` or more, else `readable` zoom centred on
 * where the work is (its top left when it is bigger than the screen at that zoom), moved no
 * further past the board's edge than centring the board would. Null for an empty board, which
 * keeps the view it has.
 */
export function openingView(boxes: readonly StackedBox[], area: { w: number; h: number }, insets: Insets, readable: number): View | null {
  const whole = bounds([...boxes]);
  if (!whole) return null;
  const fitted = viewFor(whole, area, insets);
  if (fitted.zoom >= readable) return fitted;
  const focus = workedOn(boxes);
  const view = viewFor({ ...focus, ...readableSize(area, insets, readable, focus) }, area, insets, readable);
  const clear = uncovered(area, insets);
  return {
    x: insets.left - onBoard(insets.left - view.x, clear.w, whole.x * view.zoom, whole.w * view.zoom),
    y: insets.top - onBoard(insets.top - view.y, clear.h, whole.y * view.zoom, whole.h * view.zoom),
    zoom: view.zoom,
  };
}

/**
 * Where a screen span of `span` px starting at `at` (px from the board's origin at the view's
 * zoom) goes to show as much of the board's `start`..`start + size` as it can: centred on the
 * board when the board is smaller, else kept inside it.
 */
function onBoard(at: number, span: number, start: number, size: number): number {
  if (size <= span) return start + (size - span) / 2;
  return Math.min(Math.max(at, start), start + size - span);
}
