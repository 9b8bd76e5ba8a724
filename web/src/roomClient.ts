import { createContext, useContext, useEffect, useSyncExternalStore } from "react";
import type { ClientFrame, ServerFrame, ServerFrameOf, Welcome } from "./protocol.gen";
import type { RoomStore } from "./room/roomStore";
import { decision, type Access } from "./room/access";
import { selectAccess, type RoomState } from "./room/roomState";

/**
 * What a feature needs from the room to talk to it: send a frame, hear frames, read the welcome
 * (access kept current). The page's `RoomStore` is one; a test can pass a stand-in.
 */
export interface RoomClient {
  send(frame: ClientFrame): boolean;
  onFrame(listener: (frame: ServerFrame) => void): () => void;
  readonly welcome: Welcome | null;
}

export const RoomContext = createContext<RoomStore | null>(null);

export function useRoomStore(): RoomStore {
  const store = useContext(RoomContext);
  if (!store) throw new Error("useRoomStore outside a RoomContext");
  return store;
}

export function useRoomClient(): RoomClient {
  return useRoomStore();
}

/**
 * The part of the room's state that `select` picks, re-rendering when it changes. `select` must
 * return a part of the state or a primitive (not a new array or object), or React loops.
 */
export function useRoom<T>(select: (state: RoomState) => T): T {
  return useRoomState(useRoomStore(), select);
}

/** `useRoom` for a store in hand (the page's own, before it is in the context), typed by its connection. */
export function useRoomState<S extends string, T>(store: RoomStore<S>, select: (state: RoomState<S>) => T): T {
  return useSyncExternalStore(store.subscribe, () => select(store.getState()));
}

/** Our access as it is now: the welcome's, then whatever the host changes it to. */
export function useAccess(): Access | null {
  return useRoom(selectAccess);
}

/** Runs `store`'s connection while the component is mounted. */
export function useRunRoom(store: RoomStore | null): void {
  useEffect(() => store?.start(), [store]);
}

/** Calls `listener` for every server frame of type `t` while the component is mounted. */
export function useFrames<T extends ServerFrame["t"]>(t: T, listener: (frame: ServerFrameOf<T>) => void): void {
  const client = useRoomClient();
  useEffect(
    () =>
      client.onFrame((frame) => {
        if (frame.t === t) listener(frame as ServerFrameOf<T>);
      }),
    [client, t, listener],
  );
}

/**
 * Sends `frame` now and again after every welcome (a reconnect), for a subscription the server
 * forgets with the peer (`tree-watch`), as long as `may` says our access (as the welcome has it)
 * allows it: a page that reconnects with less access asks for nothing it would be refused.
 * `frame` and `may` should be stable (constants).
 */
export function useSendOnWelcome(frame: ClientFrame, may: (access: Access | null) => boolean = () => true): void {
  const store = useRoomStore();
  useEffect(() => {
    const send = () => {
      if (may(selectAccess(store.getState()))) store.send(frame);
    };
    send();
    return store.onFrame((incoming) => {
      if (incoming.t === "welcome") send();
    });
  }, [store, frame, may]);
}

/** Whether this access may browse the files and open them. */
export function mayBrowse(access: Access | null): boolean {
  return decision(access, "browse-files") === "allow";
}
