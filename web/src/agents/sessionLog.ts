/**
 * Fold an agent session's event log into the thread every screen shows: a line-by-line port
 * of `canvasrelay/core/session_log.py`. Both pass the JSON vectors in `tests/vectors/session_log/`;
 * change one, change the other and the vectors. Events and items are the generated types of
 * `canvasrelay/protocol/session_events.py`.
 *
 * One difference: the Python fold changes its thread in place, this one never does. React (and
 * the memoised rows) see a change only in a new object, and a change can reach any item, not
 * just the current turn's (a late tool update, a permission resolved in a catch-up batch, a
 * turn-end closing older ones). So `apply` returns a new thread in which exactly the items that
 * changed are new objects and the others are shared.
 *
 * Events read from the store leave out fields at their defaults, and an older log may hold what
 * the models no longer name: every field is read as possibly absent.
 */
import type {
  AvailableCommandsUpdate,
  ConfigOptionUpdate,
  ContentBlock,
  MessageChunk,
  PermissionEvent,
  PermissionResolvedEvent,
  PlanUpdate,
  SessionEvent,
  SessionUpdate,
  Thread,
  ThreadItem,
  ToolCallUpdate,
  ToolItem,
  TurnEndEvent,
  UsageUpdate,
} from "../protocol.gen";

export type { SessionEvent, Thread } from "../protocol.gen";
export type Item = ThreadItem;

/** The updates the fold draws (an `OtherUpdate` is any other kind, passed over). */
type DrawnUpdate = MessageChunk | ToolCallUpdate | PlanUpdate | UsageUpdate | AvailableCommandsUpdate | ConfigOptionUpdate;

function isUpdate<K extends DrawnUpdate["sessionUpdate"]>(
  update: SessionUpdate | null | undefined,
  ...kinds: K[]
): update is DrawnUpdate & { sessionUpdate: K } {
  return update != null && (kinds as string[]).includes(update.sessionUpdate);
}

