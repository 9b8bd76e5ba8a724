import { useState } from "react";
import type { ApprovalRequest, GuestInfo, TerminalInfo } from "../protocol.gen";
import { requestVerb } from "../room/requests";
import { useRoom, useRoomClient } from "../roomClient";
import { sha256Hex, visiblePieces } from "./visibleText";

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

  const answer = async (request: ApprovalRequest, reply: "approve" | "deny" | "trust") => {
    // The digest of the text this page shows: the server runs nothing if it holds other text.
    // Outside a secure context (a LAN address over http) WebCrypto is missing: the request's own.
    const sha256 = crypto.subtle ? await sha256Hex(request.text) : request.sha256;
    client.send({ t: "approval-answer", id: request.id, answer: reply, sha256 });
    setAnswered((ids) => new Set(ids).add(request.id));
  };

  return (
    <section className="guests" data-testid="guests" aria-labelledby="guests-heading">
      <h2 id="guests-heading">Guests</h2>
      {waiting.length > 0 && (
        <ul className="approvals" data-testid="approvals">
          {waiting.map((a) => (
            <li key={a.id} data-testid="approval" data-what={a.what}>
              <strong style={{ color: a.color }}>
                <Visible text={a.name} />
              </strong>{" "}
              asks to {requestVerb(a.what)}
              <blockquote className="approval-text" data-testid="approval-text">
                <Visible text={a.text} />
              </blockquote>
              <p className="approval-length">{a.length.toLocaleString()} characters, all shown above</p>
              <button data-testid="approve" onClick={() => answer(a, "approve")}>
                Approve
              </button>{" "}
              <button data-testid="deny" onClick={() => answer(a, "deny")}>
                Deny
              </button>{" "}
              <button data-testid="trust" onClick={() => answer(a, "trust")}>
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

/** A guest's text with whatever would act instead of show (controls, bidi overrides) escaped. */
function Visible({ text }: { text: string }) {
  return (
    <>
      {visiblePieces(text).map((piece, i) =>
        piece.escaped ? (
          <span key={i} className="escaped" title="an invisible or control character">
            {piece.text}
          </span>
        ) : (
          piece.text
        ),
      )}
    </>
  );
}

/** An edit guest types into a terminal only while the host grants it control of that terminal. */
function TerminalGrants({ guest, terminals }: { guest: GuestInfo; terminals: readonly TerminalInfo[] }) {
  const client = useRoomClient();
  // A grant is for one running shell; it ends with it.
  const running = terminals.filter((term) => term.running);
  if (running.length === 0) return null;
  return (
    <div className="terminal-grants" data-testid="terminal-grants">
      Terminal control:{" "}
      {running.map((term) => (
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
