// @vitest-environment jsdom
/** How the guest page reads a link that names relays, how seldom it asks through them, and what it says when it cannot. */
import { describe, expect, it } from "vitest";
import { relayRetryMs, roomLinkParams, troubleWords, turnStillValid } from "./guestConnection";
import { NoAnswer, NoRelayTookIt } from "./nostrRelays";

describe("a room link that names relays", () => {
  it("gives the relays as canvas serve wrote them, beside the rest", () => {
    const link = roomLinkParams("#room=r&key=k&host=h&nostr=wss://relay.one.example,wss://relay.two.example&ice=stun:stun.example:3478");
    expect(link?.relays).toEqual(["wss://relay.one.example", "wss://relay.two.example"]);
    expect(link?.ice).toEqual(["stun:stun.example:3478"]);
  });

  it("without nostr= names none, so the page signals through /signal as ever", () => {
    expect(roomLinkParams("#room=r&key=k&host=h&signal=wss://a.example/signal")?.relays).toEqual([]);
  });
});

describe("asking through the relays again", () => {
  it("pauses 3, 6, 12 … 60 s between asks", () => {
    expect([0, 1, 2, 3, 4, 5, 6, 40].map(relayRetryMs)).toEqual([3_000, 6_000, 12_000, 24_000, 48_000, 60_000, 60_000, 60_000]);
  });

  it("says in words that it could not reach the host, and why", () => {
    const words = [
      troubleWords(new NoRelayTookIt([{ url: "wss://relay.example", why: "refused it (“rate-limited: slow down”)" }])),
      troubleWords(new NoAnswer("the host did not answer within 3 s")),
      troubleWords(new Error("timed out")),
    ];
    expect(words[0]).toBe("Could not reach the host: no relay took the message (relay.example refused it (“rate-limited: slow down”)).");
    expect(words[1]).toMatch(/^Could not reach the host: the relays took this page's message, but the host did not answer/);
    for (const said of words) expect(said).not.toMatch(/[{}[\]]|wss:|EVENT|REQ|25050/);
  });
});

describe("the TURN credentials the host minted for the page", () => {
  const now = Date.UTC(2026, 0, 1);
  const minted = (secondsLeft: number) => ({ urls: ["turn:turn.example:3478"], username: `${now / 1000 + secondsLeft}:aGVsbG8`, credential: "c2VjcmV0" });

  it("are used while they are good for an ICE start, and asked for again after", () => {
    expect(turnStillValid([minted(600)], now)).toBe(true);
    expect(turnStillValid([minted(600), minted(30)], now)).toBe(false);
    expect(turnStillValid([{ ...minted(600), username: "no-expiry" }], now)).toBe(false);
  });

  it("need no renewing when the host has no TURN server", () => {
    expect(turnStillValid([], now)).toBe(true);
  });
});
