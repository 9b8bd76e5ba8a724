import { useRoom } from "../roomClient";
import { type Entry, RoomEntry } from "./RoomEntry";

const STATUS_WORDS: Record<string, string> = {
  idle: "idle",
  running: "working",
  waiting: "waiting for a permission",
};

/** Every agent session of the room (its terminals have their own section). */
export function RoomList() {
  const sessions = useRoom((s) => s.sessions);
  const entries: Entry[] = [...sessions.byId.values()].flatMap((session) =>
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
  );
  return (
    <section className="room-list" data-testid="room-list" aria-label="Agent sessions">
      <h2>Agent sessions</h2>
      {entries.length === 0 ? (
        <p className="room-list-empty">No agent session yet: add one from the board's toolbar.</p>
      ) : (
        <ul>
          {entries.map((entry) => (
            <RoomEntry key={entry.ref} entry={entry} testId="room-entry" />
          ))}
        </ul>
      )}
    </section>
  );
}
