import { describe, expect, it } from "vitest";
import { sessionHead } from "../agents/testing";
import type { AgentInfo, ApprovalRequest, ServerFrame, Welcome } from "../protocol.gen";
import { outcomeText, requestAsks, requestVerb } from "./requests";
import { welcomeFrame } from "./testing";
import {
  dismissEnded,
  dismissNotice,
  initialRoomState,
  receive,
  selectAccess,
  selectConnection,
  selectMayType,
  withConnection,
  type RoomState,
} from "./roomState";

const DEMO: AgentInfo[] = [
  { id: "demo", label: "Demo agent", available: true, reason: null, state: "ready", install: null, setup: null, confined: true, confinement: "confined" },
];
const welcome = (access: Welcome["access"] = "host") => welcomeFrame({ access, agents: DEMO });

function fold(frames: ServerFrame[], start: RoomState = initialRoomState("connecting")): RoomState {
  return frames.reduce(receive, start);
}

const pending = (id: string, ref: string, subject: string | null): ServerFrame => ({
  t: "request-pending",
  id,
  ref,
  subject,
  expiresInMs: 120_000, text: "",
});

describe("the room state", () => {
  it("knows nothing before the welcome, then the room, the agents and our access", () => {
    const before = initialRoomState("connecting");
    expect(selectAccess(before)).toBeNull();
    const state = receive(before, welcome("edit"));
    expect(state.welcome?.cwd).toBe("/project");
    expect(state.welcome?.agents.map((a) => a.label)).toEqual(["Demo agent"]);
    expect(selectAccess(state)).toBe("edit");
  });

  it("follows the access the host gives us, and its terminal grants", () => {
    const state = fold([welcome("view"), { t: "access", access: "edit", grantedTerminals: ["t-1"] }]);
    expect(selectAccess(state)).toBe("edit");
    expect(selectMayType(state, "t-1")).toBe(true);
    expect(selectMayType(state, "t-2")).toBe(false);
    // Lowered, the guest's terminals are taken back; a view guest the host hands one types in it.
    const lowered = receive(state, { t: "access", access: "view", grantedTerminals: [] });
    expect(selectMayType(lowered, "t-1")).toBe(false);
    const handed = receive(lowered, { t: "access", access: "view", grantedTerminals: ["t-1"] });
    expect(selectMayType(handed, "t-1")).toBe(true);
  });

  it("lets the host and trusted guests type into every terminal", () => {
    expect(selectMayType(fold([welcome("host")]), "any")).toBe(true);
    expect(selectMayType(fold([welcome("trusted")]), "any")).toBe(true);
  });

  it("keeps the connection's state", () => {
    const state = initialRoomState<"connecting" | "connected">("connecting");
    expect(withConnection(state, "connected").connection).toBe("connected");
    expect(withConnection(state, "connecting")).toBe(state);
  });

  it("holds the latest terminals, file tree and guest list", () => {
    const state = fold([
      welcome(),
      {
        t: "terminals",
        terminals: [{ id: "t-1", name: "Terminal 1", running: true, exitCode: null, endedWhileStopped: false, controllers: [], cols: 80, rows: 24, pinned: false }],
        outliveRestart: false,
      },
      { t: "tree", paths: ["a.txt", "src/b.ts"] },
      { t: "guests", defaultAccess: "view", guests: [], removed: [] },
      { t: "terminals", terminals: [], outliveRestart: true },
    ]);
    expect(state.terminals).toEqual([]);
    expect(state.tree).toEqual(["a.txt", "src/b.ts"]);
    expect(state.guests?.defaultAccess).toBe("view");
  });

  it("leaves the state before as it was, and the same state for frames that are streams", () => {
    const before = fold([welcome("edit"), pending("a1", "agent-prompt", "s1")]);
    const copy = structuredClone(before);
    receive(before, { t: "access", access: "view", grantedTerminals: [] });
    receive(before, { t: "approval-resolved", id: "a1", ref: "agent-prompt", outcome: "denied", text: null, name: "", reason: null });
    expect(before).toEqual(copy);
    expect(receive(before, { t: "term-data", id: "t-1", data: "ls\r\n", replay: false })).toBe(before);
    expect(receive(before, { t: "board-update", update: "AA==" })).toBe(before);
  });
});

