/**
 * Fold an agent session's event log into the thread every screen shows: a line-by-line port
 * of `canvasrelay/session_log.py`. Both pass the JSON vectors in `tests/vectors/session_log/`;
 * change one, change the other and the vectors.
 */

/* eslint-disable @typescript-eslint/no-explicit-any */
export type SessionEvent = { seq: number; kind?: string; [key: string]: any };

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
      resolution: { optionId: string | null; by: string | null } | null;
    }
  | { type: "turn-end"; seq: number; error: string | null; cancelled: boolean; interrupted: boolean };

export interface Thread {
  status: "idle" | "running" | "waiting";
  items: Item[];
  lastSeq: number;
}

const MERGED_CHUNKS: Record<string, "message" | "thought"> = {
  agent_message_chunk: "message",
  agent_thought_chunk: "thought",
};
const TOOL_FIELDS = ["title", "kind", "status", "content", "locations"] as const;
const UNFINISHED_TOOL = ["pending", "in_progress"];

export function empty(): Thread {
  return { status: "idle", items: [], lastSeq: -1 };
}

export function fold(events: SessionEvent[]): Thread {
  const thread = empty();
  for (const event of events) apply(thread, event);
  return thread;
}

/** Updates `thread` in place and returns it. */
export function apply(thread: Thread, event: SessionEvent): Thread {
  const seq = event.seq;
  if (seq <= thread.lastSeq) return thread;
  thread.lastSeq = seq;
  const kind = event.kind;
  if (kind === "turn") {
    thread.items.push({
      type: "user",
      seq,
      text: event.text ?? "",
      author: event.author ?? null,
      time: event.time ?? null,
    });
    thread.status = "running";
  } else if (kind === "chunk") {
    applyUpdate(thread, seq, event.update ?? {});
  } else if (kind === "permission") {
    thread.items.push({
      type: "permission",
      seq,
      requestId: event.requestId,
      toolCallId: event.toolCallId ?? null,
      title: event.title ?? "",
      options: event.options ?? [],
      resolution: null,
    });
    thread.status = "waiting";
  } else if (kind === "permission-resolved") {
    resolvePermission(thread, event);
  } else if (kind === "turn-end") {
    endTurn(thread, seq, event);
  }
  return thread;
}

function applyUpdate(thread: Thread, seq: number, update: any): void {
  const items = thread.items;
  const last = items.length ? items[items.length - 1] : null;
  const kind = update?.sessionUpdate;
  if (typeof kind === "string" && kind in MERGED_CHUNKS) {
    const itemType = MERGED_CHUNKS[kind];
    const text = contentText(update.content);
    if (last !== null && last.type === itemType) last.text += text;
    else items.push({ type: itemType, seq, text });
  } else if (kind === "user_message_chunk") {
    const text = contentText(update.content);
    if (last !== null && last.type === "user" && last.author === null) last.text += text;
    else items.push({ type: "user", seq, text, author: null, time: null });
  } else if (kind === "tool_call" || kind === "tool_call_update") {
    applyTool(items, seq, update);
  } else if (kind === "plan") {
    const plan = currentTurnPlan(items);
    const entries = update.entries ?? [];
    if (plan === null) items.push({ type: "plan", seq, entries });
    else plan.entries = entries;
  }
}

function contentText(block: any): string {
  if (typeof block !== "object" || block === null || Array.isArray(block)) return "";
  if (block.type === "text") return block.text ?? "";
  if (block.type === "resource_link") return "[" + (block.name ?? "") + "](" + (block.uri ?? "") + ")";
  return "";
}

function applyTool(items: Item[], seq: number, update: any): void {
  const toolCallId = update.toolCallId;
  let tool: Extract<Item, { type: "tool" }> | null = null;
  for (let i = items.length - 1; i >= 0; i--) {
    const item = items[i];
    if (item.type === "tool" && item.toolCallId === toolCallId) {
      tool = item;
      break;
    }
  }
  if (tool === null) {
    tool = {
      type: "tool",
      seq,
      toolCallId,
      title: "",
      kind: "other",
      status: "pending",
      content: [],
      locations: [],
    };
    items.push(tool);
  }
  for (const field of TOOL_FIELDS) {
    if (update[field] !== undefined && update[field] !== null) (tool as any)[field] = update[field];
  }
}

function currentTurnPlan(items: Item[]): Extract<Item, { type: "plan" }> | null {
  for (let i = items.length - 1; i >= 0; i--) {
    const item = items[i];
    if (item.type === "plan") return item;
    if (item.type === "user") return null;
  }
  return null;
}

function resolvePermission(thread: Thread, event: SessionEvent): void {
  let openCount = 0;
  for (const item of thread.items) {
    if (item.type !== "permission") continue;
    if (item.requestId === event.requestId && item.resolution === null) {
      item.resolution = { optionId: event.optionId ?? null, by: event.by ?? null };
    }
    if (item.resolution === null) openCount += 1;
  }
  if (thread.status === "waiting" && openCount === 0) thread.status = "running";
}

function endTurn(thread: Thread, seq: number, event: SessionEvent): void {
  for (const item of thread.items) {
    if (item.type === "permission" && item.resolution === null) item.resolution = { optionId: null, by: null };
    else if (item.type === "tool" && UNFINISHED_TOOL.includes(item.status)) item.status = "failed";
  }
  const error = event.error;
  const cancelled = Boolean(event.cancelled);
  const interrupted = Boolean(event.interrupted);
  if (error || cancelled || interrupted) {
    thread.items.push({ type: "turn-end", seq, error: error || null, cancelled, interrupted });
  }
  thread.status = "idle";
}
