/**
 * Where the view goes: fitting items into the part of the board that nothing floats over (the
 * toolbar above, the zoom bar and the map below, the open Room drawer or sheet), and the zoom bar
 * that shows the zoom level with "100 %" and "fit" one click away.
 */
import { useReactFlow, useViewport } from "@xyflow/react";
import { type RefObject, useEffect } from "react";
import type { Rect } from "./arrange";
import { Icon } from "./icons";
import type { View } from "./view";

export const MIN_ZOOM = 0.05;
export const MAX_ZOOM = 4;
/** Below this zoom a frame's prompt and thread are too small to read: a new frame is zoomed in to. */
export const READABLE_ZOOM = 0.8;
const MARGIN = 24;

export interface Insets {
  top: number;
  right: number;
  bottom: number;
  left: number;
}

type Side = keyof Insets;
/** A selector for what floats over the board, and the side it covers (null: the side it is docked to). */
type Floating = [selector: string, side: Side | null];

/**
 * What floats over the board, in the order they lie on each other, each with the side of the
 * board it keeps clear: the Room drawer (over the right side) or a phone's Room sheet (over the
 * bottom) while open, which a wide window's Room column beside the board never reaches; then the
 * board's own toolbar above, its zoom bar and map below, and what waits for the person.
 */
const PANEL: Floating = [".side > .panel", null];
const CONTROLS: Floating[] = [
  [".board-toolbar", "top"],
  [".board-zoom, .react-flow__minimap, .board-map", "bottom"],
  // What waits for the person: a phone's band over the bottom, a wider page's list while open.
  [".attention-busy", null],
];

/**
 * How much of each side of the board what floats over it covers, in screen pixels, read from the
 * page as it is now (a toolbar that wraps, a drawer opened or closed). A control lying wholly
 * under what lies over it (the map under the open drawer) covers nothing more. Without `panel`,
 * the Room drawer or sheet is left out: what a new frame's size makes room for outlasts it.
 */
export function coveredInsets(board: HTMLElement, { panel = true } = {}): Insets {
  const area = board.getBoundingClientRect();
  const covered: Insets = { top: 0, right: 0, bottom: 0, left: 0 };
  for (const [selector, side] of panel ? [PANEL, ...CONTROLS] : CONTROLS) {
    const open = { top: area.top + covered.top, right: area.right - covered.right, bottom: area.bottom - covered.bottom, left: area.left + covered.left };
    for (const element of document.querySelectorAll(selector)) {
      const rect = element.getBoundingClientRect();
      const over = rect.width > 0 && rect.height > 0 && rect.left < open.right && rect.right > open.left && rect.top < open.bottom && rect.bottom > open.top;
      if (!over || getComputedStyle(element).visibility === "hidden") continue;
      const depth: Insets = { top: rect.bottom - area.top, right: area.right - rect.left, bottom: area.bottom - rect.top, left: rect.right - area.left };
      const at = side ?? leastCovering(depth, area);
      covered[at] = Math.max(covered[at], depth[at]);
    }
  }
  return { top: covered.top + MARGIN, right: covered.right + MARGIN, bottom: covered.bottom + MARGIN, left: covered.left + MARGIN };
}

/** The side whose strip, `depth` deep, gives up the least of the board: the one a panel is docked to. */
function leastCovering(depth: Insets, area: DOMRect): Side {
  const lost = (side: Side) => depth[side] * (side === "top" || side === "bottom" ? area.width : area.height);
  return (["top", "right", "bottom", "left"] as const).reduce((best, side) => (lost(side) < lost(best) ? side : best));
}

/** The part of a screen `area` nothing floats over (never less than 40 px a side). */
export function uncovered(area: { w: number; h: number }, insets: Insets): { w: number; h: number } {
  return { w: Math.max(area.w - insets.left - insets.right, 40), h: Math.max(area.h - insets.top - insets.bottom, 40) };
}

