/**
 * What the board does to its selection, whichever tool is out: delete, duplicate, group, lock,
 * restack, align, nudge, restyle, paste. Each acts on a `BoardEditor` (the doc and the view
 * store), so the canvas's buttons and keys and the headless tests call the same functions.
 */
import { align, distribute, inside, type Rect } from "./arrange";
import { arrowBox, arrowEnds, type Point } from "./arrows";
import { styleEdits, type Style } from "./colours";
import { type ClipItem, deleteItems, duplicateItems, type Item, newId, pasteItems, rateLimit, readItem, readItems, reorder } from "./model";
import type { BoardSession } from "./sync";
import type { Arrangement } from "./Toolbar";
import type { BoardEditor } from "./tools/types";
import type * as Y from "yjs";

export function itemMap(session: BoardSession, id: string): Y.Map<unknown> | undefined {
  return session.items.get(id) as Y.Map<unknown> | undefined;
}

/** Picks and unpicks items; picking one member of a group picks the whole group, as unpicking one unpicks it. */
export function pick(editor: BoardEditor, changes: { id: string; on: boolean }[]): void {
  const next = new Set(editor.view.getState().selected);
  // Unpicks first: React Flow unpicks the others as one member of a group is picked.
  const ordered = [...changes.filter((c) => !c.on), ...changes.filter((c) => c.on)];
  for (const { id, on } of ordered) {
    const group = editor.byId(id)?.group;
    const members = group ? editor.items().filter((item) => item.group === group).map((item) => item.id) : [id];
    for (const member of members) {
      if (on) next.add(member);
      else next.delete(member);
    }
  }
  editor.view.select(next);
}

function selected(editor: BoardEditor): ReadonlySet<string> {
  return editor.view.getState().selected;
}

/** The selected items that are not locked. */
function unlocked(editor: BoardEditor): Set<string> {
  return new Set([...selected(editor)].filter((id) => !editor.byId(id)?.locked));
}

export function removeSelected(editor: BoardEditor): void {
  const doomed = unlocked(editor);
  if (doomed.size === 0 || !editor.mayRemove(doomed)) return;
  editor.session.step(() => deleteItems(editor.session.items, doomed));
  editor.view.select([]);
}

export function duplicateSelected(editor: BoardEditor): void {
  const chosen = new Set(selected(editor));
  if (chosen.size === 0) return;
  let copies: string[] = [];
  editor.session.step(() => {
    copies = duplicateItems(editor.session.items, chosen);
  });
  editor.view.select(copies);
}

export function paste(editor: BoardEditor, clip: ClipItem[], offset: Point): void {
  let copies: string[] = [];
  editor.session.step(() => {
    copies = pasteItems(editor.session.items, clip, offset);
  });
  editor.view.select(copies);
}

export function restack(editor: BoardEditor, where: "front" | "back"): void {
  const order = reorder(editor.items(), new Set(selected(editor)), where);
  editor.session.step(() => {
    for (const [id, z] of order) itemMap(editor.session, id)?.set("z", z);
  });
}

/** Groups the selection (two items at least; arrows only join a group, never leave one alone), or ungroups it. */
export function setGroup(editor: BoardEditor, on: boolean): void {
  const ids = [...selected(editor)].filter((id) => editor.byId(id)?.kind !== "arrow" || on);
  if (on && ids.length < 2) return;
  const group = newId();
  editor.session.step(() => {
    for (const id of ids) {
      if (on) itemMap(editor.session, id)?.set("group", group);
      else itemMap(editor.session, id)?.delete("group");
    }
  });
}

export function setLocked(editor: BoardEditor, on: boolean): void {
  editor.session.step(() => {
    for (const id of selected(editor)) {
      if (on) itemMap(editor.session, id)?.set("locked", true);
      else itemMap(editor.session, id)?.delete("locked");
    }
  });
}

