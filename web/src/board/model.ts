/**
 * The board's schema (adr/0003-board-schema.md) on the yjs side, and the pure helpers the canvas
 * uses: reading items defensively, editing them in one transaction, text diffs, rate bounding.
 */
import * as Y from "yjs";

export { fromBase64, toBase64 } from "../base64";

import { BOARD_ITEMS, DASH_KINDS, HOLDS_TYPES, ITEM_KINDS, MAX_FONT_SIZE, MAX_STROKE_WIDTH, type DashKind, type HoldsType, type ItemKind } from "../protocol.gen";
import { isColour, isImageSrc } from "./values";

export type { HoldsType, ItemKind };
export const ITEMS = BOARD_ITEMS;
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
  /** An arrow's bound ends: it follows these items. An end without one is free at (x1, y1) or (x2, y2). */
  from?: string;
  to?: string;
  x1?: number;
  y1?: number;
  x2?: number;
  y2?: number;
  /** How far an arrow's middle is pushed sideways (board units; 0 is straight). */
  bend?: number;
  label?: string;
  points?: number[];
  holds?: { type: HoldsType; ref: string };
  title?: string;
  /** Items with the same group are selected and moved together. */
  group?: string;
  locked?: boolean;
  strokeWidth?: number;
  dash?: DashKind;
  fontSize?: number;
  /** An image's data: URL; absent on a placeholder an agent left. */
  src?: string;
  alt?: string;
}

const KINDS = new Set<string>(ITEM_KINDS);
const DASHES = new Set<string>(DASH_KINDS);
const HOLDS = new Set<string>(HOLDS_TYPES);

export const DEFAULTS: Record<Exclude<ItemKind, "arrow" | "stroke">, { w: number; h: number; color: string }> = {
  note: { w: 200, h: 200, color: "#ffd43b" },
  text: { w: 240, h: 60, color: "#1e1e1e" },
  shape: { w: 160, h: 100, color: "#4dabf7" },
  frame: { w: 640, h: 480, color: "#868e96" },
  image: { w: 320, h: 240, color: "#868e96" },
};

/**
 * A new frame's size by what it holds: an agent's is tall enough that a whole turn (the prompt,
 * its tool rows and the answer) reads without scrolling; a terminal's or a file's is the default.
 */
export function frameSize(type: HoldsType): { w: number; h: number } {
  return type === "agent" ? { w: 640, h: 640 } : { w: DEFAULTS.frame.w, h: DEFAULTS.frame.h };
}

function optionalNumber(value: unknown): number | undefined {
  return typeof value === "number" && Number.isFinite(value) ? value : undefined;
}

