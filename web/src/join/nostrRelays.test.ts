/** The guest's ask over relays against stand-in relays that answer, fail, stay silent, refuse or send junk. */
import { describe, expect, it } from "vitest";
import { SIGNAL_KIND, freshKey, signEvent, type NostrEvent, type NostrKey } from "./nostrEvent";
import { CONNECT_MS, EVENTS_MAX, NoAnswer, NoRelayTookIt, askOverRelays, type RelayAsk, type RelaySocket } from "./nostrRelays";

type Behaviour = "answers" | "takes" | "rate-limited" | "silent" | "never-opens" | "unreachable" | "throws" | "junk" | "floods";

const HOST = freshKey();

/** A relay stand-in: what it was sent, and what it does with an event. */
class FakeRelay implements RelaySocket {
  onopen: ((event: Event) => void) | null = null;
  onmessage: ((event: MessageEvent) => void) | null = null;
  onerror: ((event: Event) => void) | null = null;
  onclose: ((event: CloseEvent) => void) | null = null;
  readonly sent: unknown[][] = [];
  closed = false;

  constructor(
    readonly behaviour: Behaviour,
    /** What the host replies, given the content the page sent; the reply is signed by HOST. */
    readonly reply: (event: NostrEvent) => Promise<NostrEvent[]>,
  ) {
    if (behaviour === "throws") throw new DOMException("refused by the page's policy", "SecurityError");
    queueMicrotask(() => {
      if (behaviour === "unreachable") this.onerror?.(new Event("error"));
      else if (behaviour !== "never-opens") this.onopen?.(new Event("open"));
    });
  }

  send(data: string): void {
    const message = JSON.parse(data) as unknown[];
    this.sent.push(message);
    if (message[0] !== "EVENT") return;
    const event = message[1] as NostrEvent;
    if (this.behaviour === "silent") return;
    if (this.behaviour === "rate-limited") return this.say(["OK", event.id, false, "rate-limited: slow down"]);
    this.say(["OK", event.id, true, ""]);
    if (this.behaviour === "junk") {
      this.say("not json");
      this.say({ not: "a list" });
      this.say(["EVENT", "answers", "not an event"]);
      this.say(["EVENT", "answers", { ...event, content: "changed" }]);
      this.say(["MYSTERY"]);
    }
    if (this.behaviour === "floods") {
      for (let n = 0; n <= EVENTS_MAX; n++) this.say(["EVENT", "answers", { ...event, content: `junk ${n}` }]);
    }
    if (this.behaviour === "answers" || this.behaviour === "junk" || this.behaviour === "floods") {
      void this.reply(event).then((replies) => replies.forEach((reply) => this.say(["EVENT", "answers", reply])));
    }
  }

  close(): void {
    this.closed = true;
  }

  say(message: unknown): void {
    queueMicrotask(() => this.onmessage?.(new MessageEvent("message", { data: typeof message === "string" ? message : JSON.stringify(message) })));
  }
}

/** The host: an answer addressed to the page's key, naming what it answers. */
async function answerTo(page: NostrKey, event: NostrEvent, words = "answer to "): Promise<NostrEvent> {
  return signEvent(HOST, SIGNAL_KIND, [["p", page.pubkey]], words + event.content);
}

function setUp(behaviours: Behaviour[], reply?: (page: NostrKey, event: NostrEvent) => Promise<NostrEvent[]>) {
  const page = freshKey();
  const relays = new Map<string, FakeRelay>();
  const dropped: string[] = [];
  const replies = reply ?? (async (key: NostrKey, event: NostrEvent) => [await answerTo(key, event)]);
  const ask = (more: Partial<RelayAsk<string>> = {}) =>
    askOverRelays<string>({
      urls: behaviours.map((behaviour, n) => `wss://relay${n}.example/${behaviour}`),
      key: page,
      topic: "the-topic",
      envelope: "sealed",
      answer: async (content) => (content.startsWith("answer to ") ? content : null),
      deadlineMs: 2_000,
      open: (url) => {
        const relay = new FakeRelay(behaviours[Number(/relay(\d+)/.exec(url)![1])], (event) => replies(page, event));
        relays.set(url, relay);
        return relay;
      },
      onDropped: (_url, why) => dropped.push(why),
      ...more,
    });
  return { page, relays, dropped, ask };
}

