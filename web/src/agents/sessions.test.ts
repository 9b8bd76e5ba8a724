import { describe, expect, it } from "vitest";
import type { AgentHistory, AgentHistoryRequest, ServerFrame, SessionHead } from "../protocol.gen";
import { welcomeFrame } from "../room/testing";
import { fold, type SessionEvent } from "./sessionLog";
import { NO_SESSIONS, olderPage, receiveSessions, type Sessions } from "./sessions";
import { logged, sessionHead } from "./testing";

function head(id: string, lastSeq: number): SessionHead {
  return sessionHead({ id, lastSeq });
}

const welcome = (heads: SessionHead[]) => welcomeFrame({ sessions: heads });

/** A session's log as the server writes it: turns of a prompt, three message chunks and an end. */
function log(turns: number): SessionEvent[] {
  const events: SessionEvent[] = [];
  const add = (event: { kind: string; [field: string]: unknown }) => events.push(logged({ ...event, seq: events.length + 1 }));
  for (let n = 0; n < turns; n++) {
    add({ kind: "turn", text: `turn ${n}`, author: "host", time: n });
    for (const word of ["You ", "said ", `${n}`]) {
      add({ kind: "chunk", update: { sessionUpdate: "agent_message_chunk", content: { type: "text", text: word } } });
    }
    add({ kind: "turn-end" });
  }
  return events;
}

/** The page the server's store gives for `request` (every stored event after < seq < before). */
function page(events: SessionEvent[], sessionId: string, request: AgentHistoryRequest | null, size: number): AgentHistory {
  if (request?.after != null) {
    const after = request.after;
    const chosen = events.filter((e) => e.seq > after).slice(0, size);
    return { t: "agent-history", sessionId, events: chosen, after, through: chosen.at(-1)?.seq ?? after };
  }
  const older = events.filter((e) => e.seq < (request?.before ?? Infinity));
  const chosen = older.slice(-size);
  const through = request?.before != null ? request.before - 1 : (events.at(-1)?.seq ?? 0);
  const after = older.length > size ? older[older.length - size - 1].seq : 0;
  return { t: "agent-history", sessionId, events: chosen, after, through };
}

/** Folds frames in turn, keeping what they asked for. */
class Client {
  sessions: Sessions = NO_SESSIONS;
  asks: AgentHistoryRequest[] = [];

  hear(...frames: ServerFrame[]): this {
    for (const frame of frames) {
      const step = receiveSessions(this.sessions, frame);
      this.sessions = step.sessions;
      this.asks.push(...step.asks);
    }
    return this;
  }

  get(id: string) {
    return this.sessions.byId.get(id)!;
  }
}