describe("a guest's requests", () => {
  it("wait for the host, then say in words how they ended", () => {
    const waiting = fold([welcome("edit"), pending("a1", "agent-prompt", "s1")]);
    expect(waiting.requests).toEqual([{ id: "a1", ref: "agent-prompt", subject: "s1", text: "" }]);
    const denied = receive(waiting, { t: "approval-resolved", id: "a1", ref: "agent-prompt", outcome: "denied", text: null, name: "", reason: null });
    expect(denied.requests).toEqual([]);
    expect(denied.resolutions.get("s1")).toEqual({ ref: "agent-prompt", outcome: "denied" });
    expect(outcomeText("agent-prompt", "denied", "Demo agent 1")).toBe("Your prompt to Demo agent 1: the host said no.");
  });

  it("are kept, once ended, with how each ended, until the guest dismisses them", () => {
    const state = fold([
      welcome("edit"),
      pending("a1", "agent-prompt", "s1"),
      { t: "approval-resolved", id: "a1", ref: "agent-prompt", outcome: "denied", text: null, name: "", reason: null },
      pending("a2", "term-open", "t-1"),
      { t: "approval-resolved", id: "a2", ref: "term-open", outcome: "approved", text: null, name: "", reason: null },
    ]);
    expect(state.ended.map((r) => [r.id, r.outcome])).toEqual([
      ["a1", "denied"],
      ["a2", "approved"],
    ]);
    expect(state.notices).toEqual([]);
    expect(dismissEnded(state, "a1").ended.map((r) => r.id)).toEqual(["a2"]);
    expect(dismissEnded(state, "nope")).toBe(state);
  });

  it("forget how the last one ended when a new one about the same subject waits", () => {
    const state = fold([
      welcome("edit"),
      pending("a1", "agent-prompt", "s1"),
      { t: "approval-resolved", id: "a1", ref: "agent-prompt", outcome: "expired", text: null, name: "", reason: null },
      pending("a2", "agent-prompt", "s1"),
    ]);
    expect(state.resolutions.has("s1")).toBe(false);
    expect(state.requests.map((r) => r.id)).toEqual(["a2"]);
  });

  it("are withdrawn by a resync (a new welcome)", () => {
    const state = fold([welcome("edit"), pending("a1", "term-open", "t-1"), welcome("edit")]);
    expect(state.requests).toEqual([]);
  });

  it("are told in words, never by frame type", () => {
    expect(outcomeText("agent-create", "trusted")).toContain("Your request to start an agent");
    expect(outcomeText("term-open", "expired")).toBe("Your request for a new terminal: the host did not answer in time, so it expired.");
    expect(requestVerb("term-control", "Terminal 1")).toBe("take control of Terminal 1");
    expect(requestVerb("agent-prompt")).toBe("send a prompt to the agent");
    expect(requestVerb("x-unknown")).toBe("do something on your machine");
    // As in "Ada asks …": which access a guest asks for is said.
    expect(requestAsks("access-ask", requestVerb("access-ask"))).toBe("for edit access");
    expect(requestAsks("term-control", requestVerb("term-control", "Terminal 1"))).toBe("to take control of Terminal 1");
  });
});

describe("the host's approvals", () => {
  const request = (id: string, text: string): ServerFrame => ({
    t: "approval-request",
    id,
    guestId: "g1",
    name: "Ada",
    color: "#e0533d",
    what: "agent-prompt",
    text,
    length: text.length,
    escaped: 0,
    sha256: "",
    subject: "s1",
    expiresInMs: 120_000,
  });

  it("come a page at a time after a welcome that lists only the first, as do the sessions", () => {
    const first = fold([welcomeFrame({ approvals: [request("a1", "one")] as ApprovalRequest[], headsAfter: "0:a1" })]);
    expect(first.asks).toEqual([{ t: "heads-more", after: "0:a1" }]);
    const part: ServerFrame = {
      t: "heads-part",
      approvals: [request("a2", "two")] as ApprovalRequest[],
      sessions: [sessionHead({ id: "s1", lastSeq: 0, title: "Paged" })],
      after: "1:s1",
    };
    const second = receive(first, part);
    expect(second.approvals.map((a) => a.text)).toEqual(["one", "two"]);
    expect(second.sessions.byId.get("s1")?.head?.title).toBe("Paged");
    expect(second.asks).toEqual([{ t: "heads-more", after: "1:s1" }]);
    const last = receive(second, { ...part, approvals: [], sessions: [], after: null });
    expect(last.asks).toEqual([]);
    expect(last.approvals).toHaveLength(2);
  });

  it("queue until answered, a repeated request replacing the first", () => {
    const state = fold([welcome(), request("a1", "hello"), request("a2", "again"), request("a1", "hello!")]);
    expect(state.approvals.map((a) => [a.id, a.text])).toEqual([
      ["a2", "again"],
      ["a1", "hello!"],
    ]);
    const answered = receive(state, { t: "approval-resolved", id: "a2", ref: "agent-prompt", outcome: "approved", text: null, name: "", reason: null });
    expect(answered.approvals.map((a) => a.id)).toEqual(["a1"]);
    expect(answered.notices).toEqual([]);
  });

  it("stay the same list when another's request is resolved", () => {
    const state = fold([welcome(), request("a1", "hello")]);
    const after = receive(state, { t: "approval-resolved", id: "zz", ref: "agent-prompt", outcome: "approved", text: null, name: "", reason: null });
    expect(after.approvals).toBe(state.approvals);
  });
});

