import { Listeners } from "../listeners";
import type { RoomClient } from "../roomClient";
import type { ServerFrame, SessionHead } from "../protocol.gen";
import { applyAll, empty, type SessionEvent, type Thread } from "./sessionLog";

export interface SessionState {
  head: SessionHead | null;
  thread: Thread;
}

/**
 * Every agent session the room holds, folded from the log as frames arrive. One per client;
 * it asks for what it lacks (`agent-history-request` after its last `seq`) whenever a head or
 * an event shows a gap, so a late start or a reconnect catches up by itself.
 */
export class AgentSessions {
  private sessions = new Map<string, SessionState>();
  private listeners = new Listeners();
  private asked = new Map<string, number>();

  constructor(private client: RoomClient) {
    client.onFrame((frame) => this.receive(frame));
    // Created after the welcome: the history the server sent with it went by unseen, so ask.
    for (const head of (client.welcome?.sessions ?? []) as unknown as SessionHead[]) this.setHead(head, true);
  }

  readonly subscribe = this.listeners.add;

  get(id: string): SessionState | undefined {
    return this.sessions.get(id);
  }

  receive(frame: ServerFrame): void {
    switch (frame.t) {
      case "welcome":
        this.asked.clear();
        // Each session's history follows the welcome unasked (heads first, then histories).
        for (const head of frame.sessions as unknown as SessionHead[]) this.setHead(head, false);
        break;
      case "agent-meta":
        this.setHead(frame.meta, true);
        break;
      case "agent-options": {
        const state = this.sessions.get(frame.sessionId);
        if (state?.head) this.replace(frame.sessionId, { ...state, head: { ...state.head, options: frame.options } });
        break;
      }
      case "agent-event":
        this.add(frame.sessionId, [frame.event as SessionEvent]);
        break;
      case "agent-history":
        this.asked.delete(frame.sessionId);
        this.add(frame.sessionId, frame.events as SessionEvent[]);
        break;
      case "agent-removed":
        this.sessions.delete(frame.sessionId);
        this.notify();
        break;
    }
  }

  private state(id: string): SessionState {
    let state = this.sessions.get(id);
    if (!state) {
      state = { head: null, thread: empty() };
      this.sessions.set(id, state);
    }
    return state;
  }

  private setHead(head: SessionHead, catchUp: boolean): void {
    const state = this.state(head.id);
    this.replace(head.id, { ...state, head });
    if (catchUp) this.catchUp(head.id, head.lastSeq);
  }

  private add(id: string, events: SessionEvent[]): void {
    if (events.length === 0) return;
    const state = this.state(id);
    let have = Math.max(state.thread.lastSeq, 0);
    let end = 0;
    while (end < events.length && events[end].seq <= have + 1) have = Math.max(have, events[end++].seq);
    const thread = applyAll(state.thread, events.slice(0, end));
    if (thread !== state.thread) this.replace(id, { head: state.head, thread });
    // A gap: the events in between come with the history asked for here.
    if (end < events.length) this.catchUp(id, events[end].seq);
  }

  private catchUp(id: string, upTo: number): void {
    const have = Math.max(this.state(id).thread.lastSeq, 0);
    if (upTo <= have || (this.asked.get(id) ?? -1) >= have) return;
    this.asked.set(id, have);
    this.client.send({ t: "agent-history-request", sessionId: id, after: have });
  }

  private replace(id: string, state: SessionState): void {
    this.sessions.set(id, state);
    this.notify();
  }

  private notify(): void {
    this.listeners.emit();
  }
}

const stores = new WeakMap<RoomClient, AgentSessions>();

export function agentSessionsFor(client: RoomClient): AgentSessions {
  let store = stores.get(client);
  if (!store) {
    store = new AgentSessions(client);
    stores.set(client, store);
  }
  return store;
}
