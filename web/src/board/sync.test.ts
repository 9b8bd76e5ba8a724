import { afterEach, describe, expect, it } from "vitest";
import * as Y from "yjs";
import type { ClientFrame, ServerFrame, Welcome } from "../protocol.gen";
import type { RoomClient } from "../roomClient";
import { addItem, fromBase64, readItems, toBase64 } from "./model";
import { AWARENESS_MAX_DRAGGING, AWARENESS_MAX_SELECTION } from "../protocol.gen";
import { BoardSession, withinLimits } from "./sync";
import { welcomeFrame } from "../room/testing";

class FakeClient implements RoomClient {
  sent: ClientFrame[] = [];
  connected = true;
  welcome: Welcome | null = null;
  listeners = new Set<(frame: ServerFrame) => void>();
  send(frame: ClientFrame): boolean {
    if (this.connected) this.sent.push(frame);
    return this.connected;
  }
  onFrame(listener: (frame: ServerFrame) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }
  deliver(frame: ServerFrame): void {
    if (frame.t === "welcome") this.welcome = frame;
    for (const listener of this.listeners) listener(frame);
  }
  updates(): Uint8Array[] {
    return this.sent.flatMap((frame) => (frame.t === "board-update" ? [fromBase64(frame.update)] : []));
  }
}

function welcome(board: Y.Doc, access: Welcome["access"] = "host"): Welcome {
  return welcomeFrame({ access, board: toBase64(Y.encodeStateAsUpdate(board)) });
}

const sessions: BoardSession[] = [];
function start(client: FakeClient): BoardSession {
  const session = new BoardSession(client, "Ann", "#e03131");
  session.start();
  sessions.push(session);
  return session;
}
afterEach(() => sessions.splice(0).forEach((session) => session.stop()));

