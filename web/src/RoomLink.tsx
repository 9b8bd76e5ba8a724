import { CopyButton } from "./CopyButton";
import { useRoom, useRoomClient } from "./roomClient";

/** A link for guests: the page's address with an invitation's fragment (its secrets stay out of the URL sent). */
export function roomLink(fragment: string, base: string): string {
  return `${base}#${fragment}`;
}

/** The open room link: copied for anyone, turned off or given a new secret without touching named invitations. */
export function RoomLink() {
  const client = useRoomClient();
  const fragment = useRoom((s) => s.invites?.openLink ?? null);
  const known = useRoom((s) => s.invites !== null);
  const link = fragment ? roomLink(fragment, `${location.origin}/`) : "";
  return (
    <section className="room-link" aria-labelledby="room-link-heading">
      <h2 id="room-link-heading">Room link</h2>
      {!known ? null : fragment ? (
        <>
          <p>Anyone who opens this link can join the room. To let in one person only, invite them below.</p>
          <div className="copy-row">
            <input
              readOnly
              aria-label="Room link"
              value={link}
              data-testid="room-link"
              onFocus={(e) => e.currentTarget.select()}
            />
            <CopyButton text={link} />
          </div>
          <div className="copy-row">
            <button type="button" data-testid="open-link-off" onClick={() => client.send({ t: "open-link", change: "off" })}>
              Turn off
            </button>
            <button type="button" data-testid="open-link-rotate" onClick={() => client.send({ t: "open-link", change: "rotate" })}>
              New link
            </button>
          </div>
        </>
      ) : (
        <>
          <p data-testid="open-link-is-off">The open room link is off: only people you invite can join.</p>
          <button type="button" data-testid="open-link-on" onClick={() => client.send({ t: "open-link", change: "on" })}>
            Turn it on
          </button>
        </>
      )}
    </section>
  );
}
