import { useState } from "react";
import { useBoardView } from "../boardView";
import type { TerminalInfo } from "../protocol.gen";
import { selectMayType } from "../room/roomState";
import { useAccess, useRoom, useRoomClient } from "../roomClient";
import { RoomEntry } from "../roomlist/RoomEntry";
import { endedWords, newTerminalId } from "./stream";
import "./control.css";

/**
 * Every terminal of the room, and a button for a new one. A terminal is shown (and typed into)
 * in its frame on the board, whose size alone sets the shell's columns; this list finds it there.
 */
export function TerminalsPanel() {
  const client = useRoomClient();
  const view = useBoardView();
  const terminals = useRoom((s) => s.terminals);
  const outlive = useRoom((s) => s.terminalsOutliveRestart);
  // A view guest watches the terminals that exist; it can neither start nor end one.
  const watching = useAccess() === "view";
  const start = () => {
    const id = newTerminalId();
    view.show("terminal", id);
    // The frame only watches terminals the server lists: this asks for the shell (an edit guest's waits for the host).
    client.send({ t: "term-open", id });
  };

  return (
    <section className="terminals-panel" aria-labelledby="terminals-heading">
      <div className="panel-head">
        <h2 id="terminals-heading">Terminals</h2>
        {!watching && (
          <button type="button" data-testid="new-terminal" onClick={start}>
            New terminal
          </button>
        )}
      </div>
      <EndAll />
      {!outlive && !watching && <NoTmuxNote />}
      {terminals.length === 0 && <p className="panel-empty">No terminal yet.</p>}
      <ul className="terminal-list" data-testid="terminal-list">
        {terminals.map((terminal) => (
          <RoomEntry
            key={terminal.id}
            entry={{ type: "terminal", ref: terminal.id, name: terminal.name, status: terminalStatus(terminal) }}
            testId="terminal-entry"
          >
            <EndButton terminal={terminal} />
          </RoomEntry>
        ))}
      </ul>
    </section>
  );
}

/** Whether the shell runs, and which guests the host handed it over to; or how it ended. */
function terminalStatus(terminal: TerminalInfo): string {
  const ended = endedWords(terminal);
  if (ended) return ended;
  const typists = terminal.controllers.map((c) => c.name).join(", ");
  return typists ? `running, ${typists} typing` : "running";
}

/** The host ends every running shell at once (they outlive canvas otherwise), after a second press. */
function EndAll() {
  const client = useRoomClient();
  const host = useAccess() === "host";
  const terminals = useRoom((s) => s.terminals);
  const running = terminals.filter((t) => t.running);
  const [asking, setAsking] = useState(false);
  if (!host || running.length === 0) return null;
  if (!asking) {
    return (
      <button type="button" className="terminal-end-all" data-testid="end-all-terminals" onClick={() => setAsking(true)}>
        End all shells…
      </button>
    );
  }
  const endAll = () => {
    for (const terminal of running) client.send({ t: "term-close", id: terminal.id });
    setAsking(false);
  };
  return (
    <p className="terminal-note" role="group" aria-label="End all shells">
      End {running.length === 1 ? "the running shell" : `all ${running.length} running shells`} for everyone?
      <button type="button" data-testid="end-all-confirm" onClick={endAll}>
        End them
      </button>
      <button type="button" onClick={() => setAsking(false)}>
        Keep them
      </button>
    </p>
  );
}

const NOTE_SEEN = "canvas.noTmuxNoteSeen";

/** Said once (until dismissed, in this browser): without tmux the shells end with canvas. */
function NoTmuxNote() {
  const [seen, setSeen] = useState(() => localStorage.getItem(NOTE_SEEN) === "1");
  if (seen) return null;
  return (
    <p className="terminal-note" role="note" data-testid="no-tmux-note">
      These terminals end when canvas stops. Install tmux (for example <code>apt install tmux</code>) and start canvas
      again, and they will run on through restarts.
      <button
        type="button"
        onClick={() => {
          localStorage.setItem(NOTE_SEEN, "1");
          setSeen(true);
        }}
      >
        Got it
      </button>
    </p>
  );
}

/** Ending a shell is for whoever may type into it. */
function EndButton({ terminal }: { terminal: TerminalInfo }) {
  const client = useRoomClient();
  const mayType = useRoom((s) => selectMayType(s, terminal.id));
  if (!mayType) return null;
  return (
    <button
      type="button"
      title="End this shell for everyone"
      aria-label={`End ${terminal.name}`}
      onClick={() => client.send({ t: "term-close", id: terminal.id })}
    >
      End
    </button>
  );
}
