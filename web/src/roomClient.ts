import { createContext, useContext, useEffect, useState } from "react";
import type { ClientFrame, ServerFrame, ServerFrameOf, Welcome } from "./protocol.gen";

/**
 * What the UI needs from a connection to the room, whether it is the host's WebSocket or a
 * guest's data channel: send a frame, hear frames, know who we are.
 */
export interface RoomClient {
  send(frame: ClientFrame): boolean;
  onFrame(listener: (frame: ServerFrame) => void): () => void;
  readonly welcome: Welcome | null;
}

/** A connection the page runs: one with a state of its own, started and stopped by the page. */
export interface RunnableClient<S> extends RoomClient {
  onState(listener: (state: S) => void): () => void;
  start(): void;
  stop(): void;
}

/**
 * Runs `connection` while the component is mounted (stopping it after) and returns its state as
 * it changes; `onFrame` hears every frame and should be stable (`useCallback`).
 */
export function useRunConnection<S>(
  connection: RunnableClient<S> | null,
  initial: S,
  onFrame: (frame: ServerFrame) => void,
): S {
  const [state, setState] = useState<S>(initial);
  useEffect(() => {
    if (!connection) return;
    const offState = connection.onState(setState);
    const offFrame = connection.onFrame(onFrame);
    connection.start();
    return () => {
      offState();
      offFrame();
      connection.stop();
    };
  }, [connection, onFrame]);
  return state;
}

export const RoomClientContext = createContext<RoomClient | null>(null);

export function useRoomClient(): RoomClient {
  const client = useContext(RoomClientContext);
  if (!client) throw new Error("useRoomClient outside a RoomClientContext");
  return client;
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
 * Sends `frame` now and again after every welcome (a reconnect), for a request whose answer
 * may have gone by before the component was mounted. `frame` should be stable (a constant).
 */
export function useSendOnWelcome(frame: ClientFrame): void {
  const client = useRoomClient();
  useEffect(() => {
    client.send(frame);
    return client.onFrame((incoming) => {
      if (incoming.t === "welcome") client.send(frame);
    });
  }, [client, frame]);
}

/**
 * Our access as it is now: the welcome's, then whatever the host changes it to (a guest's
 * connection keeps `welcome.access` current). Components re-render when it changes.
 */
export function useAccess(): Welcome["access"] | null {
  const client = useRoomClient();
  const [access, setAccess] = useState(client.welcome?.access ?? null);
  useEffect(() => {
    setAccess(client.welcome?.access ?? null);
    return client.onFrame((frame) => {
      if (frame.t === "welcome" || frame.t === "access") setAccess(client.welcome?.access ?? null);
    });
  }, [client]);
  return access;
}