describe("asking the host over relays", () => {
  it("subscribes to what names the page's key, then publishes one event on the topic, on every relay", async () => {
    const { page, relays, ask } = setUp(["answers", "answers"]);
    expect(await ask()).toBe("answer to sealed");
    for (const relay of relays.values()) {
      expect(relay.sent[0]).toEqual(["REQ", "answers", { kinds: [25050], "#p": [page.pubkey], limit: 0 }]);
      expect(relay.sent.filter((message) => message[0] === "EVENT")).toHaveLength(1);
      const event = relay.sent[1][1] as NostrEvent;
      expect(event).toMatchObject({ pubkey: page.pubkey, kind: 25050, tags: [["x", "the-topic"]], content: "sealed" });
      expect(relay.closed).toBe(true);
    }
  });

  it("is not held up by relays that are unreachable, never open, or stay silent", async () => {
    const { ask } = setUp(["unreachable", "never-opens", "throws", "silent", "answers"]);
    const started = performance.now();
    expect(await ask({ deadlineMs: 30_000 })).toBe("answer to sealed");
    // Well under the other relays' own deadlines: the answering relay went its own way.
    expect(performance.now() - started).toBeLessThan(CONNECT_MS / 2);
  });

  it("drops junk and forged events, and takes the real reply after them", async () => {
    const { ask, dropped } = setUp(["junk"]);
    expect(await ask()).toBe("answer to sealed");
    expect(dropped).toEqual(
      expect.arrayContaining(["not JSON", "not a relay message", "an event must be an object", "the id is not the hash of the event", "an unknown relay message"]),
    );
  });

  it("ignores a reply that is not to this message, or signed but addressed to another page", async () => {
    const { ask, dropped } = setUp(["answers"], async (page, event) => [
      await signEvent(HOST, SIGNAL_KIND, [["p", page.pubkey]], "an about for another question"),
      await signEvent(HOST, SIGNAL_KIND, [["p", freshKey().pubkey]], "answer to someone else"),
      await answerTo(page, event),
    ]);
    expect(await ask()).toBe("answer to sealed");
    // Each event is checked as it comes, so which is dropped first is the checks' race.
    expect([...dropped].sort()).toEqual(["an event not addressed to this page", "not the reply to this message"]);
  });

  it("stops reading a relay that floods it past what a reply needs", async () => {
    const { ask } = setUp(["floods"]);
    await expect(ask()).rejects.toThrow(NoAnswer);
  });

  it("ends with what the reply's reader throws (a withdrawn invitation, say)", async () => {
    const { ask } = setUp(["answers"]);
    await expect(
      ask({
        answer: async () => {
          throw new Error("This invitation was withdrawn by the host.");
        },
      }),
    ).rejects.toThrow("withdrawn");
  });

  it("says, relay by relay and without waiting out the deadline, when none took the message", async () => {
    const { ask } = setUp(["rate-limited", "unreachable", "throws"]);
    const failure = await ask({ deadlineMs: 60_000 }).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(NoRelayTookIt);
    expect((failure as Error).message).toBe(
      "no relay took the message (relay0.example refused it (“rate-limited: slow down”); " +
        "relay1.example could not be reached; relay2.example cannot be reached from this page)",
    );
  });

  it("gives up at its deadline when the relays took the message and no answer came", async () => {
    const { ask } = setUp(["takes", "silent"]);
    const failure = await ask({ deadlineMs: 100 }).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(NoAnswer);
    expect((failure as Error).message).toMatch(/did not answer within/);
  });

  it("counts a relay that never says whether it took the message as not having taken it", async () => {
    const { ask } = setUp(["silent", "never-opens"]);
    const failure = await ask({ deadlineMs: 100 }).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(NoRelayTookIt);
    expect((failure as Error).message).toMatch(/relay0.example did not answer in time; relay1.example did not answer in time/);
  });

  it("says so when the link names no relay", async () => {
    const { ask } = setUp([]);
    await expect(ask()).rejects.toThrow("the link names no relay");
  });
});
