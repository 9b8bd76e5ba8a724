import { describe, expect, it } from "vitest";
import type { AgentHistory, ClientFrame, ServerFrame, SessionHead, Welcome } from "../protocol.gen";
import type { RoomClient } from "../roomClient";
import { fold, type SessionEvent } from "./sessionLog";
import { AgentSessions } from "./store";

/** The server's side of the conversation, played by the test: it records what the store asks for. */
class Conversation implements RoomClient {
  asked: ClientFrame[] = [];
  welcome: Welcome | null = null;
  private listener: ((frame: ServerFrame) => void) | null = null;

  send(frame: ClientFrame): boolean {
    this.asked.push(frame);
    return true;
  }

  onFrame(listener: (frame: ServerFrame) => void): () => void {
    this.listener = listener;
    return () => (this.listener = null);
  }

  say(frame: ServerFrame): void {
    if (frame.t === "welcome") this.welcome = frame;
    this.listener?.(frame);
  }

  lastAsked(): ClientFrame | undefined {
    return this.asked[this.asked.length - 1];
  }
}

/** A session's log as the server writes it: turns of a prompt, three message chunks and an end. */
function log(turns: number): SessionEvent[] {
  const events: SessionEvent[] = [];
  const add = (event: Omit<SessionEvent, "seq">) => events.push({ seq: events.length + 1, ...event });
  for (let n = 0; n < turns; n++) {
    add({ kind: "turn", text: `turn ${n}`, author: "host", time: n });
    for (const word of ["You ", "said ", `${n}`]) {
      add({ kind: "chunk", update: { sessionUpdate: "agent_message_chunk", content: { type: "text", text: word } } });
    }
    add({ kind: "turn-end" });
  }
  return events;
}

function head(id: string, lastSeq: number): SessionHead {
  return { id, agent: "demo", agentLabel: "Demo", title: "", status: "idle", queued: [], options: [], created: 0, lastSeq };
}

function welcome(heads: SessionHead[]): Welcome {
  return { t: "welcome", sessions: heads } as unknown as Welcome;
}

/** The page the server would send for `request` (the store's bounds: after < seq < before). */
function page(events: SessionEvent[], sessionId: string, request: ClientFrame | undefined, size: number): AgentHistory {
  const asked = request as { after?: number | null; before?: number | null } | undefined;
  if (asked?.after != null) {
    const chosen = events.filter((e) => e.seq > asked.after!).slice(0, size);
    return { t: "agent-history", sessionId, events: chosen, after: asked.after, through: chosen.at(-1)?.seq ?? asked.after };
  }
  const before = asked?.before ?? Infinity;
  const older = events.filter((e) => e.seq < before);
  const chosen = older.slice(-size);
  const through = asked?.before != null ? asked.before - 1 : (events.at(-1)?.seq ?? 0);
  return { t: "agent-history", sessionId, events: chosen, after: older.length > size ? older[older.length - size - 1].seq : 0, through };
}