const MERGED_CHUNKS = { agent_message_chunk: "message", agent_thought_chunk: "thought" } as const;
const TOOL_FIELDS = ["title", "kind", "status", "content", "locations", "rawOutput"] as const;
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
    switch (event.kind) {
      case "turn":
        this.push({
          type: "user",
          seq,
          text: event.text ?? "",
          author: event.author ?? null,
          time: event.time ?? null,
          asWritten: event.asWritten ?? null,
          byHost: event.byHost ?? false,
        });
        this.turnOpen = true;
        break;
      case "chunk":
        this.applyUpdate(seq, event.update);
        break;
      case "permission":
        this.addPermission(seq, event);
        break;
      case "permission-resolved":
        this.resolvePermission(event);
        break;
      case "turn-end":
        this.endTurn(seq, event);
        break;
      case "notice":
        this.push({ type: "notice", seq, text: event.text ?? "" });
        break;
    }
    if (STATUS_KINDS.has(event.kind)) this.status = nextStatus(this.turnOpen, this.openPermissions());
  }

  private openPermissions(): number {
    return this.items.filter((item) => item.type === "permission" && item.resolution === null).length;
  }

  private applyUpdate(seq: number, update: SessionUpdate | undefined): void {
    const lastIndex = this.items.length - 1;
    const last = lastIndex >= 0 ? this.items[lastIndex] : null;
    if (isUpdate(update, "agent_message_chunk", "agent_thought_chunk")) {
      const itemType = MERGED_CHUNKS[update.sessionUpdate];
      const text = contentText(update.content);
      if (last !== null && last.type === itemType) this.edit<ItemOf<"message" | "thought">>(lastIndex).text += text;
      else this.push({ type: itemType, seq, text });
    } else if (isUpdate(update, "user_message_chunk")) {
      const text = contentText(update.content);
      if (last !== null && last.type === "user" && last.author === null) this.edit<ItemOf<"user">>(lastIndex).text += text;
      else this.push({ type: "user", seq, text, author: null, time: null, asWritten: null, byHost: false });
    } else if (isUpdate(update, "tool_call", "tool_call_update")) {
      this.applyTool(seq, update);
    } else if (isUpdate(update, "plan")) {
      const plan = this.currentTurnItem("plan");
      const entries = update.entries ?? [];
      if (plan === -1) this.push({ type: "plan", seq, entries });
      else this.edit<ItemOf<"plan">>(plan).entries = entries;
    } else if (isUpdate(update, "usage_update")) {
      const usage = { used: update.used ?? 0, size: update.size ?? 0, cost: update.cost ?? null };
      const latest = this.currentTurnItem("usage");
      if (latest === -1) this.push({ type: "usage", seq, ...usage });
      else Object.assign(this.edit<ItemOf<"usage">>(latest), usage);
    }
  }

  private applyTool(seq: number, update: ToolCallUpdate): void {
    const toolCallId = update.toolCallId;
    let index = this.items.length - 1;
    while (index >= 0) {
      const item = this.items[index];
      if (item.type === "tool" && item.toolCallId === toolCallId) break;
      index--;
    }
    let tool: ToolItem;
    if (index === -1) {
      tool = {
        type: "tool",
        seq,
        toolCallId,
        title: "",
        kind: "other",
        status: "pending",
        content: [],
        locations: [],
        rawOutput: null,
      };
      this.push(tool);
    } else {
      tool = this.edit<ToolItem>(index);
    }
    for (const field of TOOL_FIELDS) {
      const value = update[field];
      if (value !== undefined && value !== null) Object.assign(tool, { [field]: value });
    }
  }

  /** The index of the latest item of `type` in the current turn (after the last user item), or -1. */
  private currentTurnItem(type: "plan" | "usage"): number {
    for (let i = this.items.length - 1; i >= 0; i--) {
      const item = this.items[i];
      if (item.type === type) return i;
      if (item.type === "user") return -1;
    }
    return -1;
  }

  private addPermission(seq: number, event: PermissionEvent): void {
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
  }

  private resolvePermission(event: PermissionResolvedEvent): void {
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

  private endTurn(seq: number, event: TurnEndEvent): void {
    for (let i = 0; i < this.items.length; i++) {
      const item = this.items[i];
      if (item.type === "permission" && item.resolution === null) {
        this.edit<ItemOf<"permission">>(i).resolution = { optionId: null, by: null, answer: null };
      } else if (item.type === "tool" && UNFINISHED_TOOL.includes(item.status)) {
        this.edit<ItemOf<"tool">>(i).status = "failed";
      }
    }
    this.push({
      type: "turn-end",
      seq,
      error: event.error || null,
      errorDetail: event.errorDetail || null,
      cancelled: Boolean(event.cancelled),
      interrupted: Boolean(event.interrupted),
      elapsed: event.elapsed ?? null,
    });
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
  else if (event.kind === "permission") openPermissions = [...openPermissions, event.requestId];
  else if (event.kind === "permission-resolved") openPermissions = openPermissions.filter((r) => r !== event.requestId);
  else if (event.kind === "turn-end") [turnOpen, openPermissions] = [false, []];
  return { ...head, lastSeq: event.seq, turnOpen, openPermissions, status: nextStatus(turnOpen, openPermissions.length) };
}

/** The one status rule (session_log._next_status): waiting while a permission is unanswered,
 * else running while a turn is open, else idle. */
function nextStatus(turnOpen: boolean, openPermissions: number): Thread["status"] {
  return openPermissions > 0 ? "waiting" : turnOpen ? "running" : "idle";
}

function contentText(block: ContentBlock | null | undefined): string {
  if (typeof block !== "object" || block === null || Array.isArray(block)) return "";
  if (block.type === "text") return block.text ?? "";
  if (block.type === "resource_link") return resourceLink(block.name ?? "", block.uri ?? "");
  return "";
}

/**
 * A link to `uri` named `name`, as markdown whose name is words: an agent's `![x](…)` in a name is
 * not a picture, and no character of the address ends the link early (session_log._link, the same).
 */
export function resourceLink(name: string, uri: string): string {
  const words = name.replace(/[\r\n]+/g, " ").replace(/[\\[\]()!`<>*_~]/g, (mark) => "\\" + mark);
  const address = uri.replace(/[ \t\n\r\f\v()<>\\]/g, (mark) => "%" + mark.charCodeAt(0).toString(16).toUpperCase().padStart(2, "0"));
  return "[" + words + "](" + address + ")";
}

/**
 * What a session's status pill says: a session whose last turn the server interrupted (it stopped
 * or restarted) reads "interrupted" until its next turn, so nobody takes it for finished.
 */
export function shownStatus(status: string, items: readonly Item[]): string {
  const last = items.at(-1);
  return status === "idle" && last?.type === "turn-end" && last.interrupted ? "interrupted" : status;
}
