import type { AgentHistoryRequest, ServerFrame, SessionHead } from "../protocol.gen";
import { applyAll, empty, type SessionEvent, type Thread } from "./sessionLog";

/** One agent session as a client sees it: the head the server last sent and the folded thread. */
export interface Session {
  head: SessionHead | null;
  thread: Thread;
}

/** Every agent session of the room, and which ones this client has asked to catch up. */
export interface Sessions {
  byId: ReadonlyMap<string, Session>;
  /** Per session asked for: how far its thread went when it asked (`after` of the request). */
  asked: ReadonlyMap<string, number>;
}

export const NO_SESSIONS: Sessions = { byId: new Map(), asked: new Map() };

/** What one frame did to the sessions, and the histories it makes this client ask for. */
export interface SessionsStep {
  sessions: Sessions;
  asks: AgentHistoryRequest[];
}

/**
 * Folds an agent frame into the sessions (the same log fold on every client). Whenever a head
 * or an event shows a gap, the step asks for the history after the thread's last `seq`, so a
 * late start or a reconnect catches up by itself; other frames leave `sessions` as it was.
 */
export function receiveSessions(sessions: Sessions, frame: ServerFrame): SessionsStep {
  const step = new Step(sessions);
  switch (frame.t) {
    case "welcome":
      step.asked.clear();
      // Each session's history follows the welcome unasked (heads first, then histories).
      for (const head of frame.sessions as unknown as SessionHead[]) step.setHead(head, false);
      break;
    case "agent-meta":
      step.setHead(frame.meta, true);
      break;
    case "agent-options": {
      const session = step.byId.get(frame.sessionId);
      if (session?.head) step.byId.set(frame.sessionId, { ...session, head: { ...session.head, options: frame.options } });
      break;
    }
    case "agent-event":
      step.add(frame.sessionId, [frame.event as SessionEvent]);
      break;
    case "agent-history":
      step.asked.delete(frame.sessionId);
      step.add(frame.sessionId, frame.events as SessionEvent[]);
      break;
    case "agent-removed":
      step.byId.delete(frame.sessionId);
      step.asked.delete(frame.sessionId);
      break;
    default:
      return { sessions, asks: [] };
  }
  return step.result();
}

/** The sessions being changed by one frame: copies, so the state before stays as it was. */
class Step {
  readonly byId: Map<string, Session>;
  readonly asked: Map<string, number>;
  readonly asks: AgentHistoryRequest[] = [];

  constructor(private readonly before: Sessions) {
    this.byId = new Map(before.byId);
    this.asked = new Map(before.asked);
  }

  result(): SessionsStep {
    const unchanged = sameEntries(this.byId, this.before.byId) && sameEntries(this.asked, this.before.asked);
    return { sessions: unchanged ? this.before : { byId: this.byId, asked: this.asked }, asks: this.asks };
  }

  setHead(head: SessionHead, catchUp: boolean): void {
    this.byId.set(head.id, { ...this.session(head.id), head });
    if (catchUp) this.catchUp(head.id, head.lastSeq);
  }

  add(id: string, events: SessionEvent[]): void {
    if (events.length === 0) return;
    const session = this.session(id);
    let have = Math.max(session.thread.lastSeq, 0);
    let end = 0;
    while (end < events.length && events[end].seq <= have + 1) have = Math.max(have, events[end++].seq);
    const thread = applyAll(session.thread, events.slice(0, end));
    this.byId.set(id, thread === session.thread ? session : { head: session.head, thread });
    // A gap: the events in between come with the history asked for here.
    if (end < events.length) this.catchUp(id, events[end].seq);
  }

  private session(id: string): Session {
    return this.byId.get(id) ?? { head: null, thread: empty() };
  }

  private catchUp(id: string, upTo: number): void {
    const have = Math.max(this.session(id).thread.lastSeq, 0);
    if (upTo <= have || (this.asked.get(id) ?? -1) >= have) return;
    this.asked.set(id, have);
    this.asks.push({ t: "agent-history-request", sessionId: id, after: have });
  }
}

function sameEntries<K, V>(a: ReadonlyMap<K, V>, b: ReadonlyMap<K, V>): boolean {
  if (a.size !== b.size) return false;
  for (const [key, value] of a) if (b.get(key) !== value) return false;
  return true;
}
