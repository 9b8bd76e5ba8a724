/**
 * Putting frames on the board for this client: in free space near the middle of the view, which
 * pans to the frame (or to the one already there), and the frame takes the focus. Registered as
 * the board's actions, for the side panel's buttons.
 */
import { type Edge, useReactFlow } from "@xyflow/react";
import { type RefObject, useCallback, useEffect } from "react";
import { useRoomClient } from "../roomClient";
import { type BoardActions, registerBoardActions } from "./actions";
import { addItem, DEFAULTS, frameSize, type HoldsType, type NewItem, readItems } from "./model";
import { coveredInsets, type Insets, panInto, READABLE_ZOOM, uncovered, viewFor } from "./navigation";
import { readableSize } from "./openingView";
import { PHONE } from "./phone";
import { useMedia } from "./useMedia";
import type { BoardNode } from "./nodes";
import { type Box, contains, freeSpot } from "./placement";
import type { BoardSession } from "./sync";

/**
 * Gives a new item of this client's the focus once React Flow has drawn it (a frame or two
 * after the doc changed), so the button that made it does not keep the focus.
 */
function focusWhenDrawn(wrapperRef: RefObject<HTMLDivElement | null>, id: string, framesLeft = 60): void {
  const node = wrapperRef.current?.querySelector<HTMLElement>(`.react-flow__node[data-id="${CSS.escape(id)}"]`);
  if (node && getComputedStyle(node).visibility !== "hidden") {
    node.focus({ preventScroll: true });
    focusTerminal(node);
  } else if (framesLeft > 0) requestAnimationFrame(() => focusWhenDrawn(wrapperRef, id, framesLeft - 1));
}

/** A terminal's frame hands the focus on to the terminal once it is drawn (it loads on its own), so typing reaches the shell. */
function focusTerminal(node: HTMLElement, framesLeft = 300): void {
  if (!node.querySelector('.board-frame[data-holds="terminal"]') || !node.contains(document.activeElement)) return;
  const field = node.querySelector<HTMLElement>(".xterm-helper-textarea");
  if (field) field.focus({ preventScroll: true });
  else if (framesLeft > 0) requestAnimationFrame(() => focusTerminal(node, framesLeft - 1));
}

/** A frame's text on a phone's screen is at least 12 px from this zoom on (a thread's text is 13.6 px at 100 %). */
const PHONE_READABLE_ZOOM = 1;

/** Everything an item placed in free space must not cover. */
function occupied(session: BoardSession): Box[] {
  return readItems(session.items)
    .filter((item) => item.kind !== "arrow")
    .map(({ x, y, w, h }) => ({ x, y, w, h }));
}

export function useShowFrame(
  session: BoardSession,
  wrapperRef: RefObject<HTMLDivElement | null>,
  readOnly: boolean,
  select: (ids: Set<string>) => void,
): { showFrame: BoardActions["showFrame"]; reveal: (id: string, box: Box) => void } {
  const roomClient = useRoomClient();
  const flow = useReactFlow<BoardNode, Edge>();
  const phone = useMedia(PHONE);

  /**
   * The part of the board on screen that nothing floats over (the toolbar, the zoom bar, the open
   * Room drawer), in board units, with the screen box it lies in and what covers that box's sides.
   */
  const clearView = useCallback(
    (board: HTMLElement): { clear: Box; area: { w: number; h: number }; insets: Insets } => {
      const rect = board.getBoundingClientRect();
      const area = { w: rect.width, h: rect.height };
      const insets = coveredInsets(board);
      const { w, h } = uncovered(area, insets);
      const zoom = flow.getZoom();
      const topLeft = flow.screenToFlowPosition({ x: rect.left + insets.left, y: rect.top + insets.top });
      return { clear: { ...topLeft, w: w / zoom, h: h / zoom }, area, insets };
    },
    [flow],
  );

  /**
   * Moves the view so `box` is in view clear of what floats over the board, at a zoom where its
   * text can be read (zooming out only if it must); `reveal` then gives it the focus. At the zoom it has,
   * the view pans no further than it must, so what was in sight beside `box` (the agent's frame
   * above a new terminal) moves only as far, rather than on under the toolbar.
   */
  const bringIntoView = useCallback(
    (box: Box) => {
      const board = wrapperRef.current;
      if (board) {
        const { clear, area, insets } = clearView(board);
        const zoom = flow.getZoom();
        const readable = phone ? PHONE_READABLE_ZOOM : READABLE_ZOOM;
        if (!contains(clear, box) || zoom < readable) {
          // A phone reads a frame wider than its screen from the frame's top left, rather than
          // fitting the whole of it at a size nobody reads.
          const shown = phone ? { ...box, ...readableSize(area, insets, readable, box) } : box;
          const fitted = viewFor(shown, area, insets, Math.min(Math.max(1, readable), Math.max(zoom, readable)));
          void flow.setViewport(fitted.zoom === zoom ? panInto(flow.getViewport(), shown, area, insets) : fitted, { duration: 200 });
        }
      }
    },
    [flow, clearView, wrapperRef, phone],
  );

  const reveal = useCallback(
    (id: string, box: Box) => {
      bringIntoView(box);
      select(new Set([id]));
      focusWhenDrawn(wrapperRef, id);
    },
    [bringIntoView, wrapperRef, select],
  );

  const showItem = useCallback(
    (id: string, { pick }: { pick: boolean }): boolean => {
      const item = readItems(session.items).find((entry) => entry.id === id);
      if (!item) return false;
      if (pick) reveal(id, item);
      else bringIntoView(item);
      return true;
    },
    [session, reveal, bringIntoView],
  );

  /** Adds an item in free space near the middle of what the person sees clear, and reveals it. */
  const place = useCallback(
    (fields: Omit<NewItem, "x" | "y">): string => {
      const board = wrapperRef.current;
      const clear = board ? clearView(board).clear : undefined;
      const centre = clear ? { x: clear.x + clear.w / 2, y: clear.y + clear.h / 2 } : { x: 0, y: 0 };
      const spot = freeSpot(occupied(session), fields, centre, { within: clear });
      let id = "";
      session.step(() => {
        id = addItem(session.items, { ...fields, ...spot });
      });
      reveal(id, { ...spot, w: fields.w, h: fields.h });
      return id;
    },
    [session, clearView, reveal, wrapperRef],
  );

  const showFrame = useCallback(
    (type: HoldsType, ref: string, title = ""): string | null => {
      const there = readItems(session.items).find((item) => item.holds?.type === type && item.holds.ref === ref);
      if (there) {
        reveal(there.id, there);
        return there.id;
      }
      if (readOnly) return null;
      const size = frameSize(type);
      const board = wrapperRef.current;
      // A new frame is no bigger than the screen shows clear at a readable zoom (on a phone as
      // wide as the screen, on a short laptop screen as tall), so it never opens zoomed out.
      const area = board && { w: board.clientWidth, h: board.clientHeight };
      const fits = board && area ? readableSize(area, coveredInsets(board, { panel: !phone }), phone ? PHONE_READABLE_ZOOM : 1, size) : size;
      return place({ kind: "frame", ...fits, color: DEFAULTS.frame.color, holds: { type, ref }, title });
    },
    [session, reveal, place, readOnly, phone, wrapperRef],
  );

  useEffect(() => registerBoardActions(roomClient, { showFrame, showItem } satisfies BoardActions), [roomClient, showFrame, showItem]);

  return { showFrame, reveal };
}
