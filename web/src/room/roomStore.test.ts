import { describe, expect, it } from "vitest";
import type { Connection } from "../connection";
import { Listeners } from "../listeners";
import type { ClientFrame, ServerFrame } from "../protocol.gen";
import { RoomStore } from "./roomStore";
import { welcomeFrame } from "./testing";
import { logged } from "../agents/testing";

/** A stand-in for the WebSocket or data channel: the test plays the server's side. */
class ScriptedConnection implements Connection<"idle" | "connected"> {
  state: "idle" | "connected" = "idle";
  running = false;
  sent: ClientFrame[] = [];
  private readonly frames = new Listeners<ServerFrame>();
  private readonly states = new Listeners<"idle" | "connected">();
  readonly onFrame = this.frames.add;
  readonly onState = this.states.add;

  send(frame: ClientFrame): boolean {
    this.sent.push(frame);
    return true;
  }
  start(): void {
    this.running = true;
    this.state = "connected";
    this.states.emit(this.state);
  }
  stop(): void {
    this.running = false;
  }
  play(frame: ServerFrame): void {
    this.frames.emit(frame);
  }
}

const welcome = welcomeFrame({ access: "edit" });

describe("RoomStore", () => {
  it("runs the connection and folds what it hears, telling subscribers", () => {
    const connection = new ScriptedConnection();
    const store = new RoomStore(connection);
    expect(store.getState().connection).toBe("idle");
    let changes = 0;
    store.subscribe(() => changes++);
    const stop = store.start();
    expect(store.getState().connection).toBe("connected");
    connection.play(welcome);
    expect(store.welcome?.access).toBe("edit");
    expect(changes).toBe(2);
    stop();
    expect(connection.running).toBe(false);
    connection.play({ t: "access", access: "view", grantedTerminals: [] });
    expect(store.welcome?.access).toBe("edit");
  });

  it("lets frame listeners read the state their frame made", () => {
    const connection = new ScriptedConnection();
    const store = new RoomStore(connection);
    store.start();
    const seen: (string | undefined)[] = [];
    store.onFrame(() => seen.push(store.getState().welcome?.access));
    connection.play(welcome);
    connection.play({ t: "access", access: "trusted", grantedTerminals: [] });
    expect(seen).toEqual(["edit", "trusted"]);
  });

  it("sends the history requests a gap calls for", () => {
    const connection = new ScriptedConnection();
    const store = new RoomStore(connection);
    store.start();
    connection.play(welcome);
    connection.play({ t: "agent-event", sessionId: "s1", event: logged({ seq: 1, kind: "turn", text: "hi" }) });
    connection.play({ t: "agent-event", sessionId: "s1", event: logged({ seq: 3, kind: "turn", text: "hi" }) });
    connection.play({ t: "pong" });
    expect(connection.sent).toEqual([{ t: "agent-history-request", sessionId: "s1", after: 1 }]);
  });
});
