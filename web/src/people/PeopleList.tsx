import { useState } from "react";
import { useBoardView, useBoardViewState } from "../boardView";
import { GUEST_ACCESS_LEVELS, type GuestInfo, type GuestList, type Person } from "../protocol.gen";
import { useRoom, useRoomClient } from "../roomClient";
import "./people.css";

type Level = (typeof GUEST_ACCESS_LEVELS)[number];

const ACCESS_WORDS: Record<Person["access"], string> = {
  host: "host",
  trusted: "trusted: runs things directly",
  edit: "edit: asks the host to run things",
  view: "view: watches",
};

/**
 * Who is here, on every page: name, colour and access, and "Follow" to see what someone sees.
 * The host also sets each guest's access, hands terminals over, sees latency and can remove a
 * guest; guests who left stay listed for the host (they may come back with their access).
 */
export function PeopleList({ me }: { me: string | null }) {
  const people = useRoom((s) => s.people);
  const guests = useRoom((s) => s.guests);
  const isHost = useRoom((s) => s.welcome?.access === "host");
  const here = new Set(people.map((p) => p.peerId));
  const away = guests?.guests.filter((g) => !here.has(`guest-${g.guestId}`)) ?? [];
  // The host may have several tabs open, each a connection of its own: one reads as the host, the
  // rest as its other tabs, not as more people of the same name.
  const mainHost = isHost ? me : people.find((p) => p.access === "host")?.peerId;
  return (
    <section className="people" data-testid="people" aria-label="People">
      <h2>People</h2>
      {isHost && guests && <RoomDefault level={guests.defaultAccess} />}
      {isHost && <RemovedNote />}
      <ul className="people-list" data-testid="guest-list">
        {people.map((person) => (
          <PersonRow
            key={person.peerId}
            person={person}
            you={person.peerId === me}
            anotherTab={person.access === "host" && person.peerId !== mainHost}
            guest={guests?.guests.find((g) => `guest-${g.guestId}` === person.peerId)}
            defaultAccess={guests?.defaultAccess}
          />
        ))}
        {away.map((guest) => (
          <PersonRow
            key={guest.guestId}
            person={{ peerId: `guest-${guest.guestId}`, name: guest.name, color: guest.color, access: guest.access }}
            you={false}
            guest={guest}
            defaultAccess={guests?.defaultAccess}
            away
          />
        ))}
      </ul>
      {isHost && guests && guests.removed.length > 0 && <RemovedPeople removed={guests.removed} />}
    </section>
  );
}

/** Who the host removed: kept out through every link, until the host lets them back. */
function RemovedPeople({ removed }: { removed: GuestList["removed"] }) {
  const client = useRoomClient();
  return (
    <>
      <h3 className="people-removed-heading">Removed</h3>
      <ul className="people-list" data-testid="removed-list">
        {removed.map((person) => (
          <li key={person.guestId} className="person person-away" data-testid="removed-guest" data-name={person.name}>
            <div className="person-line">
              <span className="person-dot" style={{ background: person.color }} aria-hidden="true" />
              <span className="person-name">{person.name}</span>
              <span className="person-access">kept out, whatever link they use</span>
              <button
                type="button"
                className="person-follow"
                data-testid="unblock"
                onClick={() => client.send({ t: "guest-unblock", guestId: person.guestId })}
              >
                Let {person.name} back in
              </button>
            </div>
          </li>
        ))}
      </ul>
    </>
  );
}

/** Removing asks first, and says what it does: revokes the guest's own invitation, or blocks its browser. */
function RemoveButton({ guest }: { guest: GuestInfo }) {
  const client = useRoomClient();
  const [confirming, setConfirming] = useState(false);
  if (!confirming) {
    return (
      <button type="button" data-testid="kick" onClick={() => setConfirming(true)}>
        Remove from room
      </button>
    );
  }
  const what = guest.viaOpenLink
    ? `This blocks ${guest.name}'s browser. The open room link still lets anyone who has it in.`
    : `This revokes ${guest.name}'s invitation: its link stops working.`;
  return (
    <span className="confirm" role="group" aria-label={`Remove ${guest.name}?`} data-testid="kick-confirm">
      Remove {guest.name}? {what}{" "}
      <button type="button" data-testid="kick-yes" onClick={() => client.send({ t: "guest-kick", guestId: guest.guestId })}>
        Remove
      </button>{" "}
      <button type="button" onClick={() => setConfirming(false)}>
        Keep
      </button>
    </span>
  );
}

