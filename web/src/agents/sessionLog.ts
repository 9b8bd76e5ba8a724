/**
 * Fold an agent session's event log into the thread every screen shows: a line-by-line port
 * of `canvasrelay/session_log.py`. Both pass the JSON vectors in `tests/vectors/session_log/`;
 * change one, change the other and the vectors.
 *
 * One difference: the Python fold changes its thread in place, this one never does. React (and
 * the memoised rows) see a change only in a new object, and a change can reach any item, not
 * just the current turn's (a late tool update, a permission resolved in a catch-up batch, a
 * turn-end closing older ones). So `apply` returns a new thread in which exactly the items that
 * changed are new objects and the others are shared.
 */

/* eslint-disable @typescript-eslint/no-explicit-any */
export type SessionEvent = { seq: number; kind?: string; [key: string]: any };

/** What the host is shown of a tool call before answering (canvasrelay/core/permission_preview.py). */
export interface PermissionPreview {
  kind: string;
  paths: string[];
  command: string | null;
  commandChars: number | null;
  changes: { path: string; bytes: number; lines: number; diff?: string; head?: string; truncated: boolean }[];
  rules: Partial<Record<"always" | "never", { permission: string; pattern: string }>>;
  /** False when the agent named no path or command: "always" and "never" are not offered. */
  named?: boolean;
}

export interface PermissionOption {
  optionId: string;
  name?: string;
  kind?: string;
}

export type Item =
  | { type: "user"; seq: number; text: string; author: string | null; time: number | null }
  | { type: "message" | "thought"; seq: number; text: string }
  | {
      type: "tool";
      seq: number;
      toolCallId: string;
      title: string;
      kind: string;
      status: string;
      content: any[];
      locations: any[];
    }
  | { type: "plan"; seq: number; entries: { content: string; status?: string; priority?: string }[] }
  | {
      type: "permission";
      seq: number;
      requestId: string;
      toolCallId: string | null;
      title: string;
      options: PermissionOption[];
      preview: PermissionPreview | null;
      resolution: { optionId: string | null; by: string | null; answer: string | null } | null;
    }
  | { type: "turn-end"; seq: number; error: string | null; errorDetail?: string; cancelled: boolean; interrupted: boolean }
  | { type: "notice"; seq: number; text: string };

export interface Thread {
  status: "idle" | "running" | "waiting";
  items: Item[];
  lastSeq: number;
  /** From a `turn` to its `turn-end`; the status follows from it and the open permissions. */
  turnOpen: boolean;
}

const MERGED_CHUNKS: Record<string, "message" | "thought"> = {
  agent_message_chunk: "message",
  agent_thought_chunk: "thought",
};
const TOOL_FIELDS = ["title", "kind", "status", "content", "locations"] as const;
const UNFINISHED_TOOL = ["pending", "in_progress"];
const STATUS_KINDS = new Set<string | undefined>(["turn", "permission", "permission-resolved", "turn-end"]);

type ItemOf<T extends Item["type"]> = Extract<Item, { type: T }>;

export function empty(): Thread {
  return { status: "idle", items: [], lastSeq: -1, turnOpen: false };
}

export function fold(events: Iterable<SessionEvent>): Thread {
  return applyAll(empty(), events);
}

export function apply(thread: Thread, event: SessionEvent): Thread {
  return applyAll(thread, [event]);
}

/**
 * The thread after `events`; `thread` is left as it was. A batch (a page of history) copies the
 * item list once and each changed item once, so catching up on a long log stays linear.
 */
export function applyAll(thread: Thread, events: Iterable<SessionEvent>): Thread {
  const draft = new Draft(thread);
  for (const event of events) draft.apply(event);
  return draft.done();
}

/** Copy-on-write over one thread: the items array and each item are copied on first change. */
class Draft {
  status: Thread["status"];
  lastSeq: number;
  turnOpen: boolean;
  items: Item[];
  private copiedList = false;
  private own = new WeakSet<Item>();

