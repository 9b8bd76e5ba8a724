import { CopyButton } from "./CopyButton";
import type { LinkReach } from "./protocol.gen";
import { useRoom, useRoomClient } from "./roomClient";

/** A link for guests: the page's address with an invitation's fragment (its secrets stay out of the URL sent). */
export function roomLink(fragment: string, base: string): string {
  return `${base}#${fragment}`;
}

/** The guest page links point at: the one the server names, or (before it says) this page's own. */
export function useLinkBase(): string {
  return useRoom((s) => s.invites?.reach?.page) ?? `${location.origin}/`;
}

/** How a link reaches the people it is sent to, in words. */
export function reachWords(reach: LinkReach): string {
  const relays = reach.relays.length;
  const through = relays ? `through ${relays} public relay${relays === 1 ? "" : "s"}` : "through your rendezvous";
  if (reach.anywhere) return `It works for anyone, on any network: guests find the room ${through}.`;
  if (relays === 0) return "It opens on this network only: no public relay carries it.";
  return `Guests find the room ${through}, but the page it opens is on this computer: send it to people on this network.`;
}

function Reach() {
  const reach = useRoom((s) => s.invites?.reach ?? null);
  const fragment = useRoom((s) => s.invites?.openLink ?? null);
  if (!reach) return null;
  return (
    <>
      <p data-testid="link-reach">{reachWords(reach)}</p>
      {reach.nearbyPage && fragment ? (
        <>
        <p>On this network it also opens straight from this computer:</p>
        <div className="copy-row">
          <input
            readOnly
            aria-label="Room link on this network"
            value={roomLink(fragment, reach.nearbyPage)}
            data-testid="room-link-nearby"
            onFocus={(e) => e.currentTarget.select()}
          />
          <CopyButton text={roomLink(fragment, reach.nearbyPage)} />
        </div>
        </>
      ) : null}
    </>
  );
}

/** The open room link: copied for anyone, turned off or given a new secret without touching named invitations. */
export function RoomLink() {
  const client = useRoomClient();
  const fragment = useRoom((s) => s.invites?.openLink ?? null);
  const known = useRoom((s) => s.invites !== null);
  const base = useLinkBase();
  const link = fragment ? roomLink(fragment, base) : "";
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
          <Reach />
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
