import { FitAddon } from "@xterm/addon-fit";
import { type ITheme, Terminal } from "@xterm/xterm";
import "@xterm/xterm/css/xterm.css";
import { useEffect, useId, useRef, useState } from "react";
import type { FrameContentProps } from "../frames";
import { RequestNotes } from "../attention/RequestNotes";
import { selectMayType, selectTerminal } from "../room/roomState";
import { useAccess, useRoom, useRoomStore } from "../roomClient";
import { currentTheme, onTheme, type Theme } from "../theme";
import { EscapeThenTab } from "./escape";
import { chunkInput, clampSize } from "./stream";
import { TerminalControl } from "./TerminalControl";
import "./control.css";

const THEMES: Record<Theme, ITheme> = {
  dark: { background: "#1e1e1e", foreground: "#e8e8e8", cursor: "#e8e8e8", selectionBackground: "#44475a" },
  light: {
    background: "#fbfbfa",
    foreground: "#1e1e1e",
    cursor: "#1e1e1e",
    selectionBackground: "#c8d8f0",
    // xterm's default yellow and white are unreadable on a light background.
    yellow: "#8a6d00",
    brightYellow: "#7a5f00",
    white: "#555555",
    brightWhite: "#333333",
  },
};

/**
 * One terminal of the room, by id (`refId`): watches it while the server lists it, shows its
 * output, sends keystrokes (when this page may type), makes the PTY follow the view's size, and
 * says who has control. A terminal the server does not list (it ended with a restart) is not
 * asked for again unless someone presses "Start a shell".
 */
export function TerminalView({ refId, title, width, height }: FrameContentProps) {
  const store = useRoomStore();
  const listed = useRoom((s) => selectTerminal(s, refId) !== undefined);
  const access = useAccess();
  return (
    <div className="terminal-view" style={{ width, height }} data-testid={`terminal-${refId}`} title={title}>
      <TerminalControl id={refId} />
      {listed ? (
        <Screen refId={refId} />
      ) : (
        <div className="terminal-none" data-testid="terminal-none">
          <p>No shell is running here.</p>
          {access && access !== "view" && (
            <button type="button" onClick={() => store.send({ t: "term-open", id: refId })}>
              Start a shell
            </button>
          )}
          <RequestNotes subject={refId} />
        </div>
      )}
    </div>
  );
}

function Screen({ refId }: { refId: string }) {
  const store = useRoomStore();
  const box = useRef<HTMLDivElement>(null);
  const hintId = useId();
  const [exitCode, setExitCode] = useState<number | null>(null);
  const typing = useRoom((s) => selectMayType(s, refId));

  useEffect(() => {
    const element = box.current;
    if (!element) return;
    const term = new Terminal({
      fontFamily: "ui-monospace, SFMono-Regular, Menlo, monospace",
      fontSize: 13,
      scrollback: 5000,
      theme: THEMES[currentTheme()],
    });
    const fit = new FitAddon();
    term.loadAddon(fit);
    term.open(element);
    term.textarea?.setAttribute("aria-describedby", hintId);
    // Access can change while the view is open; each keystroke asks again.
    const canType = () => selectMayType(store.getState(), refId);
    const input = (data: string) => {
      if (!canType()) return;
      for (const chunk of chunkInput(data)) store.send({ t: "term-input", id: refId, data: chunk });
    };
    const escape = new EscapeThenTab(() => input("\x1b"));
    term.attachCustomKeyEventHandler((event) => event.type !== "keydown" || escape.keydown(event));
    const blurred = () => escape.blur();
    term.textarea?.addEventListener("blur", blurred);
    const measure = () => {
      try {
        fit.fit();
      } catch {
        // Not laid out yet (hidden): keep the last size.
      }
      return clampSize(term.cols, term.rows);
    };
    // Listed, so this only watches it; a resync (a new welcome) lists the terminals anew and
    // this view is made again if the terminal is still there.
    store.send({ t: "term-open", id: refId, ...measure() });

    const offFrame = store.onFrame((frame) => {
      if (frame.t === "term-data" && frame.id === refId) {
        if (frame.replay) {
          term.reset();
          setExitCode(null);
        }
        term.write(frame.data);
      } else if (frame.t === "term-exit" && frame.id === refId) {
        setExitCode(frame.code);
      }
    });
    const typed = term.onData(input);
    const resized = term.onResize(({ cols, rows }) => {
      if (canType()) store.send({ t: "term-resize", id: refId, ...clampSize(cols, rows) });
    });
    const offTheme = onTheme(() => {
      term.options.theme = THEMES[currentTheme()];
    });
    const observer = new ResizeObserver(() => measure());
    observer.observe(element);
    return () => {
      observer.disconnect();
      offTheme();
      offFrame();
      typed.dispose();
      resized.dispose();
      term.textarea?.removeEventListener("blur", blurred);
      store.send({ t: "term-detach", id: refId });
      term.dispose();
    };
  }, [store, refId, hintId]);

  return (
    <>
      <div className="terminal-screen" ref={box} />
      <div className="terminal-hint" id={hintId}>
        Esc then Tab leaves the terminal
      </div>
      {!typing && (
        <div className="terminal-watching" data-testid="terminal-watching">
          Watching: you cannot type here
        </div>
      )}
      {exitCode !== null && <div className="terminal-exit">exited with code {exitCode}</div>}
    </>
  );
}
