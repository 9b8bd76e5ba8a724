import { Listeners } from "../listeners";
import type { RoomClient } from "../roomClient";
import type { AgentHistory, ServerFrame, SessionHead } from "../protocol.gen";
import { applyAll, empty, fold, type SessionEvent, type Thread } from "./sessionLog";

export interface SessionState {
  head: SessionHead | null;
  thread: Thread;
  /** Older events exist that this client has not loaded (the top of the thread is not the start). */
  hasOlder: boolean;
  /** An older page was asked for and has not come yet. */
  loadingOlder: boolean;
}

/**
 * The events a client holds of one session: every stored event with `after` < seq ≤ `through`
 * (a range, not a count: a log compacted at start-up has gaps in its seqs).
 */
interface Held {
  events: SessionEvent[];
  after: number;
  through: number;
}

interface Entry {
  state: SessionState;
  held: Held | null;
  /** What the page asked for and not yet come is for, if one is. */
  asking: "older" | "newer" | "newest" | null;
}

const NOTHING: Held = { events: [], after: 0, through: 0 };

/**
 * Every agent session the room holds, as far as this client has loaded it. The server sends each
 * session's head with `welcome`, then the newest page of its history; older pages come when the
 * view asks (`loadOlder`, as the reader scrolls up), one page at a time, and a gap in the live
 * events (a late start, a dropped frame) is filled page by page after the last event held.
 */
export class AgentSessions {
  private entries = new Map<string, Entry>();
  private listeners = new Listeners();

  constructor(private client: RoomClient) {
    client.onFrame((frame) => this.receive(frame));
    // Created after the welcome: the pages the server sent with it went by unseen, so ask.
    for (const head of (client.welcome?.sessions ?? []) as unknown as SessionHead[]) {
      this.setHead(head);
      this.ask(head.id, "newest");
    }
  }

  readonly subscribe = this.listeners.add;

  get(id: string): SessionState | undefined {
    return this.entries.get(id)?.state;
  }

  /** Ask for the page before the oldest event held, unless one is on its way or nothing is older. */
  loadOlder(id: string): void {
    const entry = this.entries.get(id);
    if (entry?.held && entry.held.after > 0) this.ask(id, "older");
  }

  receive(frame: ServerFrame): void {
    switch (frame.t) {
      case "welcome":
        // A full resync: the newest page of each session follows unasked. What is shown stays
        // until it comes, so a reconnect does not blank the threads.
        this.reset((frame.sessions ?? []) as unknown as SessionHead[]);
        break;
      case "agent-meta":
        this.setHead(frame.meta);
        this.catchUp(frame.meta.id);
        break;
      case "agent-options": {
        const entry = this.entries.get(frame.sessionId);
        if (entry?.state.head) this.update(entry, { head: { ...entry.state.head, options: frame.options } });
        break;
      }
      case "agent-event":
        this.addEvent(frame.sessionId, frame.event as SessionEvent);
        break;
      case "agent-history":
        this.addPage(frame);
        break;
      case "agent-compacted":
        this.compacted(frame.sessionId, frame.after, frame.through);
        break;
      case "agent-removed":
        this.entries.delete(frame.sessionId);
        this.notify();
        break;
    }
  }

  private entry(id: string): Entry {
    let entry = this.entries.get(id);
    if (!entry) {
      entry = { state: { head: null, thread: empty(), hasOlder: false, loadingOlder: false }, held: null, asking: null };
      this.entries.set(id, entry);
    }
    return entry;
  }

  private reset(heads: SessionHead[]): void {
    const kept = new Map<string, Entry>();
    for (const head of heads) {
      const shown = this.entries.get(head.id)?.state.thread ?? empty();
      const held = head.lastSeq > 0 ? null : NOTHING;
      kept.set(head.id, {
        state: { head, thread: shown, hasOlder: head.lastSeq > 0, loadingOlder: false },
        held,
        asking: null,
      });
    }
    this.entries = kept;
    this.notify();
  }

  private setHead(head: SessionHead): void {
    const entry = this.entry(head.id);
    if (!entry.held && head.lastSeq === 0) entry.held = NOTHING;
    this.update(entry, { head, hasOlder: this.older(entry.held, head) });
  }

