/** A page narrows where it may connect to its own link's servers, whatever the link's words. */
import { describe, expect, it } from "vitest";
import { connectSources, signalUrls, turnEndpoint } from "./pagePolicy";

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
