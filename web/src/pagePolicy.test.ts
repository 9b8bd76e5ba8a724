/** A page narrows where it may connect to its own link's servers, whatever the link's words. */
import { describe, expect, it } from "vitest";
import { LINK_RELAYS_MAX, connectSources, relayUrls, signalUrls, turnEndpoint } from "./pagePolicy";

const PAGE = { protocol: "http:", host: "127.0.0.1:8477" };
const OWN = ["'self'", "ws://127.0.0.1:8477", "wss://127.0.0.1:8477"];

function sources(fragment: string, place = PAGE): string[] {
  return connectSources(new URLSearchParams(fragment), place);
}

describe("connectSources", () => {
  it("lets the host page reach its own server only", () => {
    expect(sources("token=abc")).toEqual(OWN);
  });

  it("lets a guest page reach its page's own rendezvous by default", () => {
    expect(sources("room=r&key=k&host=h")).toEqual([...OWN, "ws://127.0.0.1:8477/signal", "http://127.0.0.1:8477/turn"]);
  });

  it("lets a guest page reach exactly the rendezvous its link names", () => {
    const page = { protocol: "https:", host: "guests.example" };
    expect(sources("room=r&key=k&host=h&signal=wss://a.example/signal,wss://b.example:8443/x/signal", page)).toEqual([
      "'self'",
      "ws://guests.example",
      "wss://guests.example",
      "wss://a.example/signal",
      "https://a.example/turn",
      "wss://b.example:8443/x/signal",
      "https://b.example:8443/x/turn",
    ]);
  });

  it("lets a guest page whose link names relays reach those relays, and no rendezvous", () => {
    const relays = encodeURIComponent("wss://relay.one.example,wss://relay.two.example:444/nostr,ws://127.0.0.1:7000");
    expect(sources(`room=r&key=k&host=h&signal=wss://a.example/signal&nostr=${relays}`)).toEqual([
      ...OWN,
      "wss://relay.one.example",
      "wss://relay.two.example:444/nostr",
      "ws://127.0.0.1:7000",
    ]);
  });

  it("reads the relays as the Python guest does, as many as a page will use", () => {
    // canvasrelay/server/app.py writes them quoted with safe ':/@,', so commas stay commas.
    expect(relayUrls(new URLSearchParams("nostr=wss://a.example,https://b.example,,wss://a.example,javascript:x,ws://c.example"))).toEqual([
      "wss://a.example",
      "ws://c.example",
    ]);
    const many = Array.from({ length: 20 }, (_, n) => `wss://r${n}.example`).join(",");
    expect(relayUrls(new URLSearchParams(`nostr=${many}`))).toHaveLength(LINK_RELAYS_MAX);
    expect(sources(`room=r&key=k&host=h&nostr=${many}`)).toHaveLength(OWN.length + LINK_RELAYS_MAX);
  });

  it("says no more than a source for a relay's odd words", () => {
    const odd = sources("room=r&key=k&host=h&nostr=" + encodeURIComponent("wss://relay.example/x;script-src *,wss://bad host"));
    expect(odd).toEqual([...OWN, "wss://relay.example"]);
  });

  it("says no more than a source for a link's odd words", () => {
    const odd = sources("room=r&key=k&host=h&signal=" + encodeURIComponent("wss://a.example/s;script-src *,javascript:alert(1),not a url"));
    expect(odd).toEqual([...OWN, "wss://a.example", "https://a.example"]);
    expect(odd.join(" ")).not.toMatch(/;|\*|javascript/);
  });
});

describe("the rendezvous of a link", () => {
  it("is the page's own /signal when the link names none", () => {
    expect(signalUrls(new URLSearchParams(""), { protocol: "https:", host: "x.example" })).toEqual(["wss://x.example/signal"]);
  });

  it("hands out TURN credentials beside its socket", () => {
    expect(turnEndpoint("wss://a.example/signal")).toBe("https://a.example/turn");
    expect(turnEndpoint("ws://127.0.0.1:8478/signal")).toBe("http://127.0.0.1:8478/turn");
  });
});