  private addEvent(id: string, event: SessionEvent): void {
    const entry = this.entry(id);
    const held = entry.held;
    if (held === null) {
      // Nothing held yet (the newest page is on its way): start from this event; the page joins it.
      entry.held = { events: [event], after: event.seq - 1, through: event.seq };
      this.update(entry, { thread: fold([event]), hasOlder: event.seq > 1 });
    } else if (event.seq === held.through + 1) {
      entry.held = { ...held, events: [...held.events, event], through: event.seq };
      this.update(entry, { thread: applyAll(entry.state.thread, [event]) });
    } else if (event.seq > held.through) {
      // A gap: the events in between (this one too: it is stored) come with the page asked for.
      this.ask(id, "newer");
    }
  }

  private addPage(page: AgentHistory): void {
    const entry = this.entry(page.sessionId);
    entry.asking = null;
    const events = page.events as SessionEvent[];
    const held = entry.held;
    if (held === null || page.after > held.through) {
      // The first page, or one past a gap that cannot be bridged: start over from it.
      entry.held = { events, after: page.after, through: page.through };
      this.update(entry, { thread: fold(events) });
    } else if (page.through >= held.after) {
      const older = events.filter((e) => e.seq <= held.after);
      const newer = events.filter((e) => e.seq > held.through);
      entry.held = {
        events: [...older, ...held.events, ...newer],
        after: Math.min(held.after, page.after),
        through: Math.max(held.through, page.through),
      };
      // An older page changes how everything after it folds (a message it begins, a tool it
      // started), so the thread is folded again; newer events just apply.
      const thread = older.length ? fold(entry.held.events) : applyAll(entry.state.thread, newer);
      this.update(entry, { thread });
    }
    this.update(entry, { hasOlder: this.older(entry.held, entry.state.head), loadingOlder: false });
    this.catchUp(page.sessionId);
  }

  /**
   * The events after `after` through `through` were rewritten on the server. Raw events fold like
   * compacted ones, but the two must not be mixed in one range: keep only a side of it.
   */
  private compacted(id: string, after: number, through: number): void {
    const entry = this.entries.get(id);
    const held = entry?.held;
    if (!entry || !held) return;
    const holdsStart = held.after <= after;
    const holdsEnd = held.through >= through;
    if (held.after >= through || held.through <= after || (holdsStart && holdsEnd)) return;
    if (holdsStart) {
      entry.held = { events: held.events.filter((e) => e.seq <= after), after: held.after, through: after };
    } else if (holdsEnd) {
      entry.held = { events: held.events.filter((e) => e.seq > through), after: through, through: held.through };
    } else {
      entry.held = null;
      this.ask(id, "newest");
      return;
    }
    this.update(entry, { thread: fold(entry.held.events), hasOlder: entry.held.after > 0 });
    this.catchUp(id);
  }

  private older(held: Held | null, head: SessionHead | null): boolean {
    return held === null ? (head?.lastSeq ?? 0) > 0 : held.after > 0;
  }

  private catchUp(id: string): void {
    const entry = this.entries.get(id);
    const head = entry?.state.head;
    if (entry?.held && head && head.lastSeq > entry.held.through) this.ask(id, "newer");
  }

  /** One page at a time per session: the next is asked for once the last one came. */
  private ask(id: string, what: "older" | "newer" | "newest"): void {
    const entry = this.entry(id);
    const held = entry.held;
    if (entry.asking !== null) return;
    let sent = false;
    if (what === "newest" && (entry.state.head?.lastSeq ?? 0) > 0) {
      sent = this.client.send({ t: "agent-history-request", sessionId: id });
    } else if (what === "older" && held) {
      sent = this.client.send({ t: "agent-history-request", sessionId: id, before: held.after + 1 });
      if (sent) this.update(entry, { loadingOlder: true });
    } else if (what === "newer" && held) {
      sent = this.client.send({ t: "agent-history-request", sessionId: id, after: held.through });
    }
    if (sent) entry.asking = what;
  }

  private update(entry: Entry, change: Partial<SessionState>): void {
    const state = entry.state;
    if (Object.entries(change).every(([key, value]) => state[key as keyof SessionState] === value)) return;
    entry.state = { ...state, ...change };
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
