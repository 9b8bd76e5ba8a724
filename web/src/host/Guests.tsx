import { useCallback, useState } from "react";
import type { ApprovalRequest, GuestInfo, GuestList, TerminalInfo, Welcome } from "../protocol.gen";
import { useFrames, useRoomClient } from "../roomClient";
import { sha256Hex, visiblePieces } from "./visibleText";

const LEVELS = ["view", "edit", "trusted"] as const;

/** The host's guest list (access, kick) and the queue of requests waiting for approval. */
export function Guests() {
  const client = useRoomClient();
  const [list, setList] = useState<GuestList | null>(null);
  // A reloaded page gets the requests still waiting in its welcome.
  const [requests, setRequests] = useState<ApprovalRequest[]>(() => client.welcome?.approvals ?? []);
  const [terminals, setTerminals] = useState<TerminalInfo[]>([]);

  useFrames("guests", useCallback((frame: GuestList) => setList(frame), []));
  useFrames("welcome", useCallback((frame: Welcome) => setRequests(frame.approvals), []));
  useFrames("terminals", useCallback((frame: { terminals: TerminalInfo[] }) => setTerminals(frame.terminals), []));
  useFrames(
    "approval-request",
    useCallback((frame: ApprovalRequest) => setRequests((all) => [...all.filter((r) => r.id !== frame.id), frame]), []),
  );
  useFrames(
    "approval-resolved",
    useCallback((frame: { id: string }) => setRequests((all) => all.filter((r) => r.id !== frame.id)), []),
  );

  const answer = async (request: ApprovalRequest, reply: "approve" | "deny" | "trust") => {
    // The digest of the text this page shows: the server runs nothing if it holds other text.
    // Outside a secure context (a LAN address over http) WebCrypto is missing: the request's own.
    const sha256 = crypto.subtle ? await sha256Hex(request.text) : request.sha256;
    client.send({ t: "approval-answer", id: request.id, answer: reply, sha256 });
    setRequests((all) => all.filter((r) => r.id !== request.id));
  };

  return (
    <section className="guests" data-testid="guests">
      <h2>Guests</h2>
      {requests.length > 0 && (
        <ul className="approvals" data-testid="approvals">
          {requests.map((r) => (
            <li key={r.id} data-testid="approval" data-what={r.what}>
              <strong style={{ color: r.color }}>
                <Visible text={r.name} />
              </strong>{" "}
              asks to <code>{r.what}</code>
              <blockquote className="approval-text" data-testid="approval-text">
                <Visible text={r.text} />
              </blockquote>
              <p className="approval-length">{r.length.toLocaleString()} characters, all shown above</p>
              <button data-testid="approve" onClick={() => answer(r, "approve")}>
                Approve
              </button>{" "}
              <button data-testid="deny" onClick={() => answer(r, "deny")}>
                Deny
              </button>{" "}
              <button data-testid="trust" onClick={() => answer(r, "trust")}>
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
function TerminalGrants({ guest, terminals }: { guest: GuestInfo; terminals: TerminalInfo[] }) {
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
