import { describe, expect, it } from "vitest";
import type { ServerFrame, SessionHead } from "../protocol.gen";
import { initialRoomState, receive, type RoomState } from "../room/roomState";
import { welcomeFrame } from "../room/testing";
import { logged, sessionHead } from "../agents/testing";
import { attentionEntries, waitingCount } from "./entries";

const head: SessionHead = sessionHead({
  id: "s1",
  title: "Demo agent 1",
  status: "waiting",
  created: 0,
  lastSeq: 2,
  turnOpen: true,
  openPermissions: ["p1"],
});

function fold(frames: ServerFrame[]): RoomState {
  return frames.reduce(receive, initialRoomState("connected"));
}

const permission: ServerFrame = {
  t: "agent-event",
  sessionId: "s1",
  event: logged({ seq: 1, kind: "permission", requestId: "p1", toolCallId: "w1", title: "Write a.txt", options: [] }),
};

describe("what waits for the host", () => {
  it("is every open permission and every guest request, each naming who, what and where", () => {
    const state = fold([
      welcomeFrame({ sessions: [head] }),
      permission,
      {
        t: "approval-request",
        id: "a1",
        guestId: "g",
        name: "Ada",
        color: "#123456",
        what: "agent-prompt",
        text: "hello",
        length: 5,
        escaped: 0,
        sha256: "",
        subject: "s1",
        expiresInMs: 1000,
      },
      {
        t: "terminals",
        terminals: [{ id: "t1", name: "Terminal 1", running: true, exitCode: null, endedWhileStopped: false, controllers: [], cols: 80, rows: 24, pinned: false }],
        outliveRestart: true,
      },
      {
        t: "approval-request",
        id: "a2",
        guestId: "g",
        name: "Ada",
        color: "#123456",
        what: "term-control",
        text: "{}",
        length: 2,
        escaped: 0,
        sha256: "",
        subject: "t1",
        expiresInMs: 1000,
      },
    ]);
    const entries = attentionEntries(state);
    expect(entries.map((e) => [e.kind, "what" in e ? e.what : e.item.title, e.place?.name, e.place?.type])).toEqual([
      ["permission", "Write a.txt", "Demo agent 1", "agent"],
      ["approval", "send a prompt to Demo agent 1", "Demo agent 1", "agent"],
      ["approval", "take control of Terminal 1", "Terminal 1", "terminal"],
    ]);
    expect(waitingCount(entries)).toBe(3);
    const answered = receive(state, {
      t: "agent-event",
      sessionId: "s1",
      event: logged({ seq: 2, kind: "permission-resolved", requestId: "p1", optionId: "ok", by: "the host" }),
    });
    expect(waitingCount(attentionEntries(answered))).toBe(2);
  });
});

describe("what a guest waits for", () => {
  it("is its own requests, then how they ended, which do not count as waiting", () => {
    const state = fold([
      welcomeFrame({ access: "edit", sessions: [head] }),
      { t: "request-pending", id: "a1", ref: "agent-prompt", subject: "s1", expiresInMs: 1000, text: "" },
      { t: "request-pending", id: "a2", ref: "term-open", subject: "t9", expiresInMs: 1000, text: "" },
      { t: "approval-resolved", id: "a2", ref: "term-open", outcome: "denied", text: null, name: "", reason: null },
    ]);
    const entries = attentionEntries(state);
    expect(entries.map((e) => [e.kind, "what" in e ? e.what : ""])).toEqual([
      ["waiting", "prompt to Demo agent 1"],
      ["ended", "request for a new terminal"],
    ]);
    expect(waitingCount(entries)).toBe(1);
  });
});
