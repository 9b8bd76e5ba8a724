import type { ReactNode } from "react";
import type { RoomStore } from "./room/roomStore";
import { RoomContext, useRoomState, useRunRoom } from "./roomClient";

/**
 * The host's and the guests' page around the room: runs the store's connection, puts the store
 * in the context, and draws the bar across the top (the name, the connection's state, `bar`).
 */
export function RoomPage<S extends string>({
  store,
  labels,
  bar,
  children,
}: {
  store: RoomStore<S>;
  labels: Record<S, string>;
  bar: ReactNode;
  children: ReactNode;
}) {
  useRunRoom(store);
  const state = useRoomState(store, (s) => s.connection);
  return (
    <RoomContext.Provider value={store}>
      <main className="shell">
        <header className="topbar">
          <span className="brand">canvas</span>
          <span className={`status status-${state}`} data-testid="connection-state">
            {labels[state]}
          </span>
          {bar}
        </header>
        {children}
      </main>
    </RoomContext.Provider>
  );
}
