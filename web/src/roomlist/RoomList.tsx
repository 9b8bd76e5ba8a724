import { useState } from "react";
import { useBoardView, useBoardViewState } from "../boardView";
import type { HoldsType, TerminalInfo } from "../protocol.gen";
import { useRoom, useRoomClient } from "../roomClient";
import "../people/people.css";

interface Entry {
  type: HoldsType;
  ref: string;
  name: string;
  status: string;
}

const STATUS_WORDS: Record<string, string> = {
  idle: "idle",
  running: "working",
  waiting: "waiting for a permission",
};

/**
 * Every session and terminal of the room, running or not, whether or not a frame shows it: a
 * frame taken off the board (or never put on it) is one click away from coming back.
 */
export function RoomList() {
  const sessions = useRoom((s) => s.sessions);
  const terminals = useRoom((s) => s.terminals);
  const entries: Entry[] = [
    ...[...sessions.byId.values()].flatMap((session) =>
      session.head
        ? [
            {
              type: "agent" as const,
              ref: session.head.id,
              name: session.head.title || session.head.agentLabel,
              status: STATUS_WORDS[session.thread.status] ?? session.thread.status,
            },
          ]
        : [],
    ),
    ...terminals.map((t) => ({
      type: "terminal" as const,
      ref: t.id,
      name: t.name,
      status: terminalStatus(t),
    })),
  ];
  return (
    <section className="room-list" data-testid="room-list" aria-label="Sessions and terminals">
      <h2>Sessions and terminals</h2>
      {entries.length === 0 ? (
        <p className="room-list-empty">None yet: add an agent or a terminal from the board's toolbar.</p>
      ) : (
        <ul>
          {entries.map((entry) => (
            <RoomEntry key={entry.ref} entry={entry} />
          ))}
        </ul>
      )}
    </section>
  );
}

function terminalStatus(terminal: TerminalInfo): string {
  if (!terminal.running) return `ended (exit code ${terminal.exitCode ?? "unknown"})`;
  return terminal.controllers.length ? `${terminal.controllers.map((c) => c.name).join(", ")} typing` : "running";
}

function RoomEntry({ entry }: { entry: Entry }) {
  const view = useBoardView();
  const onBoard = useBoardViewState((v) => v.frames.has(entry.ref));
  const isHost = useRoom((s) => s.welcome?.access === "host");
  const [renaming, setRenaming] = useState(false);
  return (
    <li className="room-entry" data-testid="room-entry" data-ref={entry.ref} data-on-board={onBoard}>
      <div className="person-line">
        {renaming ? (
          <Rename entry={entry} done={() => setRenaming(false)} />
        ) : (
          <span className="person-name">{entry.name}</span>
        )}
        <span className="person-access">
          {entry.type === "agent" ? "agent session" : "terminal"}, {entry.status}
          {onBoard ? "" : ", not on the board"}
        </span>
        <button
          type="button"
          className="person-follow"
          data-testid="show-on-board"
          onClick={() => view.show(entry.type, entry.ref)}
        >
          {onBoard ? "Show" : "Show on board"}
        </button>
        {isHost && !renaming && (
          <button type="button" onClick={() => setRenaming(true)} aria-label={`Rename ${entry.name}`}>
            Rename
          </button>
        )}
      </div>
    </li>
  );
}

function Rename({ entry, done }: { entry: Entry; done: () => void }) {
  const client = useRoomClient();
  const [name, setName] = useState(entry.name);
  const save = () => {
    const title = name.trim();
    if (title && title !== entry.name) {
      client.send(
        entry.type === "agent"
          ? { t: "agent-rename", sessionId: entry.ref, title }
          : { t: "term-rename", id: entry.ref, name: title },
      );
    }
    done();
  };
  return (
    <form
      className="room-rename"
      onSubmit={(event) => {
        event.preventDefault();
        save();
      }}
    >
      <input
        aria-label={`New name for ${entry.name}`}
        value={name}
        maxLength={100}
        autoFocus
        onChange={(e) => setName(e.target.value)}
        onKeyDown={(e) => e.key === "Escape" && done()}
      />
      <button type="submit">Save</button>
    </form>
  );
}
