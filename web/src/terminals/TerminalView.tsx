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
/** A shell wider than the view is drawn smaller down to this scale; narrower still, it scrolls. */
const MIN_SCALE = 0.6;

/**
 * One terminal of the room, by id (`refId`): watches it while the server lists it, shows its
 * output, sends keystrokes (when this page may type), makes the PTY follow the view's size, and
 * says who has control. A terminal the server does not list (it ended with a restart) is not
 * asked for again unless someone presses "Start a shell".
 */
export function TerminalView({ refId, width, height, opened = false }: FrameContentProps) {
  const store = useRoomStore();
  const listed = useRoom((s) => selectTerminal(s, refId) !== undefined);
  const asked = useRoom((s) => s.requests.some((r) => r.subject === refId));
  const access = useAccess();
  return (
    <div className="terminal-view" style={{ width, height }} data-testid={`terminal-${refId}`}>
      <TerminalControl id={refId} />
      {listed ? (
        <Screen refId={refId} opened={opened} />
      ) : (
        <div className="terminal-none" data-testid="terminal-none">
          <p>No shell is running here.</p>
          {mayAsk(access, "run-on-host") && !asked && (
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

/** The shell's size is the room's: this view draws it whole, smaller when it is a little wider than
 * the view, scrolled when much wider. */
function fitShell(term: Terminal, box: HTMLElement): void {
  const element = term.element;
  const screen = element?.querySelector<HTMLElement>(".xterm-screen");
  if (!element || !screen || !screen.offsetWidth || !screen.offsetHeight) return;
  const scale = Math.min(1, box.clientWidth / screen.offsetWidth, box.clientHeight / screen.offsetHeight);
  const scaled = scale < 1 && scale >= MIN_SCALE;
  element.style.transform = scaled ? `scale(${scale})` : "";
  element.style.width = scale < 1 ? `${screen.offsetWidth}px` : "";
  box.classList.toggle("terminal-scrolls", scale < MIN_SCALE);
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
  const name = useRoom((s) => selectTerminal(s, refId)?.name ?? "The terminal");
  const cols = useRoom((s) => selectTerminal(s, refId)?.cols ?? null);
  const rows = useRoom((s) => selectTerminal(s, refId)?.rows ?? null);
  const typing = useRoom((s) => selectMayType(s, refId));
  const [inShell, setInShell] = useState(false);
  // The shell's size as the room set it, for the view made once below.
  const shellSize = useRef<{ cols: number; rows: number } | null>(null);
  const applySize = useRef<() => void>(() => {});
  useEffect(() => {
    shellSize.current = cols && rows ? { cols, rows } : null;
    applySize.current();
  }, [cols, rows]);
  const [typist, setTypist] = useState<{ name: string; color: string } | null>(null);
  // The key bar's Ctrl applies to the next key typed; the bar sends its keys through `send`.
  const ctrl = useRef(false);
  const [ctrlOn, setCtrlOn] = useState(false);
  const send = useRef<(data: string) => void>(() => {});
  const cursorKeys = useRef<() => boolean>(() => false);
  const terminal = useRef<Terminal | null>(null);

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
    terminal.current = term;
    const fit = new FitAddon();
    term.loadAddon(fit);
    term.open(element);
    // One Tab stop: the screen, which gives the shell the keyboard on Enter (or a click), so Tab
    // through the page never lands in a shell where the next Tab completes a command.
    if (term.textarea) term.textarea.tabIndex = -1;
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
    const blurred = () => {
      escape.blur();
      setInShell(false);
    };
    const focused = () => setInShell(true);
    term.textarea?.addEventListener("blur", blurred);
    term.textarea?.addEventListener("focus", focused);
    let reported: string | null = null;
    // What this view could show: said to the room (which sizes the shell for everyone by the
    // widest view that may type), never applied to the shell here.
    const measure = () => {
      const proposed = fit.proposeDimensions();
      const size = proposed ? clampSize(proposed.cols, proposed.rows) : clampSize(term.cols, term.rows);
      const shell = shellSize.current ?? size;
      if (shell.cols !== term.cols || shell.rows !== term.rows) term.resize(shell.cols, shell.rows);
      requestAnimationFrame(() => fitShell(term, element));
      return size;
    };
    const report = () => {
      const size = measure();
      const key = `${size.cols}x${size.rows}`;
      if (key === reported || !canType()) return;
      reported = key;
      store.send({ t: "term-resize", id: refId, ...size });
    };
    applySize.current = () => measure();
    // Listed, so this only watches it; a resync (a new welcome) lists the terminals anew and
    // this view is made again if the terminal is still there.
    const opening = measure();
    store.send({ t: "term-open", id: refId, ...opening });
    if (canType()) reported = `${opening.cols}x${opening.rows}`;

    const offFrame = store.onFrame((frame) => {
      if (frame.t === "term-data" && frame.id === refId) {
        if (frame.replay) term.reset();
        term.write(frame.data);
      } else if (frame.t === "term-typist" && frame.id === refId) {
        setTypist({ name: frame.name, color: frame.color });
      }
    });
    const typed = term.onData(input);
    const rendered = term.onRender(() => fitShell(term, element));
    const offTheme = onTheme(() => {
      term.options.theme = THEMES[currentTheme()];
    });
    // A view that gains the right to type (handed the terminal) says its size then.
    const offAccess = store.subscribe(() => {
      if (canType() && reported === null) report();
      if (!canType()) reported = null;
    });
    const observer = new ResizeObserver(() => report());
    observer.observe(element);
    return () => {
      observer.disconnect();
      offAccess();
      offTheme();
      offFrame();
      typed.dispose();
      rendered.dispose();
      term.textarea?.removeEventListener("blur", blurred);
      term.textarea?.removeEventListener("focus", focused);
      applySize.current = () => {};
      store.send({ t: "term-detach", id: refId });
      term.dispose();
      terminal.current = null;
    };
  }, [store, refId, opened]);

  const hint = inShell
    ? typing
      ? "Esc then Tab leaves the terminal"
      : "Tab leaves the terminal"
    : typing
      ? "Enter types in the shell"
      : "Enter to scroll and select";
  return (
    <>
      <div className="terminal-screen-area">
        <div
          className="terminal-screen"
          ref={box}
          // While the shell has the keyboard the screen is no stop, so Esc then Shift+Tab leaves
          // the terminal backwards rather than landing on its own screen.
          tabIndex={inShell ? -1 : 0}
          role="group"
          aria-label={`${name}: ${typing ? "press Enter to type in the shell" : "you are watching"}`}
          aria-describedby={hintId}
          data-testid="terminal-screen"
          onKeyDown={(event) => {
            if (event.target !== event.currentTarget || event.key !== "Enter") return;
            event.preventDefault();
            terminal.current?.focus();
          }}
        />
      </div>
      {/* Under the screen, never over it: the prompt line stays in sight. One line always, so the
          notes coming and going never change the screen's size. */}
      <div className="terminal-notes">
        {!typing && (
          <span className="terminal-watching" data-testid="terminal-watching">
            Watching: you cannot type here
          </span>
        )}
        <span className="terminal-hint" id={hintId}>
          {hint}
        </span>
        {typist && (
          <span className="terminal-typist" data-testid="terminal-typist" role="status">
            <span className="person-dot" style={{ background: typist.color }} aria-hidden="true" />
            {typist.name} typed
          </span>
        )}
        {ended && (
          <span className="terminal-exit" data-testid="terminal-ended">
            {ended}
          </span>
        )}
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