/** Locks the selection, or unlocks it when all of it is locked (Ctrl+Shift+L). */
export function toggleLocked(editor: BoardEditor): void {
  setLocked(editor, ![...selected(editor)].every((id) => editor.byId(id)?.locked));
}

/** The style the next item gets; the selection's unlocked items take it at once. */
export function applyStyle(editor: BoardEditor, choice: Partial<Style>): void {
  editor.view.update({ style: { ...editor.view.getState().style, ...choice } });
  const chosen = selected(editor);
  if (chosen.size === 0) return;
  editor.session.step(() => {
    for (const item of readItems(editor.session.items)) {
      if (!chosen.has(item.id) || item.locked) continue;
      const map = itemMap(editor.session, item.id);
      for (const [key, value] of Object.entries(styleEdits(item.kind, choice))) map?.set(key, value);
    }
  });
}

function moveTo(editor: BoardEditor, moved: Map<string, Point>): void {
  editor.session.step(() => {
    for (const [id, at] of moved) writePosition(editor.session, id, at);
  });
}

export function arrange(editor: BoardEditor, how: Arrangement): void {
  const boxes = [...unlocked(editor)].map((id) => editor.boxOf(id)).filter((box): box is Rect => box !== undefined);
  moveTo(editor, how === "horizontal" || how === "vertical" ? distribute(boxes, how) : align(boxes, how));
}

/** The arrow keys move the selection, as a drag would (WCAG 2.5.7): with what its empty frames hold. */
export function nudge(editor: BoardEditor, dx: number, dy: number): void {
  const moved = new Map<string, Point>();
  for (const id of unlocked(editor)) {
    const box = editor.boxOf(id);
    if (box) moved.set(id, { x: box.x + dx, y: box.y + dy });
  }
  for (const id of carriedBy(editor.items(), new Set(moved.keys()), editor.boxOf)) {
    const box = editor.boxOf(id)!;
    moved.set(id, { x: box.x + dx, y: box.y + dy });
  }
  moveTo(editor, moved);
}

/** Writes an item's new top-left corner; a free arrow moves its free ends by as much instead. */
export function writePosition(session: BoardSession, id: string, at: Point): void {
  const map = itemMap(session, id);
  if (!map) return;
  if (map.get("kind") !== "arrow") {
    map.set("x", at.x);
    map.set("y", at.y);
    return;
  }
  const item = readItem(id, map);
  const ends = item && arrowEnds(item, (key) => readItem(key, session.items.get(key)) ?? undefined);
  if (!item || !ends) return;
  const box = arrowBox(ends[0], ends[1], item.bend ?? 0);
  const [dx, dy] = [at.x - box.x, at.y - box.y];
  for (const [x, y] of [["x1", "y1"], ["x2", "y2"]] as const) {
    const px = map.get(x);
    const py = map.get(y);
    if (typeof px === "number" && typeof py === "number") {
      map.set(x, px + dx);
      map.set(y, py + dy);
    }
  }
}

/**
 * Writes dragged positions at most once per `intervalMs`. Each drag event carries every dragged
 * item, so the latest call's positions are the ones to write.
 */
export function positionWriter(session: BoardSession, intervalMs: number): BoardEditor["writePositions"] {
  return rateLimit((moved: ReadonlyMap<string, Point>) => {
    session.change(() => {
      for (const [id, at] of moved) writePosition(session, id, at);
    });
  }, intervalMs);
}

/** Items a move carries along: those lying inside a moved empty frame (and not moved themselves). */
export function carriedBy(items: Item[], moved: ReadonlySet<string>, boxOf: (id: string) => Rect | undefined): string[] {
  const frames = items.filter((item) => moved.has(item.id) && item.kind === "frame" && !item.holds).map((item) => boxOf(item.id)!);
  if (frames.length === 0) return [];
  return items
    .filter((item) => !moved.has(item.id) && item.kind !== "arrow" && !item.locked)
    .filter((item) => frames.some((frame) => item.id !== frame.id && inside(boxOf(item.id)!, frame)))
    .map((item) => item.id);
}
