import { useState } from "react";
import type { GuestInfo, TerminalInfo } from "../protocol.gen";
import { requestVerb } from "../room/requests";
import { useRoom, useRoomClient } from "../roomClient";

const LEVELS = ["view", "edit", "trusted"] as const;

/** The host's guest list (access, kick) and the guests' requests waiting for approval. */
export function GuestsPanel() {
  const client = useRoomClient();
  const list = useRoom((s) => s.guests);
  const approvals = useRoom((s) => s.approvals);
  const terminals = useRoom((s) => s.terminals);
  // Hidden as soon as answered: an approval the server drops without a word (the guest was
  // lowered to view meanwhile) must not stay on screen.
  const [answered, setAnswered] = useState<ReadonlySet<string>>(new Set());
  const waiting = approvals.filter((a) => !answered.has(a.id));

  const answer = (id: string, reply: "approve" | "deny" | "trust") => {
    client.send({ t: "approval-answer", id, answer: reply });
    setAnswered((ids) => new Set(ids).add(id));
  };

  return (
    <section className="guests" data-testid="guests">
      <h2>Guests</h2>
      {waiting.length > 0 && (
        <ul className="approvals" data-testid="approvals">
          {waiting.map((a) => (
            <li key={a.id} data-testid="approval" data-what={a.what}>
              <strong style={{ color: a.color }}>{a.name}</strong> asks to {requestVerb(a.what)}
              <blockquote>{a.text}</blockquote>
              <button data-testid="approve" onClick={() => answer(a.id, "approve")}>
                Approve
              </button>{" "}
              <button data-testid="deny" onClick={() => answer(a.id, "deny")}>
                Deny
              </button>{" "}
              <button data-testid="trust" onClick={() => answer(a.id, "trust")}>
                Trust this guest
              </button>
            </li>
          ))}
        </ul>
      )}
      {list && (
        <>
          <label>
            Room default{" "}
            <select
              data-testid="room-access"
              value={list.defaultAccess}
              onChange={(e) => client.send({ t: "room-set-access", access: e.target.value as (typeof LEVELS)[number] })}
            >
              {LEVELS.map((level) => (
                <option key={level}>{level}</option>
              ))}
            </select>
          </label>
          <ul className="guest-list" data-testid="guest-list">
            {list.guests.map((g) => (
              <li key={g.guestId} data-testid="guest" data-name={g.name} className={g.connected ? "online" : "away"}>
                <span style={{ color: g.color }}>●</span> {g.name}{" "}
                <select
                  data-testid="guest-access"
                  value={g.ownAccess ?? ""}
                  onChange={(e) =>
                    client.send({
                      t: "guest-set-access",
                      guestId: g.guestId,
                      access: (e.target.value || null) as (typeof LEVELS)[number] | null,
                    })
                  }
                >
                  <option value="">default ({list.defaultAccess})</option>
                  {LEVELS.map((level) => (
                    <option key={level}>{level}</option>
                  ))}
                </select>{" "}
                {g.latencyMs != null && <span className="latency">{Math.round(g.latencyMs)} ms</span>}{" "}
                <button data-testid="kick" onClick={() => client.send({ t: "guest-kick", guestId: g.guestId })}>
                  Kick
                </button>
                {g.access === "edit" && <TerminalGrants guest={g} terminals={terminals} />}
              </li>
            ))}
          </ul>
        </>
      )}
    </section>
  );
}

/** An edit guest types into a terminal only while the host grants it control of that terminal. */
function TerminalGrants({ guest, terminals }: { guest: GuestInfo; terminals: readonly TerminalInfo[] }) {
  const client = useRoomClient();
  if (terminals.length === 0) return null;
  return (
    <div className="terminal-grants" data-testid="terminal-grants">
      Terminal control:{" "}
      {terminals.map((term) => (
        <label key={term.id}>
          <input
            type="checkbox"
            data-testid="terminal-grant"
            data-terminal={term.id}
            checked={guest.grantedTerminals.includes(term.id)}
            onChange={(e) =>
              client.send({
                t: "terminal-grant",
                guestId: guest.guestId,
                terminalId: term.id,
                granted: e.target.checked,
              })
            }
          />{" "}
          {term.id}
        </label>
      ))}
    </div>
  );
}
