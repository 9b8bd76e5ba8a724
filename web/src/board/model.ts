/**
 * The board's schema (adr/0003-board-schema.md) on the yjs side, and the pure helpers the canvas
 * uses: reading items defensively, editing them in one transaction, text diffs, rate bounding.
 */
import * as Y from "yjs";

export { fromBase64, toBase64 } from "../base64";

export type ItemKind = "note" | "text" | "shape" | "arrow" | "stroke" | "frame";
export type HoldsType = "agent" | "terminal" | "file";
export const ITEMS = "items";
/** Origin of the updates that came from the server, so they are never sent back. */
export const REMOTE = "remote";
/** Origin of this client's own edits: the ones undo and redo track. */
export const LOCAL = "local";

export interface Item {
  id: string;
  kind: ItemKind;
  x: number;
  y: number;
  w: number;
  h: number;
  z: number;
  color: string;
  text?: Y.Text;
  shape?: "rect" | "ellipse";
  /** A shape's inside: a colour, or `none`; absent on shapes drawn before fills. */
  fill?: string;
  from?: string;
  to?: string;
  points?: number[];
  holds?: { type: HoldsType; ref: string };
  title?: string;
}

const KINDS = new Set<string>(["note", "text", "shape", "arrow", "stroke", "frame"]);
const HOLDS = new Set<string>(["agent", "terminal", "file"]);

export const DEFAULTS: Record<Exclude<ItemKind, "arrow" | "stroke">, { w: number; h: number; color: string }> = {
  note: { w: 200, h: 200, color: "#ffd43b" },
  text: { w: 240, h: 60, color: "#1e1e1e" },
  shape: { w: 160, h: 100, color: "#4dabf7" },
  frame: { w: 640, h: 480, color: "#868e96" },
};

function num(value: unknown, fallback = 0): number {
  return typeof value === "number" && Number.isFinite(value) ? value : fallback;
}

/** One item as the canvas needs it, or null when it does not fit the schema (readers skip those). */
export function readItem(id: string, value: unknown): Item | null {
  if (!(value instanceof Y.Map)) return null;
  const kind = value.get("kind");
  if (typeof kind !== "string" || !KINDS.has(kind)) return null;
  const color = value.get("color");
  const item: Item = {
    id,
    kind: kind as ItemKind,
    x: num(value.get("x")),
    y: num(value.get("y")),
    w: Math.max(num(value.get("w"), 1), 1),
    h: Math.max(num(value.get("h"), 1), 1),
    z: num(value.get("z")),
    color: typeof color === "string" ? color : "#868e96",
  };
  const text = value.get("text");
  if (text instanceof Y.Text) item.text = text;
  if (kind === "shape") {
    item.shape = value.get("shape") === "ellipse" ? "ellipse" : "rect";
    const fill = value.get("fill");
    if (typeof fill === "string") item.fill = fill;
  }
  if (kind === "arrow") {
    const from = value.get("from");
    const to = value.get("to");
    if (typeof from !== "string" || typeof to !== "string") return null;
    item.from = from;
    item.to = to;
  }
  if (kind === "stroke") {
    const points = value.get("points");
    item.points = points instanceof Y.Array ? points.toArray().filter((p): p is number => typeof p === "number") : [];
  }
  if (kind === "frame") {
    const holds = value.get("holds");
    const type = holds instanceof Y.Map ? holds.get("type") : undefined;
    const ref = holds instanceof Y.Map ? holds.get("ref") : undefined;
    if (typeof type === "string" && HOLDS.has(type) && typeof ref === "string") {
      item.holds = { type: type as HoldsType, ref };
    }
    const title = value.get("title");
    item.title = typeof title === "string" ? title : "";
  }
  return item;
}

/** Every item that fits the schema, back to front; arrows whose ends are gone are left out. */
export function readItems(items: Y.Map<unknown>): Item[] {
  const found: Item[] = [];
  items.forEach((value, id) => {
    const item = readItem(id, value);
    if (item) found.push(item);
  });
  const ids = new Set(found.map((item) => item.id));
  return found
    .filter((item) => item.kind !== "arrow" || (ids.has(item.from!) && ids.has(item.to!)))
    .sort((a, b) => a.z - b.z || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
}

export function newId(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(6));
  return Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
}

export function maxZ(items: Y.Map<unknown>): number {
  return readItems(items).reduce((top, item) => Math.max(top, item.z), 0);
}

/** An item's fields before it is written: no id or z yet, and its text a plain string. */
export type NewItem = Omit<Item, "id" | "z" | "text"> & { text?: string };

/** Adds an item in front of the others; call inside a transaction with the LOCAL origin. */
export function addItem(items: Y.Map<unknown>, fields: NewItem, id: string = newId()): string {
  const map = new Y.Map<unknown>();
  const { text, points, holds, ...plain } = fields;
  for (const [key, value] of Object.entries(plain)) if (value !== undefined) map.set(key, value);
  map.set("z", maxZ(items) + 1);
  if (text !== undefined) map.set("text", new Y.Text(text));
  if (points !== undefined) {
    // Written once with the item: strokes are never edited point by point (ADR 0003).
    const array = new Y.Array<number>();
    array.push(points);
    map.set("points", array);
  }
  if (holds !== undefined) map.set("holds", new Y.Map<unknown>(Object.entries(holds)));
  items.set(id, map);
  return id;
}

/** Deletes items and every arrow attached to them, as the server's board_api does. */
export function deleteItems(items: Y.Map<unknown>, ids: Iterable<string>): void {
  const doomed = new Set(ids);
  for (const item of readItems(items)) {
    if (item.kind === "arrow" && (doomed.has(item.from!) || doomed.has(item.to!))) doomed.add(item.id);
  }
  for (const id of doomed) items.delete(id);
}