describe("BoardSession", () => {
  it("loads the welcome, sends own edits and never echoes the server's", () => {
    const server = new Y.Doc();
    server.transact(() => addItem(server.getMap("items"), { kind: "note", x: 0, y: 0, w: 1, h: 1, color: "#ffffff" }, "a"));
    const client = new FakeClient();
    const session = start(client);
    client.deliver(welcome(server));
    expect(readItems(session.items).map((item) => item.id)).toEqual(["a"]);
    expect(client.updates()).toEqual([]);
    session.change(() => addItem(session.items, { kind: "note", x: 1, y: 1, w: 1, h: 1, color: "#ffffff" }, "b"));
    expect(client.updates()).toHaveLength(1);
    Y.applyUpdate(server, client.updates()[0]);
    expect([...server.getMap("items").keys()].sort()).toEqual(["a", "b"]);
  });

  it("asks again what the server lacks after an update it could not take, and gives up a document the server refused", () => {
    const client = new FakeClient();
    const session = start(client);
    client.deliver(welcome(new Y.Doc()));
    client.sent = [];
    let refused = 0;
    session.onRefused(() => refused++);
    client.deliver({ t: "error", ref: "board-update", kind: "invalid", message: "the server restarted" });
    expect(client.sent.map((frame) => frame.t)).toEqual(["board-sync"]);
    expect(refused).toBe(0);
    client.sent = [];
    client.deliver({ t: "error", ref: "board-update", kind: "conflict", message: "the board is full" });
    // Sent again it would be refused again, and every later edit builds on it: the page starts over.
    expect(client.sent).toEqual([]);
    expect(refused).toBe(1);
  });

  it("holds the board of a welcome that came before it, even before it starts", () => {
    const server = new Y.Doc();
    server.transact(() => addItem(server.getMap("items"), { kind: "note", x: 0, y: 0, w: 1, h: 1, color: "#ffffff" }, "a"));
    const client = new FakeClient();
    client.deliver(welcome(server));
    const session = new BoardSession(client, "Ann", "#e03131");
    expect(readItems(session.items).map((item) => item.id)).toEqual(["a"]);
    expect(client.sent).toEqual([]);
  });

  it("says it is whole only once the last part of a board that comes in parts is applied", () => {
    const server = new Y.Doc();
    server.transact(() => addItem(server.getMap("items"), { kind: "note", x: 0, y: 0, w: 1, h: 1, color: "#ffffff" }, "a"));
    const state = Y.encodeStateAsUpdate(server);
    const half = Math.floor(state.length / 2);
    const client = new FakeClient();
    const session = start(client);
    let told = 0;
    session.onWhole(() => told++);
    client.deliver(welcomeFrame({ access: "host", board: toBase64(state.slice(0, half)), boardSize: state.length, boardVersion: 3 }));
    expect(session.whole).toBe(false);
    expect(client.sent).toContainEqual({ t: "board-more", version: 3, offset: half });
    client.deliver({ t: "board-part", version: 3, size: state.length, offset: half, data: toBase64(state.slice(half)), ask: true });
    expect(session.whole).toBe(true);
    expect(told).toBe(1);
    expect(readItems(session.items).map((item) => item.id)).toEqual(["a"]);
  });

  it("undoes only its own changes, and sends the undo", () => {
    const client = new FakeClient();
    const session = start(client);
    client.deliver(welcome(new Y.Doc()));
    session.change(() => addItem(session.items, { kind: "note", x: 0, y: 0, w: 1, h: 1, color: "#ffffff" }, "mine"));
    const other = new Y.Doc();
    Y.applyUpdate(other, Y.encodeStateAsUpdate(session.doc));
    const before = Y.encodeStateVector(other);
    other.transact(() => addItem(other.getMap("items"), { kind: "note", x: 0, y: 0, w: 1, h: 1, color: "#ffffff" }, "theirs"));
    client.deliver({ t: "board-update", update: toBase64(Y.encodeStateAsUpdate(other, before)) });
    const sentBefore = client.updates().length;
    session.undo.undo();
    expect([...session.items.keys()]).toEqual(["theirs"]);
    expect(client.updates().length).toBe(sentBefore + 1);
    session.undo.redo();
    expect([...session.items.keys()].sort()).toEqual(["mine", "theirs"]);
  });

  it("undoes a step on its own even right after another change, and a stream of changes together", () => {
    const client = new FakeClient();
    const session = start(client);
    client.deliver(welcome(new Y.Doc()));
    const note = () => session.items.get("n") as Y.Map<unknown>;
    session.step(() => addItem(session.items, { kind: "note", x: 0, y: 0, w: 1, h: 1, color: "#ffffff" }, "n"));
    session.endStep();
    for (const x of [10, 20, 30]) session.change(() => note().set("x", x));
    session.endStep();
    session.step(() => note().set("w", 5));
    session.undo.undo();
    expect(note().get("w")).toBe(1);
    expect(note().get("x")).toBe(30);
    session.undo.undo();
    expect(note().get("x")).toBe(0);
    session.undo.undo();
    expect(session.items.has("n")).toBe(false);
  });

  it("after a reconnect, sends what the server lacks from its state vector", () => {
    const server = new Y.Doc();
    const client = new FakeClient();
    const session = start(client);
    client.deliver(welcome(server));
    client.connected = false;
    session.change(() => addItem(session.items, { kind: "text", x: 0, y: 0, w: 1, h: 1, color: "#000000", text: "offline" }, "t"));
    client.connected = true;
    client.deliver(welcome(server));
    const request = client.sent.find((frame) => frame.t === "board-sync");
    expect(request).toBeDefined();
    client.deliver({ t: "board-sync", update: toBase64(new Uint8Array([0, 0])), stateVector: toBase64(Y.encodeStateVector(server)) });
    const [missing] = client.updates();
    Y.applyUpdate(server, missing);
    expect(server.getMap("items").has("t")).toBe(true);
  });

  it("makes no edits for a view guest", () => {
    const client = new FakeClient();
    const session = start(client);
    client.deliver(welcome(new Y.Doc(), "view"));
    session.change(() => addItem(session.items, { kind: "note", x: 0, y: 0, w: 1, h: 1, color: "#ffffff" }));
    expect(session.readOnly).toBe(true);
    expect(session.items.size).toBe(0);
    expect(client.updates()).toEqual([]);
  });

  it("tracks others' presence and forgets those who left", () => {
    const client = new FakeClient();
    const session = start(client);
    client.deliver(welcome(new Y.Doc()));
    const state = { name: "Bob", color: "#1971c2", cursor: { x: 1, y: 2 }, selection: [], dragging: [], editing: null, view: null };
    client.deliver({ t: "awareness", peer: "b", state });
    expect(session.peers.get("b")?.state.name).toBe("Bob");
    client.deliver({ t: "awareness", peer: "b", state: null });
    expect(session.peers.size).toBe(0);
    expect(client.sent.some((frame) => frame.t === "awareness")).toBe(true);
  });

  it("keeps its presence within the server's limits, however much is selected or dragged", () => {
    const many = Array.from({ length: 50 }, (_, i) => `item${i}`);
    const state = withinLimits({
      name: "Ann",
      color: "#e03131",
      selection: ["x".repeat(40), ...many],
      dragging: many.map((id) => ({ id, x: 1, y: 2 })),
      editing: "y".repeat(40),
    });
    expect(state.selection).toEqual(many.slice(0, AWARENESS_MAX_SELECTION));
    expect(state.dragging?.map((drag) => drag.id)).toEqual(many.slice(0, AWARENESS_MAX_DRAGGING));
    expect(state.editing).toBeNull();
    expect(JSON.stringify(state).length).toBeLessThan(600);
  });
});
