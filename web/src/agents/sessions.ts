import type { AgentHistory, AgentHistoryRequest, ServerFrame, SessionHead } from "../protocol.gen";
import { advance, applyAll, empty, fold, type SessionEvent, type Thread } from "./sessionLog";

/**
 * The events a client holds of one session: every stored event with `after` < seq ≤ `through`
 * (a range, not a count: a compacted turn leaves gaps in the seqs). `origin` names the page the
 * range grew from, so a view can tell a range it asked an older page for from a new one.
 */
export interface Held {
  events: readonly SessionEvent[];
  after: number;
  through: number;
  origin: string;
}

/** One agent session as a client sees it: the head the server last sent and the folded thread. */
export interface Session {
  head: SessionHead | null;
  thread: Thread;
  /** What the thread is folded from; null until the first page or event (the newest page is on its way). */
  held: Held | null;
  /** Older events exist that this client has not loaded: the top of the thread is not the start. */
  hasOlder: boolean;
}

/** Every agent session of the room, and the pages this client asked for and has not got yet. */
export interface Sessions {
  byId: ReadonlyMap<string, Session>;
  /** Per session: the request made and not answered yet (one at a time). */
  asked: ReadonlyMap<string, AgentHistoryRequest>;
}

export const NO_SESSIONS: Sessions = { byId: new Map(), asked: new Map() };

/** What one frame did to the sessions, and the pages it makes this client ask for. */
export interface SessionsStep {
  sessions: Sessions;
  asks: AgentHistoryRequest[];
}

const NOTHING: Held = { events: [], after: 0, through: 0, origin: "none" };

/**
 * Folds an agent frame into the sessions (the same log fold on every client). The server sends
 * each session's head with `welcome`, then the newest page of its history; older pages come when
 * the view asks for them (`olderPage`), and a gap in the live events (a late start, a dropped
 * frame) is filled page by page after the last event held; other frames leave `sessions` as it was.
 */