/** Copies items offset by `offset`, with arrows between copied items re-pointed; returns the new ids. */
export function duplicateItems(items: Y.Map<unknown>, ids: Iterable<string>, offset = 24): string[] {
  const chosen = new Set(ids);
  const all = readItems(items);
  const copies = new Map<string, string>();
  for (const item of all) if (chosen.has(item.id) && item.kind !== "arrow") copies.set(item.id, newId());
  for (const item of all) {
    const copy = copies.get(item.id);
    if (!copy) continue;
    addItem(items, { ...itemFields(item), x: item.x + offset, y: item.y + offset }, copy);
  }
  for (const item of all) {
    if (item.kind !== "arrow") continue;
    const from = copies.get(item.from!);
    const to = copies.get(item.to!);
    if (from && to) copies.set(item.id, addItem(items, { ...itemFields(item), from, to }));
  }
  return [...copies.values()];
}

function itemFields({ id: _id, z: _z, text, ...fields }: Item): NewItem {
  return { ...fields, text: text?.toString() };
}

/** New z values that bring `ids` to the front or send them to the back, keeping their order. */
export function reorder(all: Item[], ids: Set<string>, where: "front" | "back"): Map<string, number> {
  const moving = all.filter((item) => ids.has(item.id)).sort((a, b) => a.z - b.z);
  const others = all.filter((item) => !ids.has(item.id));
  const result = new Map<string, number>();
  if (where === "front") {
    const top = others.reduce((z, item) => Math.max(z, item.z), 0);
    moving.forEach((item, i) => result.set(item.id, top + 1 + i));
  } else {
    const bottom = others.reduce((z, item) => Math.min(z, item.z), 0);
    moving.forEach((item, i) => result.set(item.id, bottom - moving.length + i));
  }
  return result;
}

export interface TextEdit {
  index: number;
  remove: number;
  insert: string;
}

/** The one splice that turns `before` into `after` (UTF-16 offsets, as Y.Text counts them). */
export function textDiff(before: string, after: string): TextEdit | null {
  if (before === after) return null;
  let start = 0;
  const shorter = Math.min(before.length, after.length);
  while (start < shorter && before.charCodeAt(start) === after.charCodeAt(start)) start++;
  let end = 0;
  while (
    end < shorter - start &&
    before.charCodeAt(before.length - 1 - end) === after.charCodeAt(after.length - 1 - end)
  ) {
    end++;
  }
  // Never split a surrogate pair: Y.Text would store half an emoji.
  if (start > 0 && isHighSurrogate(before.charCodeAt(start - 1))) start--;
  if (end > 0 && isLowSurrogate(before.charCodeAt(before.length - end))) end--;
  return { index: start, remove: before.length - start - end, insert: after.slice(start, after.length - end) };
}

function isHighSurrogate(code: number): boolean {
  return code >= 0xd800 && code <= 0xdbff;
}

function isLowSurrogate(code: number): boolean {
  return code >= 0xdc00 && code <= 0xdfff;
}

export function applyTextDiff(text: Y.Text, edit: TextEdit): void {
  if (edit.remove > 0) text.delete(edit.index, edit.remove);
  if (edit.insert) text.insert(edit.index, edit.insert);
}

/**
 * Calls `fn` at most once every `intervalMs` with the latest arguments, and once more after the
 * last call; `flush` runs a pending call now. Dragging writes positions through one of these, so
 * the document (and every peer) sees a bounded stream instead of one update per mouse event.
 */
export function rateLimit<A extends unknown[]>(
  fn: (...args: A) => void,
  intervalMs: number,
  now: () => number = () => performance.now(),
  schedule: (f: () => void, ms: number) => unknown = setTimeout,
  cancel: (handle: unknown) => void = (h) => clearTimeout(h as ReturnType<typeof setTimeout>),
): { call: (...args: A) => void; flush: () => void } {
  let last = -Infinity;
  let pending: A | null = null;
  let timer: unknown = null;
  const run = () => {
    timer = null;
    if (pending === null) return;
    const args = pending;
    pending = null;
    last = now();
    fn(...args);
  };
  return {
    call: (...args: A) => {
      pending = args;
      const wait = last + intervalMs - now();
      if (wait <= 0) {
        if (timer !== null) cancel(timer);
        run();
      } else if (timer === null) {
        timer = schedule(run, wait);
      }
    },
    flush: () => {
      if (timer !== null) cancel(timer);
      run();
    },
  };
}

/** A stroke's points relative to its own top-left corner, and that box (for a new stroke item). */
export function strokeBox(points: number[]): { x: number; y: number; w: number; h: number; points: number[] } {
  let minX = Infinity;
  let minY = Infinity;
  let maxX = -Infinity;
  let maxY = -Infinity;
  for (let i = 0; i + 1 < points.length; i += 2) {
    minX = Math.min(minX, points[i]);
    maxX = Math.max(maxX, points[i]);
    minY = Math.min(minY, points[i + 1]);
    maxY = Math.max(maxY, points[i + 1]);
  }
  if (!Number.isFinite(minX)) return { x: 0, y: 0, w: 1, h: 1, points: [] };
  const relative = points.map((value, i) => Math.round((value - (i % 2 === 0 ? minX : minY)) * 10) / 10);
  return { x: minX, y: minY, w: Math.max(maxX - minX, 1), h: Math.max(maxY - minY, 1), points: relative };
}