/** After removing someone who came through the open link: that link still lets anyone in, so offer a new one. */
function RemovedNote() {
  const client = useRoomClient();
  const removed = useRoom((s) => s.removed);
  const openLinkOn = useRoom((s) => Boolean(s.invites?.openLink));
  const [rotated, setRotated] = useState<string | null>(null);
  if (!removed?.openLink || !openLinkOn || rotated === removed.guestId) return null;
  return (
    <p className="removed-note" data-testid="removed-note" role="status">
      {removed.name} is blocked in that browser, but the open room link lets anyone who has it back in.{" "}
      <button
        type="button"
        data-testid="removed-rotate"
        onClick={() => {
          if (client.send({ t: "open-link", change: "rotate" })) setRotated(removed.guestId);
        }}
      >
        Give the room a new link
      </button>
    </p>
  );
}

function RoomDefault({ level }: { level: Level }) {
  const client = useRoomClient();
  return (
    <label className="people-default">
      New guests get{" "}
      <select
        data-testid="room-access"
        value={level}
        onChange={(e) => client.send({ t: "room-set-access", access: e.target.value as Level })}
      >
        {GUEST_ACCESS_LEVELS.map((l) => (
          <option key={l} value={l}>
            {l}
          </option>
        ))}
      </select>{" "}
      access
    </label>
  );
}

function PersonRow({
  person,
  you,
  anotherTab = false,
  guest,
  defaultAccess,
  away = false,
}: {
  person: Person;
  you: boolean;
  anotherTab?: boolean;
  guest: GuestInfo | undefined;
  defaultAccess: Level | undefined;
  away?: boolean;
}) {
  const view = useBoardView();
  const following = useBoardViewState((v) => v.following === person.peerId);
  return (
    <li
      className={`person ${away ? "person-away" : ""}`}
      data-testid={guest ? "guest" : "person"}
      data-name={person.name}
      data-access={person.access}
    >
      <div className="person-line">
        <span className="person-dot" style={{ background: person.color }} aria-hidden="true" />
        <span className="person-name" data-testid="person-name">
          {person.name}
          {you && " (you)"}
          {anotherTab && " (another tab)"}
        </span>
        <span className="person-access">{away ? "left the room" : ACCESS_WORDS[person.access]}</span>
        {guest?.latencyMs != null && !away && (
          <span className="person-latency">round trip {Math.round(guest.latencyMs)} ms</span>
        )}
        {!you && !away && (
          <button
            type="button"
            className="person-follow"
            data-testid="follow"
            aria-pressed={following}
            onClick={() => view.follow(following ? null : person.peerId)}
          >
            {following ? "Stop following" : "Follow"}
          </button>
        )}
      </div>
      {guest && defaultAccess && <GuestControls guest={guest} defaultAccess={defaultAccess} />}
    </li>
  );
}

/** The host's controls for one guest: its own access, the terminals it may type in, removal. */
function GuestControls({ guest, defaultAccess }: { guest: GuestInfo; defaultAccess: Level }) {
  const client = useRoomClient();
  // A grant is for one running shell; it ends with it.
  const running = useRoom((s) => s.terminals).filter((term) => term.running);
  return (
    <div className="person-controls">
      <label>
        Access{" "}
        <select
          aria-label={`Access for ${guest.name}`}
          data-testid="guest-access"
          value={guest.ownAccess ?? ""}
          onChange={(e) =>
            client.send({ t: "guest-set-access", guestId: guest.guestId, access: (e.target.value || null) as Level | null })
          }
        >
          <option value="">room default ({defaultAccess})</option>
          {GUEST_ACCESS_LEVELS.map((level) => (
            <option key={level} value={level}>
              {level}
            </option>
          ))}
        </select>
      </label>
      <RemoveButton guest={guest} />
      {guest.access !== "trusted" && running.length > 0 && (
        <div className="terminal-grants" data-testid="terminal-grants">
          Types in:{" "}
          {running.map((term) => (
            <label key={term.id}>
              <input
                type="checkbox"
                data-testid="terminal-grant"
                data-terminal={term.id}
                checked={guest.grantedTerminals.includes(term.id)}
                onChange={(e) =>
                  client.send({ t: "terminal-grant", guestId: guest.guestId, terminalId: term.id, granted: e.target.checked })
                }
              />{" "}
              {term.name}
            </label>
          ))}
        </div>
      )}
    </div>
  );
}
