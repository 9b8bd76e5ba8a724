import { FitAddon } from "@xterm/addon-fit";
import { Terminal } from "@xterm/xterm";
import "@xterm/xterm/css/xterm.css";
import { useEffect, useRef, useState } from "react";
import type { FrameContentProps } from "../frames";
import { selectMayType, selectTerminal } from "../room/roomState";
import { useAccess, useRoom, useRoomStore } from "../roomClient";
import { RequestNotes } from "../attention/RequestNotes";
import { chunkInput, clampSize } from "./stream";
import { TerminalControl } from "./TerminalControl";
import "./control.css";

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
  const [exitCode, setExitCode] = useState<number | null>(null);
  const typing = useRoom((s) => selectMayType(s, refId));

  useEffect(() => {
    const element = box.current;
    if (!element) return;
    const term = new Terminal({
      fontFamily: "ui-monospace, SFMono-Regular, Menlo, monospace",
      fontSize: 13,
      scrollback: 5000,
      theme: { background: "#1e1e1e" },
    });
    const fit = new FitAddon();
    term.loadAddon(fit);
    term.open(element);
    // Access can change while the view is open; each keystroke asks again.
    const canType = () => selectMayType(store.getState(), refId);
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
    const typed = term.onData((data) => {
      if (!canType()) return;
      for (const chunk of chunkInput(data)) store.send({ t: "term-input", id: refId, data: chunk });
    });
    const resized = term.onResize(({ cols, rows }) => {
      if (canType()) store.send({ t: "term-resize", id: refId, ...clampSize(cols, rows) });
    });
    const observer = new ResizeObserver(() => measure());
    observer.observe(element);
    return () => {
      observer.disconnect();
      offFrame();
      typed.dispose();
      resized.dispose();
      store.send({ t: "term-detach", id: refId });
      term.dispose();
    };
  }, [store, refId]);

  return (
    <>
      <div className="terminal-screen" ref={box} />
      {!typing && (
        <div className="terminal-watching" data-testid="terminal-watching">
          Watching: you cannot type here
        </div>
      )}
      {exitCode !== null && <div className="terminal-exit">exited with code {exitCode}</div>}
    </>
  );
}
