import { describe, expect, it } from "vitest";
import type { ServerFrame, SessionHead } from "../protocol.gen";
import { welcomeFrame } from "../room/testing";
import { NO_SESSIONS, receiveSessions, type Sessions } from "./sessions";

function head(id: string, lastSeq: number): SessionHead {
  return {
    id,
    agent: "demo",
    agentLabel: "Demo agent",
    title: "",
    status: "idle",
    queued: [],
    options: [],
    created: 1,
    lastSeq,
  };
}

const welcome = (heads: SessionHead[]) => welcomeFrame({ sessions: heads as unknown as Record<string, unknown>[] });

const turn = (seq: number, text: string) => ({ seq, kind: "turn", text, author: "host", time: 1 });
const event = (sessionId: string, seq: number, text = `t${seq}`): ServerFrame => ({
  t: "agent-event",
  sessionId,
  event: turn(seq, text),
});
const history = (sessionId: string, seqs: number[]): ServerFrame => ({
  t: "agent-history",
  sessionId,
  events: seqs.map((seq) => turn(seq, `t${seq}`)),
  more: false,
});

/** Folds `frames`, collecting every history request they made. */
function run(frames: ServerFrame[], start: Sessions = NO_SESSIONS) {
  const asks: { sessionId: string; after?: number }[] = [];
  let sessions = start;
  for (const frame of frames) {
    const step = receiveSessions(sessions, frame);
    sessions = step.sessions;
    asks.push(...step.asks.map(({ sessionId, after }) => ({ sessionId, after })));
  }
  return { sessions, asks };
}

const texts = (sessions: Sessions, id: string) =>
  sessions.byId.get(id)?.thread.items.map((item) => (item.type === "user" ? item.text : item.type));

describe("agent sessions", () => {
  it("take the welcome's heads without asking: their histories follow unasked", () => {
    const { sessions, asks } = run([welcome([head("s1", 2)]), history("s1", [1, 2])]);
    expect(asks).toEqual([]);
    expect(sessions.byId.get("s1")?.head?.agentLabel).toBe("Demo agent");
    expect(texts(sessions, "s1")).toEqual(["t1", "t2"]);
  });

  it("fold events as they come", () => {
    const { sessions } = run([welcome([head("s1", 0)]), event("s1", 1), event("s1", 2)]);
    expect(texts(sessions, "s1")).toEqual(["t1", "t2"]);
    expect(sessions.byId.get("s1")?.thread.lastSeq).toBe(2);
  });

  it("ask once for what a gap skipped, after the last event they have", () => {
    const { sessions, asks } = run([welcome([head("s1", 1)]), history("s1", [1]), event("s1", 4), event("s1", 5)]);
    expect(asks).toEqual([{ sessionId: "s1", after: 1 }]);
    expect(texts(sessions, "s1")).toEqual(["t1"]);
  });

  it("catch up from the history they asked for, then ask again at the next gap", () => {
    const { sessions, asks } = run([
      welcome([head("s1", 0)]),
      event("s1", 3),
      history("s1", [1, 2, 3]),
      event("s1", 4),
      event("s1", 6),
    ]);
    expect(texts(sessions, "s1")).toEqual(["t1", "t2", "t3", "t4"]);
    expect(asks).toEqual([
      { sessionId: "s1", after: 0 },
      { sessionId: "s1", after: 4 },
    ]);
  });

  it("ask for the history of a session whose head is ahead of its thread", () => {
    const { asks } = run([welcome([]), { t: "agent-meta", meta: head("s2", 3) }]);
    expect(asks).toEqual([{ sessionId: "s2", after: 0 }]);
  });

  it("take new options and forget removed sessions", () => {
    const options = [{ id: "mode", currentValue: "fast" }];
    const { sessions } = run([
      welcome([head("s1", 0), head("s2", 0)]),
      { t: "agent-options", sessionId: "s1", options },
      { t: "agent-removed", sessionId: "s2" },
    ]);
    expect(sessions.byId.get("s1")?.head?.options).toEqual(options);
    expect([...sessions.byId.keys()]).toEqual(["s1"]);
  });

  it("stay the same value for frames that are not about them, and for events they already have", () => {
    const { sessions } = run([welcome([head("s1", 1)]), event("s1", 1)]);
    expect(receiveSessions(sessions, { t: "pong" }).sessions).toBe(sessions);
    expect(receiveSessions(sessions, event("s1", 1)).sessions).toBe(sessions);
  });
});
