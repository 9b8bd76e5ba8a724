import { useState, type ReactNode } from "react";
import { AttentionBadge, AttentionCentre } from "./attention/AttentionCentre";
import { Notices } from "./attention/Notices";
import { BoardView, BoardViewContext } from "./boardView";
import type { RoomStore } from "./room/roomStore";
import { RoomContext, useRoomState, useRunRoom } from "./roomClient";

/**
 * The host's and the guests' page around the room: runs the store's connection, puts the store
 * and the board's view in the context, and draws the bar across the top (the name, the
 * connection's state, what waits, `bar`), then what waits and what the page was told.
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
  const [boardView] = useState(() => new BoardView());
  const state = useRoomState(store, (s) => s.connection);
  const joined = useRoomState(store, (s) => s.welcome !== null);
  return (
    <RoomContext.Provider value={store}>
      <BoardViewContext.Provider value={boardView}>
        <main className="shell">
          <header className="topbar">
            <span className="brand">canvas</span>
            <span className={`status status-${state}`} data-testid="connection-state">
              {labels[state]}
            </span>
            {joined && <AttentionBadge />}
            {bar}
          </header>
          {joined && <AttentionCentre />}
          <Notices />
          {children}
        </main>
      </BoardViewContext.Provider>
    </RoomContext.Provider>
  );
}
