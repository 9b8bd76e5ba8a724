import { useCallback, useState } from "react";
import type { ApprovalRequest, GuestInfo, GuestList, TerminalInfo } from "../protocol.gen";
import { useFrames, useRoomClient } from "../roomClient";

const LEVELS = ["view", "edit", "trusted"] as const;

/** The host's guest list (access, kick) and the queue of requests waiting for approval. */
export function Guests() {
  const client = useRoomClient();
  const [list, setList] = useState<GuestList | null>(null);
  const [requests, setRequests] = useState<ApprovalRequest[]>([]);
  const [terminals, setTerminals] = useState<TerminalInfo[]>([]);

  useFrames("guests", useCallback((frame: GuestList) => setList(frame), []));
  useFrames("terminals", useCallback((frame: { terminals: TerminalInfo[] }) => setTerminals(frame.terminals), []));
  useFrames(
    "approval-request",
    useCallback((frame: ApprovalRequest) => setRequests((all) => [...all.filter((r) => r.id !== frame.id), frame]), []),
  );
  useFrames(
    "approval-resolved",
    useCallback((frame: { id: string }) => setRequests((all) => all.filter((r) => r.id !== frame.id)), []),
  );

  const answer = (id: string, reply: "approve" | "deny" | "trust") => {
    client.send({ t: "approval-answer", id, answer: reply });
    setRequests((all) => all.filter((r) => r.id !== id));
  };

  return (
    <section className="guests" data-testid="guests" aria-labelledby="guests-heading">
      <h2 id="guests-heading">Guests</h2>
      {requests.length > 0 && (
        <ul className="approvals" data-testid="approvals">
          {requests.map((r) => (
            <li key={r.id} data-testid="approval" data-what={r.what}>
              <strong style={{ color: r.color }}>{r.name}</strong> asks to <code>{r.what}</code>
              <blockquote>{r.text}</blockquote>
              <button data-testid="approve" onClick={() => answer(r.id, "approve")}>
                Approve
              </button>{" "}
              <button data-testid="deny" onClick={() => answer(r.id, "deny")}>
                Deny
              </button>{" "}
              <button data-testid="trust" onClick={() => answer(r.id, "trust")}>
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
                  aria-label={`Access for ${g.name}`}
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
function TerminalGrants({ guest, terminals }: { guest: GuestInfo; terminals: TerminalInfo[] }) {
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