export function receiveSessions(sessions: Sessions, frame: ServerFrame): SessionsStep {
  const step = new Step(sessions);
  switch (frame.t) {
    case "welcome":
      // A full resync: the newest page of each session follows unasked. What is shown stays until
      // it comes, so a reconnect does not blank the threads.
      step.reset(frame.sessions);
      break;
    case "heads-part":
      step.addHeads(frame.sessions);
      break;
    case "agent-meta":
      step.setHead(frame.meta);
      step.catchUp(frame.meta.id);
      break;
    case "agent-options": {
      const session = step.byId.get(frame.sessionId);
      if (session?.head) step.set(frame.sessionId, { head: { ...session.head, options: frame.options } });
      break;
    }
    case "agent-event":
      step.addEvent(frame.sessionId, frame.event);
      break;
    case "agent-history":
      step.addPage(frame);
      break;
    case "agent-compacted":
      step.compacted(frame.sessionId, frame.after, frame.through);
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

/** The request for the page before the oldest event held, or null when nothing is older. */
export function olderPage(id: string, session: Session | undefined): AgentHistoryRequest | null {
  const held = session?.held;
  return held && held.after > 0 ? { t: "agent-history-request", sessionId: id, before: held.after + 1 } : null;
}

/** The sessions being changed by one frame: copies, so the state before stays as it was. */
class Step {
  readonly byId: Map<string, Session>;
  readonly asked: Map<string, AgentHistoryRequest>;
  readonly asks: AgentHistoryRequest[] = [];

  constructor(private readonly before: Sessions) {
    this.byId = new Map(before.byId);
    this.asked = new Map(before.asked);
  }

  result(): SessionsStep {
    const unchanged = sameEntries(this.byId, this.before.byId) && sameEntries(this.asked, this.before.asked);
    return { sessions: unchanged ? this.before : { byId: this.byId, asked: this.asked }, asks: this.asks };
  }

  reset(heads: SessionHead[]): void {
    const shown = new Map(this.byId);
    this.byId.clear();
    this.asked.clear();
    this.addHeads(heads, shown);
  }

  /** The heads of a welcome, or of a later page of its list: each session's newest page comes unasked. */
  addHeads(heads: SessionHead[], shown: ReadonlyMap<string, Session> = this.byId): void {
    for (const head of heads) {
      if (this.byId.get(head.id)?.held) {
        // Its page came before its head (the pages follow the welcome, the heads are paged).
        this.setHead(head);
        continue;
      }
      const held = head.lastSeq > 0 ? null : NOTHING;
      this.byId.set(head.id, { head, thread: shown.get(head.id)?.thread ?? empty(), held, hasOlder: head.lastSeq > 0 });
      // Its newest page is on its way unasked: as good as asked for.
      if (held === null) this.asked.set(head.id, { t: "agent-history-request", sessionId: head.id });
    }
  }

  setHead(head: SessionHead): void {
    const session = this.session(head.id);
    const held = session.held ?? (head.lastSeq === 0 ? NOTHING : null);
    this.set(head.id, { head, held, hasOlder: held ? held.after > 0 : head.lastSeq > 0 });
  }

  addEvent(id: string, event: SessionEvent): void {
    this.advanceHead(id, [event]);
    const session = this.session(id);
    const held = session.held;
    if (held === null) {
      // Nothing held yet (the newest page is on its way): start from this event; the page joins it.
      const origin = `event ${event.seq}`;
      this.set(id, { held: { events: [event], after: event.seq - 1, through: event.seq, origin }, thread: fold([event]) });
      this.set(id, { hasOlder: event.seq > 1 });
    } else if (event.seq === held.through + 1) {
      this.set(id, {
        held: { ...held, events: [...held.events, event], through: event.seq },
        thread: applyAll(session.thread, [event]),
      });
    } else if (event.seq > held.through) {
      // A gap: the events in between (this one too: it is stored) come with the page asked for.
      this.ask({ t: "agent-history-request", sessionId: id, after: held.through });
    }
  }

  /** The head follows every event newer than it: its status is the whole log's, whatever pages are held. */
  private advanceHead(id: string, events: readonly SessionEvent[]): void {
    const head = this.byId.get(id)?.head;
    if (head) this.set(id, { head: events.reduce(advance, head) });
  }

  addPage(page: AgentHistory): void {
    const id = page.sessionId;
    const asked = this.asked.get(id);
    // An older page the view asked for answers nothing asked here.
    if (asked && (asked.after == null || asked.after === page.after)) this.asked.delete(id);
    const events = page.events as SessionEvent[];
    this.advanceHead(id, events);
    const session = this.session(id);
    const held = session.held;
    if (held === null || page.after > held.through) {
      // The first page, or one past a gap that cannot be bridged: start over from it.
      const origin = `page ${page.after}-${page.through}`;
      this.set(id, { held: { events, after: page.after, through: page.through, origin }, thread: fold(events) });
    } else if (page.through >= held.after) {
      const older = events.filter((e) => e.seq <= held.after);
      const newer = events.filter((e) => e.seq > held.through);
      const merged: Held = {
        events: [...older, ...held.events, ...newer],
        after: Math.min(held.after, page.after),
        through: Math.max(held.through, page.through),
        origin: held.origin,
      };
      // An older page changes how everything after it folds (a message it begins, a tool it
      // started), so the thread is folded again; newer events just apply.
      this.set(id, { held: merged, thread: older.length ? fold(merged.events) : applyAll(session.thread, newer) });
    }
    this.set(id, { hasOlder: (this.session(id).held?.after ?? 0) > 0 });
    this.catchUp(id);
  }

  /**
   * The events after `after` through `through` were rewritten on the server. Raw events fold like
   * compacted ones, but the two must not be mixed in one range: keep only a side of it.
   */
  compacted(id: string, after: number, through: number): void {
    const held = this.byId.get(id)?.held;
    if (!held) return;
    const holdsStart = held.after <= after;
    const holdsEnd = held.through >= through;
    if (held.after >= through || held.through <= after || (holdsStart && holdsEnd)) return;
    let kept: Held;
    if (holdsStart) {
      kept = { ...held, events: held.events.filter((e) => e.seq <= after), through: after };
    } else if (holdsEnd) {
      kept = { ...held, events: held.events.filter((e) => e.seq > through), after: through };
    } else {
      this.set(id, { held: null });
      this.ask({ t: "agent-history-request", sessionId: id });
      return;
    }
    this.set(id, { held: kept, thread: fold(kept.events), hasOlder: kept.after > 0 });
    this.catchUp(id);
  }

  catchUp(id: string): void {
    const session = this.byId.get(id);
    const held = session?.held;
    if (held && session.head && session.head.lastSeq > held.through) {
      this.ask({ t: "agent-history-request", sessionId: id, after: held.through });
    } else if (!held && session?.head && session.head.lastSeq > 0) {
      this.ask({ t: "agent-history-request", sessionId: id });
    }
  }

  set(id: string, change: Partial<Session>): void {
    const session = this.session(id);
    if (Object.entries(change).every(([key, value]) => session[key as keyof Session] === value)) return;
    this.byId.set(id, { ...session, ...change });
  }

  /** One page at a time per session: the next is asked for once the last one came. */
  private ask(request: AgentHistoryRequest): void {
    if (this.asked.has(request.sessionId)) return;
    this.asked.set(request.sessionId, request);
    this.asks.push(request);
  }

  private session(id: string): Session {
    return this.byId.get(id) ?? { head: null, thread: empty(), held: null, hasOlder: false };
  }
}

function sameEntries<K, V>(a: ReadonlyMap<K, V>, b: ReadonlyMap<K, V>): boolean {
  if (a.size !== b.size) return false;
  for (const [key, value] of a) if (b.get(key) !== value) return false;
  return true;
}
