import { useState } from "react";
import { GUEST_ACCESS_LEVELS, type InviteInfo } from "../protocol.gen";
import { CopyButton } from "../CopyButton";
import { roomLink, useLinkBase } from "../RoomLink";
import { useRoom, useRoomClient } from "../roomClient";

type Level = (typeof GUEST_ACCESS_LEVELS)[number];
const EXPIRIES: [string, number | null][] = [
  ["never", null],
  ["in an hour", 3600],
  ["in a day", 86_400],
  ["in a week", 7 * 86_400],
];
const STATE_WORDS: Record<InviteInfo["state"], string> = {
  standing: "its link works",
  off: "turned off",
  expired: "expired",
  revoked: "revoked: its link no longer works",
};

/**
 * The host's invitations: one per person, with its own link and access, revocable alone. The link
 * of a new invitation is shown once, here, to copy and hand to that person only.
 */
export function Invites() {
  const invites = useRoom((s) => s.invites);
  const created = useRoom((s) => s.created);
  const named = invites?.invites.filter((invite) => !invite.open) ?? [];
  // A link withdrawn (revoked, lapsed) is not one to hand on any more.
  const createdStands = created !== null && named.some((invite) => invite.id === created.id && invite.state === "standing");
  return (
    <section className="invites" data-testid="invites" aria-labelledby="invites-heading">
      <h2 id="invites-heading">Invitations</h2>
      <InviteForm />
      {created && createdStands && <CreatedLink name={created.name} fragment={created.fragment} />}
      {named.length > 0 && (
        <ul className="invite-list">
          {named.map((invite) => (
            <InviteRow key={invite.id} invite={invite} />
          ))}
        </ul>
      )}
    </section>
  );
}

function InviteForm() {
  const client = useRoomClient();
  const [name, setName] = useState("");
  const [access, setAccess] = useState<Level>("edit");
  const [expiry, setExpiry] = useState(0);
  const [singleUse, setSingleUse] = useState(false);
  return (
    <form
      className="invite-form"
      onSubmit={(event) => {
        event.preventDefault();
        if (!name.trim()) return;
        const expiresInS = EXPIRIES[expiry][1];
        if (client.send({ t: "invite-create", name: name.trim(), access, expiresInS, singleUse })) setName("");
      }}
    >
      <label>
        Invite{" "}
        <input
          data-testid="invite-name"
          value={name}
          maxLength={64}
          placeholder="their name"
          onChange={(event) => setName(event.target.value)}
        />
      </label>
      <label>
        with{" "}
        <select data-testid="invite-access" value={access} onChange={(event) => setAccess(event.target.value as Level)}>
          {GUEST_ACCESS_LEVELS.map((level) => (
            <option key={level} value={level}>
              {level}
            </option>
          ))}
        </select>{" "}
        access
      </label>
      <label>
        lapses{" "}
        <select value={expiry} onChange={(event) => setExpiry(Number(event.target.value))}>
          {EXPIRIES.map(([words], index) => (
            <option key={words} value={index}>
              {words}
            </option>
          ))}
        </select>
      </label>
      <label>
        <input type="checkbox" checked={singleUse} onChange={(event) => setSingleUse(event.target.checked)} /> one
        person only
      </label>
      <button type="submit" data-testid="invite-create" disabled={!name.trim()}>
        Make the link
      </button>
    </form>
  );
}

function CreatedLink({ name, fragment }: { name: string; fragment: string }) {
  const link = roomLink(fragment, useLinkBase());
  return (
    <div className="invite-created" data-testid="invite-created">
      <p>The link for {name}: give it to them only. It is shown here once.</p>
      <div className="copy-row">
        <input readOnly aria-label={`Invitation link for ${name}`} value={link} data-testid="invite-link" onFocus={(e) => e.currentTarget.select()} />
        <CopyButton text={link} />
      </div>
    </div>
  );
}

function InviteRow({ invite }: { invite: InviteInfo }) {
  const client = useRoomClient();
  const [confirming, setConfirming] = useState(false);
  const lapses = invite.expiresAt ? ` · lapses ${new Date(invite.expiresAt * 1000).toLocaleString()}` : "";
  return (
    <li className="invite" data-testid="invite" data-name={invite.name}>
      <span className="person-name">{invite.name}</span>{" "}
      <span className="person-access">
        {invite.access} · {STATE_WORDS[invite.state]}
        {invite.singleUse ? (invite.used ? " · used" : " · one person") : ""}
        {lapses}
      </span>
      {invite.state === "standing" &&
        (confirming ? (
          <span className="confirm" role="group" aria-label={`Revoke ${invite.name}'s invitation?`}>
            Revoke it? Whoever came with it leaves now, and the link stops working.{" "}
            <button type="button" data-testid="invite-revoke-yes" onClick={() => client.send({ t: "invite-revoke", id: invite.id })}>
              Revoke
            </button>{" "}
            <button type="button" onClick={() => setConfirming(false)}>
              Keep
            </button>
          </span>
        ) : (
          <button type="button" data-testid="invite-revoke" onClick={() => setConfirming(true)}>
            Revoke
          </button>
        ))}
      {invite.state === "revoked" && (
        <button
          type="button"
          data-testid="invite-restore"
          aria-label={`Undo revoking ${invite.name}'s invitation`}
          onClick={() => client.send({ t: "invite-restore", id: invite.id })}
        >
          Undo: let the link work again
        </button>
      )}
    </li>
  );
}
