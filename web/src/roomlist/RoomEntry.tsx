import { type ReactNode, useState } from "react";
import { useBoardView, useBoardViewState } from "../boardView";
import { may } from "../room/access";
import { useAccess, useRoomClient } from "../roomClient";
import "../people/people.css";

export interface Entry {
  type: "agent" | "terminal";
  ref: string;
  name: string;
  status: string;
}

const KIND_WORDS: Record<Entry["type"], string> = { agent: "agent session", terminal: "terminal" };

/**
 * One session or terminal of the room, running or not, whether or not a frame shows it: a frame
 * taken off the board (or never put on it) is one click away from coming back. `children` are the
 * entry's own further buttons.
 */
export function RoomEntry({ entry, testId, children }: { entry: Entry; testId: string; children?: ReactNode }) {
  const view = useBoardView();
  const onBoard = useBoardViewState((v) => v.frames.has(entry.ref));
  const access = useAccess();
  // Without a frame there is nothing to show to someone who may not add one.
  const showable = onBoard || may(access, "edit-board");
  const [renaming, setRenaming] = useState(false);
  return (
    <li className="room-entry" data-testid={testId} data-ref={entry.ref} data-on-board={onBoard}>
      <div className="person-line">
        {renaming ? (
          <Rename entry={entry} done={() => setRenaming(false)} />
        ) : (
          <span className="person-name">{entry.name}</span>
        )}
        <span className="person-access">
          {KIND_WORDS[entry.type]}, {entry.status}
          {onBoard ? "" : ", not on the board"}
        </span>
        {showable && (
          <button
            type="button"
            className="person-follow"
            data-testid="show-on-board"
            onClick={() => view.show(entry.type, entry.ref, entry.name)}
          >
            {onBoard ? "Show" : "Show on board"}
          </button>
        )}
        {access === "host" && !renaming && (
          <button type="button" onClick={() => setRenaming(true)} aria-label={`Rename ${entry.name}`}>
            Rename
          </button>
        )}
        {children}
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
