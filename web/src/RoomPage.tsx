import { type ReactNode, useCallback, useEffect, useState } from "react";
import { AttentionCentre, AttentionLine } from "./attention/AttentionCentre";
import { Notices } from "./attention/Notices";
import { Arrivals } from "./people/Arrivals";
import { BoardView, BoardViewContext } from "./boardView";
import { selectConnection } from "./room/roomState";
import type { RoomStore } from "./room/roomStore";
import { RoomContext, useRoomState, useRunRoom } from "./roomClient";
import { PHONE } from "./board/phone";
import { useMedia } from "./board/useMedia";
import { chooseTheme, type ThemeChoice, useThemeChoice } from "./theme";

/** Each colour scheme's name, in full and as a phone's top bar has room for (the field is labelled). */
const THEMES: [ThemeChoice, string, string][] = [
  ["system", "System theme", "System"],
  ["light", "Light theme", "Light"],
  ["dark", "Dark theme", "Dark"],
];

const RESTARTING = "Host restarting — reconnecting";

/** Whole seconds since `active` last turned true, counted once a second. */
function useSecondsWhile(active: boolean): number {
  const [seconds, setSeconds] = useState(0);
  useEffect(() => {
    if (!active) return;
    const start = Date.now();
    const timer = setInterval(() => setSeconds(Math.round((Date.now() - start) / 1000)), 1000);
    return () => {
      clearInterval(timer);
      setSeconds(0);
    };
  }, [active]);
  return seconds;
}

/**
 * The host's and the guests' page around the room: runs the store's connection, puts the store
 * and the board's view in the context, and draws the bar across the top (the name, the
 * connection's state with, while the host restarts, the time since it said so, the line of what
 * waits, `bar`, the colour scheme), then the list of what waits and what the page was told. `children` holds the page's
 * `main` landmark.
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
  const state = useRoomState(store, selectConnection);
  const seconds = useSecondsWhile(state === "restarting");
  const joined = useRoomState(store, (s) => s.welcome !== null);
  const [waitingOpen, setWaitingOpen] = useState(false);
  const toggleWaiting = useCallback(() => setWaitingOpen((was) => !was), []);
  const closeWaiting = useCallback(() => setWaitingOpen(false), []);
  return (
    <RoomContext.Provider value={store}>
      <BoardViewContext.Provider value={boardView}>
        <div className="shell">
          <header className="topbar">
            <h1 className="brand">canvas</h1>
            <span className={`status status-${state}`} data-testid="connection-state" role="status">
              {state === "restarting" ? `${RESTARTING} (${seconds} s)` : labels[state]}
            </span>
            {joined && <AttentionLine open={waitingOpen} onToggle={toggleWaiting} />}
            {bar}
            <ThemePicker />
          </header>
          {joined && <AttentionCentre open={waitingOpen} onClose={closeWaiting} onToggle={toggleWaiting} />}
          <Notices />
          {joined && <Arrivals />}
          {children}
        </div>
      </BoardViewContext.Provider>
    </RoomContext.Provider>
  );
}

function ThemePicker() {
  const theme = useThemeChoice();
  const phone = useMedia(PHONE);
  return (
    <label className="theme-choice">
      <span className="visually-hidden">Colour scheme</span>
      <select data-testid="theme-choice" value={theme} onChange={(event) => chooseTheme(event.target.value as ThemeChoice)}>
        {THEMES.map(([value, full, short]) => (
          <option key={value} value={value}>
            {phone ? short : full}
          </option>
        ))}
      </select>
    </label>
  );
}
