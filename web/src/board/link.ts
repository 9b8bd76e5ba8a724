/**
 * The board's side of `BoardView` (web/src/boardView.ts): the canvas answers "show this frame",
 * "put this frame back" and "follow that person", tells everyone the part of the board it shows
 * (awareness `view`), and guards the frames of running sessions and terminals against removal.
 */
import { type Edge, type ReactFlowInstance, type Viewport } from "@xyflow/react";
import { type RefObject, useEffect, useRef } from "react";
import type * as Y from "yjs";
import { useBoardView } from "../boardView";
import type { ViewRect } from "../protocol.gen";
import { isLive, sessionName, terminalName } from "../room/roomState";
import { useRoomStore } from "../roomClient";
import type { BoardActions } from "./actions";
import { type Item, readItem } from "./model";
import { coveredInsets, type Insets, MAX_ZOOM, uncovered, viewFor } from "./navigation";
import type { BoardNode } from "./nodes";
import type { BoardSession } from "./sync";

export interface BoardLink {
  /** Whether the selected items may go: asks the host about live frames, refuses a guest. */
  mayRemove(ids: Iterable<string>): boolean;
  onMoveStart(event: MouseEvent | TouchEvent | null): void;
  onMove(event: MouseEvent | TouchEvent | null, viewport: Viewport): void;
}

/**
 * The part of the board `element` shows at `viewport` that nothing floats over, in board
 * coordinates: what a follower is shown, in the part of their own board nothing floats over.
 */
function visibleRect(element: HTMLElement | null, viewport: Viewport, insets: Insets | null): ViewRect | null {
  const box = element?.getBoundingClientRect();
  if (!insets || !box?.width || !box.height) return null;
  const { w, h } = uncovered({ w: box.width, h: box.height }, insets);
  const { x, y, zoom } = viewport;
  return { x: (insets.left - x) / zoom, y: (insets.top - y) / zoom, w: w / zoom, h: h / zoom };
}

/** What floats over `board` now, kept in `into` for the moves to come. */
function measure(board: HTMLElement | null, into: { current: Insets | null }): Insets | null {
  into.current = board ? coveredInsets(board) : null;
  return into.current;
}

export function useBoardLink(
  session: BoardSession,
  flow: ReactFlowInstance<BoardNode, Edge>,
  items: Item[],
  wrapper: RefObject<HTMLDivElement | null>,
  showFrame: BoardActions["showFrame"],
): BoardLink {
  const view = useBoardView();
  const store = useRoomStore();
  // What floats over the board, measured as a move starts rather than at each of its frames: a pan
  // does not change it, and measuring reads the whole page's layout.
  const covered = useRef<Insets | null>(null);


  useEffect(
    () =>
      view.attach({
        show(type, ref, title) {
          showFrame(type, ref, title);
        },
      showRect(rect) {
        const board = wrapper.current;
        if (!board) return;
        const box = board.getBoundingClientRect();
        void flow.setViewport(viewFor(rect, { w: box.width, h: box.height }, coveredInsets(board), MAX_ZOOM));
        },
      }),
    [view, flow, showFrame, wrapper],
  );

  useEffect(() => {
    const refs = new Set<string>();
    for (const item of items) if (item.kind === "frame" && item.holds) refs.add(item.holds.ref);
    view.setFrames(refs);
  }, [view, items]);

  // Following someone: their view, as their awareness tells it, becomes ours.
  useEffect(() => {
    const apply = () => {
      const followed = view.following;
      const rect = followed ? session.peers.get(followed)?.state.view : null;
      if (rect) view.showRect(rect);
    };
    const offPeers = session.onPeers(apply);
    const offView = view.subscribe(apply);
    return () => {
      offPeers();
      offView();
    };
  }, [view, session]);

  // Our own view, for whoever follows us: once at first, then as it moves.
  useEffect(() => {
    const rect = visibleRect(wrapper.current, flow.getViewport(), measure(wrapper.current, covered));
    if (rect) session.setPresence({ view: rect });
  }, [flow, session, wrapper]);

  return {
      mayRemove(ids) {
        const state = store.getState();
        const live = [...ids]
          .map((id) => readItem(id, session.items.get(id) as Y.Map<unknown> | undefined))
          .filter((item): item is Item => item?.kind === "frame" && item.holds !== undefined && isLive(state, item.holds.ref))
          .map((item) => sessionName(state, item.holds!.ref) ?? terminalName(state, item.holds!.ref) ?? "it");
        if (live.length === 0) return true;
        const names = live.join(", ");
        if (state.welcome?.access !== "host") {
          store.tell(`${names} is still running, so only the host can take its frame off the board.`);
          return false;
        }
        return window.confirm(
          `Take the frame of ${names} off the board? It keeps running; the room list puts it back, and Undo does too.`,
        );
      },
      onMoveStart(event) {
        // A pan or zoom of one's own (an event, not a programmatic move) stops following.
        if (event && view.following) view.follow(null);
        measure(wrapper.current, covered);
      },
      onMove(_event, viewport) {
        const rect = visibleRect(wrapper.current, viewport, covered.current ?? measure(wrapper.current, covered));
        if (rect) session.setPresence({ view: rect });
      },
  };
}