describe("agent sessions", () => {
  it("show the newest page first and fold each older page in, in order, down to the start", () => {
    const events = log(200);
    const client = new Client().hear(welcome([head("s", events.length)]), page(events, "s", null, 100));
    expect(client.get("s").hasOlder).toBe(true);
    expect(client.get("s").thread.items.at(-2)).toMatchObject({ type: "message", text: "You said 199" });
    let pages = 1;
    for (let request = olderPage("s", client.get("s")); request; request = olderPage("s", client.get("s"))) {
      client.hear(page(events, "s", request, 100));
      pages++;
      const first = events.findIndex((e) => e.seq === request!.before) - 100;
      expect(client.get("s").thread).toEqual(fold(events.slice(Math.max(first, 0))));
    }
    expect(pages).toBe(10);
    expect(client.get("s").hasOlder).toBe(false);
    expect(client.get("s").thread).toEqual(fold(events));
    expect(client.asks).toEqual([]);
  });

  it("keep the whole log's status when the newest page starts inside a running turn", () => {
    const events = log(1).slice(0, -1); // turn 0 still running: its turn-end has not come
    const running = { ...head("s", events.length), status: "running" as const, turnOpen: true };
    const client = new Client().hear(welcome([running]), page(events, "s", null, 2));
    expect(client.get("s").thread.status).toBe("idle"); // the two events held hold no turn
    expect(client.get("s").head?.status).toBe("running");
    client.hear({ t: "agent-event", sessionId: "s", event: logged({ seq: events.length + 1, kind: "turn-end" }) });
    expect(client.get("s").head?.status).toBe("idle");
  });

  it("join a live event that came before the first page", () => {
    const events = log(3);
    const client = new Client().hear(
      welcome([head("s", 14)]),
      { t: "agent-event", sessionId: "s", event: events[14] },
      { t: "agent-meta", meta: head("s", 15) },
      page(events.slice(0, 14), "s", null, 100),
    );
    expect(client.get("s").thread).toEqual(fold(events));
    expect(client.asks).toEqual([]);
  });

  it("fill a gap in the live events page by page after the last one held, one page at a time", () => {
    const events = log(10);
    const client = new Client().hear(welcome([head("s", 5)]), page(events.slice(0, 5), "s", null, 100));
    client.hear({ t: "agent-event", sessionId: "s", event: events[20] }, { t: "agent-meta", meta: head("s", 50) });
    expect(client.asks).toEqual([{ t: "agent-history-request", sessionId: "s", after: 5 }]);
    for (let i = 0; i < 3; i++) client.hear(page(events, "s", client.asks.at(-1)!, 20));
    expect(client.asks.map((a) => a.after)).toEqual([5, 25, 45]);
    expect(client.get("s").thread).toEqual(fold(events));
  });

  it("take a compacted log's gaps in seq as the ranges the pages say", () => {
    const compacted: SessionEvent[] = [
      { seq: 1, kind: "turn", text: "go", author: "host", time: 0 },
      { seq: 2, kind: "chunk", update: { sessionUpdate: "agent_message_chunk", content: { type: "text", text: "all at once" } } },
      { seq: 9, kind: "turn-end" },
    ].map(logged);
    const client = new Client().hear(welcome([head("s", 9)]), {
      t: "agent-history",
      sessionId: "s",
      events: compacted.slice(2),
      after: 2,
      through: 9,
    });
    expect(olderPage("s", client.get("s"))).toEqual({ t: "agent-history-request", sessionId: "s", before: 3 });
    client.hear(
      { t: "agent-history", sessionId: "s", events: compacted.slice(0, 2), after: 0, through: 2 },
      { t: "agent-event", sessionId: "s", event: logged({ seq: 10, kind: "turn", text: "again", author: "host", time: 1 }) },
    );
    expect(client.get("s").thread.items.map((i) => i.type)).toEqual(["user", "message", "turn-end", "user"]);
    expect(client.get("s").hasOlder).toBe(false);
    expect(client.asks).toEqual([]);
  });

  it("after a turn was compacted on the server, keep only the side of it they held whole", () => {
    const events = log(4);
    const client = new Client().hear(welcome([head("s", events.length)]), {
      t: "agent-history",
      sessionId: "s",
      events: events.slice(12),
      after: 12,
      through: 20,
    });
    client.hear({ t: "agent-compacted", sessionId: "s", after: 10, through: 15 });
    expect(client.get("s").thread).toEqual(fold(events.slice(15)));
    expect(olderPage("s", client.get("s"))?.before).toBe(16);
    const before = client.sessions;
    client.hear(
      { t: "agent-compacted", sessionId: "s", after: 15, through: 20 },
      { t: "agent-compacted", sessionId: "s", after: 0, through: 5 },
    );
    expect(client.sessions).toBe(before);
  });

  it("keep showing a thread through a resync until the new page comes", () => {
    const events = log(2);
    const client = new Client().hear(welcome([head("s", events.length)]), page(events, "s", null, 100));
    const shown = client.get("s").thread;
    client.hear(welcome([head("s", events.length)]), { t: "agent-meta", meta: head("s", events.length) });
    expect(client.get("s").thread).toBe(shown);
    client.hear(page(events, "s", null, 4));
    expect(client.get("s").thread).toEqual(fold(events.slice(-4)));
    expect(client.get("s").hasOlder).toBe(true);
    expect(client.asks).toEqual([]);
  });

  it("ask for the newest page of a session whose head shows events they never got", () => {
    const client = new Client().hear(welcome([]), { t: "agent-meta", meta: head("s2", 3) });
    expect(client.asks).toEqual([{ t: "agent-history-request", sessionId: "s2" }]);
  });

  it("take new options, forget removed sessions, and stay the same value for frames not about them", () => {
    const options = [{ id: "mode", name: null, type: "select", currentValue: "fast", options: [] }];
    const client = new Client().hear(
      welcome([head("s1", 0), head("s2", 0)]),
      { t: "agent-options", sessionId: "s1", options },
      { t: "agent-removed", sessionId: "s2" },
      { t: "agent-event", sessionId: "s1", event: logged({ seq: 1, kind: "turn", text: "t", author: "host", time: 1 }) },
    );
    expect(client.get("s1").head?.options).toEqual(options);
    expect([...client.sessions.byId.keys()]).toEqual(["s1"]);
    const sessions = client.sessions;
    expect(receiveSessions(sessions, { t: "pong" }).sessions).toBe(sessions);
    expect(
      receiveSessions(sessions, { t: "agent-event", sessionId: "s1", event: logged({ seq: 1, kind: "turn" }) }).sessions,
    ).toBe(sessions);
  });
});