  constructor(private base: Thread) {
    this.status = base.status;
    this.lastSeq = base.lastSeq;
    this.turnOpen = base.turnOpen;
    this.items = base.items;
  }

  done(): Thread {
    const base = this.base;
    const same = this.status === base.status && this.lastSeq === base.lastSeq && this.turnOpen === base.turnOpen;
    if (!this.copiedList && same) return base;
    return { status: this.status, items: this.items, lastSeq: this.lastSeq, turnOpen: this.turnOpen };
  }

  private list(): Item[] {
    if (!this.copiedList) {
      this.items = [...this.items];
      this.copiedList = true;
    }
    return this.items;
  }

  private push(item: Item): void {
    this.list().push(item);
    this.own.add(item);
  }

  /** The item at `index`, safe to change: the base's items are copied first. */
  private edit<T extends Item>(index: number): T {
    const item = this.items[index];
    if (this.own.has(item)) return item as T;
    const copy = { ...item };
    this.list()[index] = copy;
    this.own.add(copy);
    return copy as T;
  }

  apply(event: SessionEvent): void {
    const seq = event.seq;
    if (seq <= this.lastSeq) return;
    this.lastSeq = seq;
    const kind = event.kind;
    if (kind === "turn") {
      this.push({
        type: "user",
        seq,
        text: event.text ?? "",
        author: event.author ?? null,
        time: event.time ?? null,
      });
      this.turnOpen = true;
    } else if (kind === "chunk") {
      this.applyUpdate(seq, event.update ?? {});
    } else if (kind === "permission") {
      this.push({
        type: "permission",
        seq,
        requestId: event.requestId,
        toolCallId: event.toolCallId ?? null,
        title: event.title ?? "",
        options: event.options ?? [],
        preview: event.preview ?? null,
        resolution: null,
      });
    } else if (kind === "permission-resolved") {
      this.resolvePermission(event);
    } else if (kind === "turn-end") {
      this.endTurn(seq, event);
    } else if (kind === "notice") {
      this.push({ type: "notice", seq, text: event.text ?? "" });
    }
    if (STATUS_KINDS.has(kind)) this.status = nextStatus(this.turnOpen, this.openPermissions());
  }

  private openPermissions(): number {
    return this.items.filter((item) => item.type === "permission" && item.resolution === null).length;
  }

  private applyUpdate(seq: number, update: any): void {
    const lastIndex = this.items.length - 1;
    const last = lastIndex >= 0 ? this.items[lastIndex] : null;
    const kind = update?.sessionUpdate;
    if (typeof kind === "string" && kind in MERGED_CHUNKS) {
      const itemType = MERGED_CHUNKS[kind];
      const text = contentText(update.content);
      if (last !== null && last.type === itemType) this.edit<ItemOf<"message" | "thought">>(lastIndex).text += text;
      else this.push({ type: itemType, seq, text });
    } else if (kind === "user_message_chunk") {
      const text = contentText(update.content);
      if (last !== null && last.type === "user" && last.author === null) this.edit<ItemOf<"user">>(lastIndex).text += text;
      else this.push({ type: "user", seq, text, author: null, time: null });
    } else if (kind === "tool_call" || kind === "tool_call_update") {
      this.applyTool(seq, update);
    } else if (kind === "plan") {
      const plan = this.currentTurnPlan();
      const entries = update.entries ?? [];
      if (plan === -1) this.push({ type: "plan", seq, entries });
      else this.edit<ItemOf<"plan">>(plan).entries = entries;
    }
  }

  private applyTool(seq: number, update: any): void {
    const toolCallId = update.toolCallId;
    let index = this.items.length - 1;
    while (index >= 0) {
      const item = this.items[index];
      if (item.type === "tool" && item.toolCallId === toolCallId) break;
      index--;
    }
    let tool: ItemOf<"tool">;
    if (index === -1) {
      tool = { type: "tool", seq, toolCallId, title: "", kind: "other", status: "pending", content: [], locations: [] };
      this.push(tool);
    } else {
      tool = this.edit<ItemOf<"tool">>(index);
    }
    for (const field of TOOL_FIELDS) {
      if (update[field] !== undefined && update[field] !== null) (tool as any)[field] = update[field];
    }
  }