/** The view that shows `box` whole in the uncovered part of an `area` screen box, at most at `maxZoom`. */
export function viewFor(box: Omit<Rect, "id">, area: { w: number; h: number }, insets: Insets, maxZoom = 1): View {
  const { w, h } = uncovered(area, insets);
  const zoom = Math.min(maxZoom, MAX_ZOOM, Math.max(MIN_ZOOM, Math.min(w / Math.max(box.w, 1), h / Math.max(box.h, 1))));
  return {
    x: insets.left + (w - box.w * zoom) / 2 - box.x * zoom,
    y: insets.top + (h - box.h * zoom) / 2 - box.y * zoom,
    zoom,
  };
}

/**
 * The view at `view`'s zoom that brings `box` into the uncovered part of an `area` screen box by
 * the shortest pan (none along an axis where it is in already), so what was in sight beside it
 * moves no further than it must. A box larger than that part shows from its top left.
 */
export function panInto(view: View, box: Omit<Rect, "id">, area: { w: number; h: number }, insets: Insets): View {
  const { w, h } = uncovered(area, insets);
  const shift = (at: number, size: number, start: number, span: number) => {
    if (size > span || at < start) return start - at;
    return Math.min(0, start + span - (at + size));
  };
  return {
    x: view.x + shift(view.x + box.x * view.zoom, box.w * view.zoom, insets.left, w),
    y: view.y + shift(view.y + box.y * view.zoom, box.h * view.zoom, insets.top, h),
    zoom: view.zoom,
  };
}

export function ZoomBar({ onFit }: { onFit: () => void }) {
  const flow = useReactFlow();
  const { zoom } = useViewport();
  const percent = `${Math.round(zoom * 100)} %`;
  return (
    <div className="board-zoom" role="group" aria-label="Zoom" data-testid="board-zoom">
      <button type="button" title="Zoom out (Ctrl+−)" aria-label="Zoom out" onClick={() => flow.zoomOut({ duration: 120 })}>
        <Icon name="minus" />
      </button>
      <button
        type="button"
        className="board-zoom-level"
        title="Zoom to 100 % (Shift+0)"
        aria-label={`Zoom ${percent}: reset to 100 %`}
        data-testid="board-zoom-level"
        onClick={() => flow.zoomTo(1, { duration: 120 })}
      >
        {percent}
      </button>
      <button type="button" title="Zoom in (Ctrl++)" aria-label="Zoom in" onClick={() => flow.zoomIn({ duration: 120 })}>
        <Icon name="plus" />
      </button>
      <button type="button" title="Fit the board (Shift+1)" aria-label="Fit the board in view" data-testid="board-zoom-fit" onClick={onFit}>
        <Icon name="fit" />
      </button>
    </div>
  );
}

/**
 * Ctrl+wheel (and a trackpad's pinch, which the browser sends as one) zooms the board over a
 * frame's content too. React Flow leaves wheel events inside `.nowheel` (a thread, a terminal, an
 * editor) to what scrolls there; these are handed to its pane instead, and the browser's own page
 * zoom is held back.
 */
export function useZoomOverFrames(board: RefObject<HTMLElement | null>): void {
  useEffect(() => {
    const element = board.current;
    if (!element) return;
    const onWheel = (event: WheelEvent) => {
      if (!(event.ctrlKey || event.metaKey) || !(event.target instanceof Element) || !event.target.closest(".nowheel")) return;
      const pane = element.querySelector(".react-flow__pane");
      if (!pane) return;
      event.preventDefault();
      event.stopPropagation();
      pane.dispatchEvent(new WheelEvent("wheel", wheelInit(event)));
    };
    element.addEventListener("wheel", onWheel, { capture: true, passive: false });
    return () => element.removeEventListener("wheel", onWheel, { capture: true });
  }, [board]);
}

function wheelInit(event: WheelEvent): WheelEventInit {
  const { deltaX, deltaY, deltaZ, deltaMode, clientX, clientY, screenX, screenY, ctrlKey, metaKey, shiftKey, altKey } = event;
  return { deltaX, deltaY, deltaZ, deltaMode, clientX, clientY, screenX, screenY, ctrlKey, metaKey, shiftKey, altKey, bubbles: true, cancelable: true };
}
