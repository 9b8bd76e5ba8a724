/**
 * Where the view goes: fitting items into the part of the board that nothing floats over (the
 * toolbar above, the zoom bar and the map below), and the zoom bar that shows the zoom level with
 * "100 %" and "fit" one click away.
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

/** How much of each side of the board the floating controls cover, in screen pixels. */
export function coveredInsets(board: HTMLElement): Insets {
  const area = board.getBoundingClientRect();
  const below = (selector: string) => {
    const rect = board.querySelector(selector)?.getBoundingClientRect();
    return rect && rect.height > 0 ? rect : null;
  };
  const toolbar = below(".board-toolbar");
  const map = below(".react-flow__minimap, .board-map");
  const zoom = below(".board-zoom");
  const top = toolbar ? toolbar.bottom - area.top : 0;
  const bottom = Math.max(map ? area.bottom - map.top : 0, zoom ? area.bottom - zoom.top : 0);
  return { top: top + MARGIN, right: MARGIN, bottom: bottom + MARGIN, left: MARGIN };
}

/** The view that shows `box` whole in the uncovered part of an `area` screen box, at most at `maxZoom`. */
/** The part of a screen `area` nothing floats over (never less than 40 px a side). */
export function uncovered(area: { w: number; h: number }, insets: Insets): { w: number; h: number } {
  return { w: Math.max(area.w - insets.left - insets.right, 40), h: Math.max(area.h - insets.top - insets.bottom, 40) };
}

export function viewFor(box: Omit<Rect, "id">, area: { w: number; h: number }, insets: Insets, maxZoom = 1): View {
  const { w, h } = uncovered(area, insets);
  const zoom = Math.min(maxZoom, MAX_ZOOM, Math.max(MIN_ZOOM, Math.min(w / Math.max(box.w, 1), h / Math.max(box.h, 1))));
  return {
    x: insets.left + (w - box.w * zoom) / 2 - box.x * zoom,
    y: insets.top + (h - box.h * zoom) / 2 - box.y * zoom,
    zoom,
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
