import { useState } from "react";
import type { AuditEntry } from "../protocol.gen";
import { useRoom, useRoomClient } from "../roomClient";
import "./audit.css";

const PAGE = 50;

/** The host's timeline of who did what in the room, newest first, for everyone or one person. */
export function AuditPanel() {
  const client = useRoomClient();
  const page = useRoom((s) => s.audit);
  const guests = useRoom((s) => s.guests);
  const [open, setOpen] = useState(false);
  const [who, setWho] = useState("");
  const read = (person: string, before: number | null = null) =>
    client.send({ t: "audit-read", who: person || null, before, limit: PAGE });
  const entries = page?.entries ?? [];
  return (
    <section className="audit" data-testid="audit" aria-labelledby="audit-heading">
      <h2 id="audit-heading">Who did what</h2>
      {!open ? (
        <button
          type="button"
          data-testid="audit-open"
          onClick={() => {
            setOpen(true);
            read(who);
          }}
        >
          Show the room's record
        </button>
      ) : (
        <>
          <div className="audit-bar">
            <label>
              Person{" "}
              <select
                data-testid="audit-who"
                value={who}
                onChange={(event) => {
                  setWho(event.target.value);
                  read(event.target.value);
                }}
              >
                <option value="">everyone</option>
                <option value="host">the host</option>
                {guests?.guests.map((guest) => (
                  <option key={guest.guestId} value={guest.guestId}>
                    {guest.name}
                  </option>
                ))}
              </select>
            </label>
            <button type="button" onClick={() => read(who)}>
              Refresh
            </button>
            <button type="button" onClick={() => setOpen(false)}>
              Hide
            </button>
          </div>
          {entries.length === 0 ? (
            <p className="audit-empty">Nothing recorded yet.</p>
          ) : (
            <ol className="audit-list" data-testid="audit-list">
              {entries.map((entry) => (
                <AuditLine key={entry.seq} entry={entry} />
              ))}
            </ol>
          )}
          {page?.more && (
            <button type="button" onClick={() => read(who, entries.at(-1)?.seq ?? null)}>
              Older
            </button>
          )}
        </>
      )}
    </section>
  );
}

function AuditLine({ entry }: { entry: AuditEntry }) {
  const at = new Date(entry.at * 1000);
  return (
    <li className="audit-entry" data-testid="audit-entry">
      <time dateTime={at.toISOString()}>{at.toLocaleTimeString([], { hour: "2-digit", minute: "2-digit" })}</time>{" "}
      <strong>{entry.name}</strong> {entry.action}
      {entry.detail && <span className="audit-detail"> · {entry.detail}</span>}
    </li>
  );
}