function optionalString(value: unknown): string | undefined {
  return typeof value === "string" ? value : undefined;
}

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
    color: isColour(color) ? color : "#868e96",
  };
  const text = value.get("text");
  if (text instanceof Y.Text) item.text = text;
  const group = optionalString(value.get("group"));
  if (group) item.group = group;
  if (value.get("locked") === true) item.locked = true;
  const strokeWidth = optionalNumber(value.get("strokeWidth"));
  if (strokeWidth !== undefined && strokeWidth > 0) item.strokeWidth = Math.min(strokeWidth, MAX_STROKE_WIDTH);
  const dash = value.get("dash");
  if (typeof dash === "string" && DASHES.has(dash)) item.dash = dash as DashKind;
  const fontSize = optionalNumber(value.get("fontSize"));
  if (fontSize !== undefined && fontSize > 0) item.fontSize = Math.min(fontSize, MAX_FONT_SIZE);
  if (kind === "shape") {
    item.shape = value.get("shape") === "ellipse" ? "ellipse" : "rect";
    const fill = value.get("fill");
    if (isColour(fill)) item.fill = fill;
  }
  if (kind === "arrow" && !readArrow(item, value)) return null;
  if (kind === "image") {
    const src = value.get("src");
    if (isImageSrc(src)) item.src = src;
    item.alt = optionalString(value.get("alt")) ?? "";
  }
  if (kind === "stroke") {
    const points = value.get("points");
    item.points = points instanceof Y.Array ? points.toArray().filter((p): p is number => typeof p === "number" && Number.isFinite(p)) : [];
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

/** An arrow's ends: each an item id, or else a free point; false when an end is neither. */
function readArrow(item: Item, value: Y.Map<unknown>): boolean {
  const from = optionalString(value.get("from"));
  const to = optionalString(value.get("to"));
  const [x1, y1, x2, y2] = ["x1", "y1", "x2", "y2"].map((key) => optionalNumber(value.get(key)));
  if (from) item.from = from;
  else if (x1 !== undefined && y1 !== undefined) Object.assign(item, { x1, y1 });
  else return false;
  if (to) item.to = to;
  else if (x2 !== undefined && y2 !== undefined) Object.assign(item, { x2, y2 });
  else return false;
  item.bend = optionalNumber(value.get("bend")) ?? 0;
  const label = optionalString(value.get("label"));
  if (label) item.label = label.slice(0, 200);
  return true;
}

/** Whether an arrow joins two items at both ends (React Flow draws those as edges). */
export function isBound(item: Item): boolean {
  return item.from !== undefined && item.to !== undefined;
}

export function byZ(a: Item, b: Item): number {
  return a.z - b.z || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
}

/** Every item that fits the schema, back to front; arrows whose bound ends are gone are left out. */
export function readItems(items: Y.Map<unknown>): Item[] {
  const found: Item[] = [];
  items.forEach((value, id) => {
    const item = readItem(id, value);
    if (item) found.push(item);
  });
  return keepDrawable(found).sort(byZ);
}

/** Leaves out arrows bound to an item that is gone. */
export function keepDrawable(found: Item[]): Item[] {
  const ids = new Set(found.map((item) => item.id));
  const present = (end: string | undefined) => end === undefined || ids.has(end);
  return found.filter((item) => item.kind !== "arrow" || (present(item.from) && present(item.to)));
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

/** Items as copied to the clipboard: plain fields, each with its old id so arrows can be re-pointed. */
export type ClipItem = NewItem & { id: string };

/** What a copy takes: the chosen items, back to front, with their text as plain strings. */
export function clipItems(items: Y.Map<unknown>, ids: Iterable<string>): ClipItem[] {
  const chosen = new Set(ids);
  return readItems(items)
    .filter((item) => chosen.has(item.id))
    .map(({ z: _z, text, ...fields }) => ({ ...fields, text: text?.toString() }));
}

/**
 * Adds copies of `clip` moved by `offset`, with arrows re-pointed to the copies of their ends; an
 * arrow end whose item was not copied stays bound to that item if it is on this board, else it is
 * dropped with its arrow. Groups get new ids, so a pasted group is a group of its own. Returns the new ids.
 */
export function pasteItems(items: Y.Map<unknown>, clip: ClipItem[], offset: { x: number; y: number }): string[] {
  const copies = new Map<string, string>();
  const groups = new Map<string, string>();
  for (const item of clip) copies.set(item.id, newId());
  const end = (id: string | undefined) => (id === undefined ? undefined : (copies.get(id) ?? (items.has(id) ? id : null)));
  const added: string[] = [];
  for (const { id, ...item } of [...clip.filter((i) => i.kind !== "arrow"), ...clip.filter((i) => i.kind === "arrow")]) {
    const fields: NewItem = { ...item, x: item.x + offset.x, y: item.y + offset.y, locked: undefined };
    if (item.group) fields.group = groups.get(item.group) ?? groups.set(item.group, newId()).get(item.group);
    if (item.kind === "arrow") {
      const from = end(item.from);
      const to = end(item.to);
      if (from === null || to === null) continue;
      Object.assign(fields, { from, to }, movedEnds(item, offset));
    }
    added.push(addItem(items, fields, copies.get(id)));
  }
  return added;
}

function movedEnds(item: NewItem, offset: { x: number; y: number }): Partial<NewItem> {
  const moved: Partial<NewItem> = {};
  if (item.x1 !== undefined && item.y1 !== undefined) Object.assign(moved, { x1: item.x1 + offset.x, y1: item.y1 + offset.y });
  if (item.x2 !== undefined && item.y2 !== undefined) Object.assign(moved, { x2: item.x2 + offset.x, y2: item.y2 + offset.y });
  return moved;
}

/** Copies items offset by `offset`, with arrows between copied items re-pointed; returns the new ids. */
export function duplicateItems(items: Y.Map<unknown>, ids: Iterable<string>, offset = 24): string[] {
  // A duplicate takes the arrows between the items it copies, and none to an item left behind.
  const picked = new Set(ids);
  const chosen = new Set([...picked].filter((id) => readItem(id, items.get(id))?.kind !== "arrow"));
  const joins = (item: Item) => [item.from, item.to].every((end) => end === undefined || chosen.has(end));
  const arrows = readItems(items).filter((item) => item.kind === "arrow" && (picked.has(item.id) || item.from || item.to) && joins(item));
  return pasteItems(items, clipItems(items, [...chosen, ...arrows.map((item) => item.id)]), { x: offset, y: offset });
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