describe("AgentSessions", () => {
  it("shows the newest page first and folds each older page in, in order, until the start", () => {
    const events = log(200);
    const server = new Conversation();
    const store = new AgentSessions(server);
    server.say(welcome([head("s", events.length)]));
    server.say(page(events, "s", undefined, 100));
    expect(store.get("s")!.hasOlder).toBe(true);
    expect(store.get("s")!.thread.items.at(-1)).toMatchObject({ type: "message", text: "You said 199" });

    let pages = 1;
    while (store.get("s")!.hasOlder) {
      store.loadOlder("s");
      store.loadOlder("s");
      const request = server.lastAsked();
      expect(server.asked).toHaveLength(pages);
      expect(store.get("s")!.loadingOlder).toBe(true);
      server.say(page(events, "s", request, 100));
      pages++;
      const shown = store.get("s")!.thread;
      const first = events.findIndex((e) => e.seq === (request as { before: number }).before) - 100;
      expect(shown).toEqual(fold(events.slice(Math.max(first, 0))));
    }
    expect(pages).toBe(10);
    expect(store.get("s")!.thread).toEqual(fold(events));
    expect(store.get("s")!.loadingOlder).toBe(false);
  });

  it("joins a live event that came before the first page", () => {
    const events = log(3);
    const server = new Conversation();
    const store = new AgentSessions(server);
    server.say(welcome([head("s", 14)]));
    server.say({ t: "agent-event", sessionId: "s", event: events[14] });
    server.say(page(events.slice(0, 14), "s", undefined, 100));
    expect(store.get("s")!.thread).toEqual(fold(events));
    expect(server.asked).toEqual([]);
  });

  it("fills a gap in the live events page by page after the last one held", () => {
    const events = log(10);
    const server = new Conversation();
    const store = new AgentSessions(server);
    server.say(welcome([head("s", 5)]));
    server.say(page(events.slice(0, 5), "s", undefined, 100));
    server.say({ t: "agent-event", sessionId: "s", event: events[20] });
    expect(server.asked).toEqual([{ t: "agent-history-request", sessionId: "s", after: 5 }]);
    server.say({ t: "agent-meta", meta: head("s", events.length) });
    server.say(page(events, "s", server.lastAsked(), 20));
    expect(server.lastAsked()).toEqual({ t: "agent-history-request", sessionId: "s", after: 25 });
    server.say(page(events, "s", server.lastAsked(), 20));
    expect(server.lastAsked()).toEqual({ t: "agent-history-request", sessionId: "s", after: 45 });
    server.say(page(events, "s", server.lastAsked(), 20));
    expect(server.asked).toHaveLength(3);
    expect(store.get("s")!.thread).toEqual(fold(events));
  });

  it("takes a compacted log's gaps in seq as the ranges the pages say", () => {
    const compacted: SessionEvent[] = [
      { seq: 1, kind: "turn", text: "go", author: "host", time: 0 },
      { seq: 2, kind: "chunk", update: { sessionUpdate: "agent_message_chunk", content: { type: "text", text: "all at once" } } },
      { seq: 9, kind: "turn-end" },
    ];
    const server = new Conversation();
    const store = new AgentSessions(server);
    server.say(welcome([head("s", 9)]));
    server.say({ t: "agent-history", sessionId: "s", events: compacted.slice(2), after: 2, through: 9 });
    store.loadOlder("s");
    expect(server.lastAsked()).toEqual({ t: "agent-history-request", sessionId: "s", before: 3 });
    server.say({ t: "agent-history", sessionId: "s", events: compacted.slice(0, 2), after: 0, through: 2 });
    server.say({ t: "agent-event", sessionId: "s", event: { seq: 10, kind: "turn", text: "again", author: "host", time: 1 } });
    expect(store.get("s")!.thread.items.map((i) => i.type)).toEqual(["user", "message", "user"]);
    expect(store.get("s")!.hasOlder).toBe(false);
    expect(server.asked).toHaveLength(1);
  });

  it("created after the welcome, asks for the newest page of each session that has events", () => {
    const server = new Conversation();
    server.welcome = welcome([head("a", 0), head("b", 7)]);
    const store = new AgentSessions(server);
    expect(server.asked).toEqual([{ t: "agent-history-request", sessionId: "b" }]);
    expect(store.get("a")!.hasOlder).toBe(false);
  });

  it("keeps showing a thread through a resync until the new page comes", () => {
    const events = log(2);
    const server = new Conversation();
    const store = new AgentSessions(server);
    server.say(welcome([head("s", events.length)]));
    server.say(page(events, "s", undefined, 100));
    const shown = store.get("s")!.thread;
    server.say(welcome([head("s", events.length)]));
    expect(store.get("s")!.thread).toBe(shown);
    server.say(page(events, "s", undefined, 4));
    expect(store.get("s")!.thread).toEqual(fold(events.slice(-4)));
    expect(store.get("s")!.hasOlder).toBe(true);
  });

  it("after a turn was compacted on the server, keeps only the side of it that it held whole", () => {
    const events = log(4);
    const server = new Conversation();
    const store = new AgentSessions(server);
    server.say(welcome([head("s", events.length)]));
    // Held from the middle of turn 2 (seqs 11..15) on.
    server.say({ t: "agent-history", sessionId: "s", events: events.slice(12), after: 12, through: 20 });
    server.say({ t: "agent-compacted", sessionId: "s", after: 10, through: 15 });
    expect(store.get("s")!.thread).toEqual(fold(events.slice(15)));
    store.loadOlder("s");
    expect(server.lastAsked()).toEqual({ t: "agent-history-request", sessionId: "s", before: 16 });
    // A turn it holds whole, or not at all, changes nothing.
    server.say({ t: "agent-compacted", sessionId: "s", after: 15, through: 20 });
    server.say({ t: "agent-compacted", sessionId: "s", after: 0, through: 5 });
    expect(store.get("s")!.thread).toEqual(fold(events.slice(15)));
  });
});
