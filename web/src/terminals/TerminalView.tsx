import { FitAddon } from "@xterm/addon-fit";
import { type ITheme, Terminal } from "@xterm/xterm";
import "@xterm/xterm/css/xterm.css";
import { useEffect, useId, useRef, useState } from "react";
import type { FrameContentProps } from "../frames";
import { RequestNotes } from "../attention/RequestNotes";
import { selectMayType, selectTerminal } from "../room/roomState";
import { mayAsk } from "../room/access";
import { useAccess, useRoom, useRoomStore } from "../roomClient";
import { currentTheme, onTheme, type Theme } from "../theme";
import { EscapeThenTab } from "./escape";
import { KeyBar } from "./KeyBar";
import { chunkInput, clampSize, endedWords, withCtrl } from "./stream";
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
/** How long the name of who typed stays on the frame. */
const TYPIST_SHOWN_MS = 2500;

/**
 * One terminal of the room, by id (`refId`): watches it while the server lists it, shows its
 * output, sends keystrokes (when this page may type), makes the PTY follow the view's size, and
 * says who has control. A terminal the server does not list (it ended with a restart) is not
 * asked for again unless someone presses "Start a shell".
 */
export function TerminalView({ refId, title, width, height, opened = false }: FrameContentProps) {
  const store = useRoomStore();
  const listed = useRoom((s) => selectTerminal(s, refId) !== undefined);
  const access = useAccess();
  return (
    <div className="terminal-view" style={{ width, height }} data-testid={`terminal-${refId}`} title={title}>
      <TerminalControl id={refId} />
      {listed ? (
        <Screen refId={refId} opened={opened} />
      ) : (
        <div className="terminal-none" data-testid="terminal-none">
          <p>No shell is running here.</p>
          {mayAsk(access, "run-on-host") && (
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

/** `opened`: the terminal was opened on its own (a phone's sheet): it takes the focus, so a phone
 * brings up its keyboard, and shows the bar of keys that keyboard lacks. */
function Screen({ refId, opened }: { refId: string; opened: boolean }) {
  const store = useRoomStore();
  const box = useRef<HTMLDivElement>(null);
  const hintId = useId();
  const ended = useRoom((s) => {
    const info = selectTerminal(s, refId);
    return info ? endedWords(info) : null;
  });
  const typing = useRoom((s) => selectMayType(s, refId));
  const [typist, setTypist] = useState<{ name: string; color: string } | null>(null);
  // The key bar's Ctrl applies to the next key typed; the bar sends its keys through `send`.
  const ctrl = useRef(false);
  const [ctrlOn, setCtrlOn] = useState(false);
  const send = useRef<(data: string) => void>(() => {});
  const cursorKeys = useRef<() => boolean>(() => false);

  useEffect(() => {
    if (!typist) return;
    const timer = window.setTimeout(() => setTypist(null), TYPIST_SHOWN_MS);
    return () => window.clearTimeout(timer);
  }, [typist]);

  useEffect(() => {
    const element = box.current;
    if (!element) return;
    const term = new Terminal({
      fontFamily: "ui-monospace, SFMono-Regular, Menlo, monospace",
      // Opened, it fills a phone's width: its text is set to be read there.
      fontSize: opened ? 15 : 13,
      scrollback: 5000,
      theme: THEMES[currentTheme()],
    });
    const fit = new FitAddon();
    term.loadAddon(fit);
    term.open(element);
    term.textarea?.setAttribute("aria-describedby", hintId);
    if (opened) {
      // The sheet's dialog may open after this (it then focuses what asks for it) or before.
      term.textarea?.setAttribute("autofocus", "");
      term.focus();
    }
    // Access can change while the view is open; each keystroke asks again.
    const canType = () => selectMayType(store.getState(), refId);
    const input = (typed: string) => {
      if (!canType()) return;
      let data = typed;
      if (ctrl.current) {
        data = withCtrl(typed);
        ctrl.current = false;
        setCtrlOn(false);
      }
      for (const chunk of chunkInput(data)) store.send({ t: "term-input", id: refId, data: chunk });
    };
    send.current = input;
    cursorKeys.current = () => term.modes.applicationCursorKeysMode;
    const escape = new EscapeThenTab(() => input("\x1b"));
    // A watcher's keys go nowhere, so Tab is left to the browser: the terminal never holds their focus.
    term.attachCustomKeyEventHandler(
      (event) => event.type !== "keydown" || (canType() ? escape.keydown(event) : event.key !== "Tab"),
    );
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
        if (frame.replay) term.reset();
        term.write(frame.data);
      } else if (frame.t === "term-typist" && frame.id === refId) {
        setTypist({ name: frame.name, color: frame.color });
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
  }, [store, refId, hintId, opened]);

  return (
    <>
      <div className="terminal-screen-area">
        <div className="terminal-screen" ref={box} />
        {!typing && (
          <div className="terminal-watching" data-testid="terminal-watching">
            Watching: you cannot type here
          </div>
        )}
        <div className="terminal-corner">
          <div className="terminal-hint" id={hintId}>
            {typing ? "Esc then Tab leaves the terminal" : "Tab leaves the terminal"}
          </div>
          {typist && (
            <div className="terminal-typist" data-testid="terminal-typist" role="status">
              <span className="person-dot" style={{ background: typist.color }} aria-hidden="true" />
              {typist.name} typed
            </div>
          )}
          {ended && (
            <div className="terminal-exit" data-testid="terminal-ended">
              {ended}
            </div>
          )}
        </div>
      </div>
      {opened && typing && !ended && (
        <KeyBar
          ctrl={ctrlOn}
          onCtrl={() => {
            ctrl.current = !ctrl.current;
            setCtrlOn(ctrl.current);
          }}
          onKey={(key) => send.current(key)}
          applicationCursor={() => cursorKeys.current()}
        />
      )}
    </>
  );
}
