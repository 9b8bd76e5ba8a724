/**
 * The board's side of `BoardView` (web/src/boardView.ts): the canvas answers "show this frame",
 * "put this frame back" and "follow that person", tells everyone the part of the board it shows
 * (awareness `view`), and guards the frames of running sessions and terminals against removal.
 */
import { type Edge, type ReactFlowInstance, type Viewport } from "@xyflow/react";
import { type RefObject, useEffect } from "react";
import type * as Y from "yjs";
import { useBoardView } from "../boardView";
import type { HoldsType, ViewRect } from "../protocol.gen";
import { isLive, sessionName, terminalName } from "../room/roomState";
import { useRoomStore } from "../roomClient";
import { addItem, DEFAULTS, type Item, readItem } from "./model";
import type { BoardNode } from "./nodes";
import type { BoardSession } from "./sync";

const SHOW_MS = 300;
const MIN_ZOOM = 0.05;
const MAX_ZOOM = 4;

export interface BoardLink {
  /** Whether the selected items may go: asks the host about live frames, refuses a guest. */
  mayRemove(ids: Iterable<string>): boolean;
  onMoveStart(event: MouseEvent | TouchEvent | null): void;
  onMove(event: MouseEvent | TouchEvent | null, viewport: Viewport): void;
}

/** The part of the board `element` shows at `viewport`, in board coordinates. */
function visibleRect(element: HTMLElement | null, viewport: Viewport): ViewRect | null {
  const box = element?.getBoundingClientRect();
  if (!box || box.width === 0 || box.height === 0) return null;
  const { x, y, zoom } = viewport;
  return { x: -x / zoom, y: -y / zoom, w: box.width / zoom, h: box.height / zoom };
}

export function useBoardLink(
  session: BoardSession,
  flow: ReactFlowInstance<BoardNode, Edge>,
  items: Item[],
  wrapper: RefObject<HTMLDivElement | null>,
): BoardLink {
  const view = useBoardView();
  const store = useRoomStore();


  useEffect(() => {
    const frameOf = (ref: string) => items.find((item) => item.kind === "frame" && item.holds?.ref === ref);
    return view.attach({
      showFrame(ref) {
        const frame = frameOf(ref);
        if (!frame) return false;
        void flow.fitBounds({ x: frame.x, y: frame.y, width: frame.w, height: frame.h }, { padding: 0.1, duration: SHOW_MS });
        return true;
      },
      addFrame(type: HoldsType, ref: string) {
        const rect = visibleRect(wrapper.current, flow.getViewport());
        const size = DEFAULTS.frame;
        const x = rect ? rect.x + rect.w / 2 - size.w / 2 : 0;
        const y = rect ? rect.y + rect.h / 2 - size.h / 2 : 0;
        session.step(() => {
          addItem(session.items, { kind: "frame", x, y, ...size, holds: { type, ref }, title: "" });
        });
        void flow.fitBounds({ x, y, width: size.w, height: size.h }, { padding: 0.1, duration: SHOW_MS });
      },
      showRect(rect) {
        const box = wrapper.current?.getBoundingClientRect();
        if (!box) return;
        const zoom = Math.min(MAX_ZOOM, Math.max(MIN_ZOOM, Math.min(box.width / rect.w, box.height / rect.h)));
        void flow.setCenter(rect.x + rect.w / 2, rect.y + rect.h / 2, { zoom });
      },
    });
  }, [view, flow, items, session, wrapper]);

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
    const rect = visibleRect(wrapper.current, flow.getViewport());
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
      },
      onMove(_event, viewport) {
        const rect = visibleRect(wrapper.current, viewport);
        if (rect) session.setPresence({ view: rect });
      },
  };
}