describe("notices", () => {
  it("keep the last five, each with its own id", () => {
    const errors: ServerFrame[] = Array.from({ length: 7 }, (_, i) => ({ t: "error", message: `e${i}`, ref: null, kind: "invalid" }));
    const state = fold([welcome("view"), ...errors, { t: "gap", after: 3, reason: "too far behind" }]);
    expect(state.notices.map((n) => n.text)).toEqual(["e2", "e3", "e4", "e5", "e6"]);
    expect(new Set(state.notices.map((n) => n.id)).size).toBe(5);
    const [first] = state.notices;
    expect(dismissNotice(state, first.id).notices.map((n) => n.text)).toEqual(["e3", "e4", "e5", "e6"]);
  });
});

describe("a restart the server announces", () => {
  it("reads as restarting while connected, then lost, until the next welcome", () => {
    const told = fold([welcome(), { t: "restarting" }], initialRoomState("connected"));
    expect(selectConnection(told)).toBe("restarting");
    const lost = withConnection(told, "reconnecting");
    expect(selectConnection(lost)).toBe("restarting");
    const back = receive(withConnection(lost, "connected"), welcome());
    expect(selectConnection(back)).toBe("connected");
    expect(selectConnection(withConnection(back, "reconnecting"))).toBe("reconnecting");
  });

  it("gives way to a connection nothing reconnects from", () => {
    const told = fold([welcome(), { t: "restarting" }], initialRoomState("connected"));
    expect(selectConnection(withConnection(told, "unauthorized"))).toBe("unauthorized");
  });
});

describe("guests as people", () => {
  const person = (peerId: string, name: string) => ({ peerId, name, color: "#112233", access: "edit" as const });

  it("say briefly who came and who went, but not for the first list", () => {
    const first = fold([welcome("host"), { t: "people", people: [person("p", "Host")] }]);
    expect(first.arrivals).toEqual([]);
    const came = receive(first, { t: "people", people: [person("p", "Host"), person("guest-a", "Ada")] });
    expect(came.arrivals.map((a) => a.text)).toEqual(["Ada joined"]);
    const went = receive(came, { t: "people", people: [person("p", "Host")] });
    expect(went.arrivals.map((a) => a.text)).toEqual(["Ada joined", "Ada left"]);
  });

  it("say the host restarted, not that everyone left and joined again", () => {
    const grace = (peerId: string) => ({ peerId, name: "Grace", color: "#112233", access: "host" as const });
    const here = fold([welcome("edit"), { t: "people", people: [grace("host-1"), person("guest-a", "Ada"), person("guest-b", "Bo")] }]);
    const back = fold(
      [
        { t: "restarting" },
        { t: "people", people: [grace("host-1"), person("guest-a", "Ada")] },
        welcome("edit"),
        { t: "people", people: [person("guest-a", "Ada")] },
        { t: "people", people: [person("guest-a", "Ada"), grace("host-9")] },
        { t: "people", people: [person("guest-a", "Ada"), grace("host-9"), person("guest-b", "Bo")] },
        { t: "people", people: [person("guest-a", "Ada"), grace("host-9"), person("guest-b", "Bo"), person("guest-c", "Cy")] },
      ],
      here,
    );
    expect(back.arrivals.map((a) => a.text)).toEqual(["The host restarted canvas", "Cy joined"]);
  });

  it("keep a denied request's text for the guest, and a request told again only once", () => {
    const asked = { t: "request-pending" as const, id: "a1", ref: "agent-prompt", subject: "s1", expiresInMs: 1000, text: "Ada (guest, edit): hi" };
    const waiting = fold([welcome("edit"), asked, asked]);
    expect(waiting.requests).toHaveLength(1);
    const denied = receive(waiting, { t: "approval-resolved", id: "a1", ref: "agent-prompt", outcome: "denied", text: "Ada (guest, edit): hi", name: "Ada", reason: null });
    expect(denied.ended.map((e) => e.text)).toEqual(["Ada (guest, edit): hi"]);
  });

  it("leave the host a line for a request that expired unanswered", () => {
    const request = {
      t: "approval-request" as const,
      id: "a1",
      guestId: "g",
      name: "Ada",
      color: "#112233",
      what: "agent-prompt",
      text: "hi",
      length: 2,
      escaped: 0,
      sha256: "0".repeat(64),
      subject: null,
      expiresInMs: 1000,
    };
    const expired = fold([welcome("host"), request, { t: "approval-resolved", id: "a1", ref: "agent-prompt", outcome: "expired", text: "hi", name: "Ada", reason: null }]);
    expect(expired.approvals).toEqual([]);
    expect(expired.notices.map((n) => n.text)).toEqual(["Ada's prompt to the agent expired before you answered it."]);
    const removed = fold([
      welcome("host"),
      request,
      { t: "approval-resolved", id: "a1", ref: "agent-prompt", outcome: "withdrawn", text: "hi", name: "Ada", reason: "the host removed Ada" },
    ]);
    expect(removed.approvals).toEqual([]);
    expect(removed.notices.map((n) => n.text)).toEqual(["Ada's prompt to the agent no longer waits: the host removed Ada."]);
  });
});