  /** The index of the latest plan item of the current turn, or -1. */
  private currentTurnPlan(): number {
    for (let i = this.items.length - 1; i >= 0; i--) {
      const item = this.items[i];
      if (item.type === "plan") return i;
      if (item.type === "user") return -1;
    }
    return -1;
  }

  private resolvePermission(event: SessionEvent): void {
    for (let i = 0; i < this.items.length; i++) {
      const item = this.items[i];
      if (item.type === "permission" && item.requestId === event.requestId && item.resolution === null) {
        this.edit<ItemOf<"permission">>(i).resolution = {
          optionId: event.optionId ?? null,
          by: event.by ?? null,
          answer: event.answer ?? null,
        };
      }
    }
  }

  private endTurn(seq: number, event: SessionEvent): void {
    for (let i = 0; i < this.items.length; i++) {
      const item = this.items[i];
      if (item.type === "permission" && item.resolution === null) {
        this.edit<ItemOf<"permission">>(i).resolution = { optionId: null, by: null, answer: null };
      } else if (item.type === "tool" && UNFINISHED_TOOL.includes(item.status)) {
        this.edit<ItemOf<"tool">>(i).status = "failed";
      }
    }
    const error = event.error;
    const cancelled = Boolean(event.cancelled);
    const interrupted = Boolean(event.interrupted);
    if (error || cancelled || interrupted) {
      this.push({ type: "turn-end", seq, error: error || null, errorDetail: event.errorDetail || undefined, cancelled, interrupted });
    }
    this.turnOpen = false;
  }
}

/** The state a session's head keeps of its log: enough to say its status without its events. */
export interface HeadState {
  status: Thread["status"];
  lastSeq: number;
  turnOpen: boolean;
  openPermissions: string[];
}

/**
 * The head after one more event (session_log.advance): what `fold` of the whole log would say of
 * status and lastSeq, for a client that holds only the newest pages. Returns `head` itself when
 * the event is not newer.
 */
export function advance<H extends HeadState>(head: H, event: SessionEvent): H {
  if (event.seq <= head.lastSeq) return head;
  let { turnOpen, openPermissions } = head;
  if (event.kind === "turn") turnOpen = true;
  else if (event.kind === "permission") openPermissions = [...openPermissions, String(event.requestId)];
  else if (event.kind === "permission-resolved") openPermissions = openPermissions.filter((r) => r !== event.requestId);
  else if (event.kind === "turn-end") [turnOpen, openPermissions] = [false, []];
  return { ...head, lastSeq: event.seq, turnOpen, openPermissions, status: nextStatus(turnOpen, openPermissions.length) };
}

/** The one status rule (session_log._next_status): waiting while a permission is unanswered,
 * else running while a turn is open, else idle. */
function nextStatus(turnOpen: boolean, openPermissions: number): Thread["status"] {
  return openPermissions > 0 ? "waiting" : turnOpen ? "running" : "idle";
}

function contentText(block: any): string {
  if (typeof block !== "object" || block === null || Array.isArray(block)) return "";
  if (block.type === "text") return block.text ?? "";
  if (block.type === "resource_link") return "[" + (block.name ?? "") + "](" + (block.uri ?? "") + ")";
  return "";
}

/**
 * What a session's status pill says: a session whose last turn the server interrupted (it stopped
 * or restarted) reads "interrupted" until its next turn, so nobody takes it for finished.
 */
export function shownStatus(status: string, items: readonly Item[]): string {
  const last = items.at(-1);
  return status === "idle" && last?.type === "turn-end" && last.interrupted ? "interrupted" : status;
}
