/**
 * Putting frames on the board for this client: in free space near the middle of the view, which
 * pans to the frame (or to the one already there), and the frame takes the focus. Registered as
 * the board's actions, for the side panel's buttons.
 */
import { type Edge, useReactFlow } from "@xyflow/react";
import { type RefObject, useCallback, useEffect } from "react";
import { useRoomClient } from "../roomClient";
import { type BoardActions, registerBoardActions } from "./actions";
import { addItem, DEFAULTS, type HoldsType, type NewItem, readItems } from "./model";
import { coveredInsets, READABLE_ZOOM, viewFor } from "./navigation";
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

  /** The part of the board on screen, in board units. */
  const visibleBox = useCallback((): Box => {
    const rect = wrapperRef.current?.getBoundingClientRect();
    const topLeft = flow.screenToFlowPosition({ x: rect?.left ?? 0, y: rect?.top ?? 0 });
    const bottomRight = flow.screenToFlowPosition({ x: rect?.right ?? 0, y: rect?.bottom ?? 0 });
    return { x: topLeft.x, y: topLeft.y, w: bottomRight.x - topLeft.x, h: bottomRight.y - topLeft.y };
  }, [flow, wrapperRef]);

  /**
   * Pans so `box` is in view clear of the toolbar and the map, at a zoom where its text can be
   * read (zooming out only if it must), then gives it the focus.
   */
  const reveal = useCallback(
    (id: string, box: Box) => {
      const board = wrapperRef.current;
      if (board) {
        const insets = coveredInsets(board);
        const view = visibleBox();
        const zoom = flow.getZoom();
        const readable = phone ? PHONE_READABLE_ZOOM : READABLE_ZOOM;
        const clear = { x: view.x + insets.left / zoom, y: view.y + insets.top / zoom, w: view.w - (insets.left + insets.right) / zoom, h: view.h - (insets.top + insets.bottom) / zoom };
        if (!contains(clear, box) || zoom < readable) {
          const area = board.getBoundingClientRect();
          const size = { w: area.width, h: area.height };
          // A phone reads a frame wider than its screen from the frame's top left, rather than
          // fitting the whole of it at a size nobody reads.
          const shown = phone ? { ...box, ...readableSize(size, insets, readable, box) } : box;
          void flow.setViewport(viewFor(shown, size, insets, Math.min(Math.max(1, readable), Math.max(zoom, readable))), { duration: 200 });
        }
      }
      select(new Set([id]));
      focusWhenDrawn(wrapperRef, id);
    },
    [flow, visibleBox, wrapperRef, select, phone],
  );

  /** Adds an item in free space near the middle of the view, and reveals it. */
  const place = useCallback(
    (fields: Omit<NewItem, "x" | "y">): string => {
      const view = visibleBox();
      const centre = { x: view.x + view.w / 2, y: view.y + view.h / 2 };
      const spot = freeSpot(occupied(session), fields, centre);
      let id = "";
      session.step(() => {
        id = addItem(session.items, { ...fields, ...spot });
      });
      reveal(id, { ...spot, w: fields.w, h: fields.h });
      return id;
    },
    [session, visibleBox, reveal],
  );

  const showFrame = useCallback(
    (type: HoldsType, ref: string, title = ""): string | null => {
      const there = readItems(session.items).find((item) => item.holds?.type === type && item.holds.ref === ref);
      if (there) {
        reveal(there.id, there);
        return there.id;
      }
      if (readOnly) return null;
      const { w, h, color } = DEFAULTS.frame;
      const board = wrapperRef.current;
      // On a phone a new frame is as wide as the screen shows it at a readable zoom.
      const fits = phone && board ? readableSize({ w: board.clientWidth, h: board.clientHeight }, coveredInsets(board), PHONE_READABLE_ZOOM, { w, h }) : { w, h };
      return place({ kind: "frame", ...fits, color, holds: { type, ref }, title });
    },
    [session, reveal, place, readOnly, phone, wrapperRef],
  );

  useEffect(() => registerBoardActions(roomClient, { showFrame } satisfies BoardActions), [roomClient, showFrame]);

  return { showFrame, reveal };
}
