import { describe, expect, it } from "vitest";
import * as Y from "yjs";
import {
  addItem,
  type ClipItem,
  clipItems,
  pasteItems,
  applyTextDiff,
  deleteItems,
  duplicateItems,
  fromBase64,
  rateLimit,
  readItem,
  readItems,
  reorder,
  strokeBox,
  textDiff,
  toBase64,
} from "./model";

function board(): Y.Map<unknown> {
  return new Y.Doc().getMap("items");
}

describe("textDiff", () => {
  const cases: [string, string][] = [
    ["", "hello"],
    ["hello", ""],
    ["hello", "help"],
    ["abc", "abXc"],
    ["aaa", "aaaa"],
    ["note 😀", "note 😀😀"],
    ["😀", "😃"],
    ["世界", "世 界"],
    ["same", "same"],
  ];
  for (const [before, after] of cases) {
    it(`${JSON.stringify(before)} → ${JSON.stringify(after)}`, () => {
      const text = new Y.Doc().getText("t");
      text.insert(0, before);
      const edit = textDiff(before, after);
      if (edit) applyTextDiff(text, edit);
      expect(text.toString()).toBe(after);
      if (edit) expect(edit.remove + edit.insert.length).toBeLessThanOrEqual(before.length + after.length);
    });
  }

  it("never splits a surrogate pair", () => {
    const edit = textDiff("😀", "😃")!;
    expect(edit).toEqual({ index: 0, remove: 2, insert: "😃" });
  });
});

describe("items", () => {
  it("adds items in front, and reads only what fits the schema", () => {
    const items = board();
    const a = addItem(items, { kind: "note", x: 1, y: 2, w: 200, h: 200, color: "#ffd43b", text: "a" });
    const b = addItem(items, { kind: "shape", shape: "ellipse", x: 0, y: 0, w: 10, h: 10, color: "#000000", text: "" });
    items.set("junk", "not a map");
    const odd = new Y.Map<unknown>();
    odd.set("kind", "spaceship");
    items.set("odd", odd);
    const all = readItems(items);
    expect(all.map((item) => item.id)).toEqual([a, b]);
    expect(all[1].z).toBeGreaterThan(all[0].z);
    expect(all[0].text?.toString()).toBe("a");
    expect(all[1].shape).toBe("ellipse");
    expect(readItem("x", "nope")).toBeNull();
  });

  it("deletes an item with its arrows, and hides arrows whose end is gone", () => {
    const items = board();
    const a = addItem(items, { kind: "note", x: 0, y: 0, w: 1, h: 1, color: "#ffffff" });
    const b = addItem(items, { kind: "note", x: 0, y: 0, w: 1, h: 1, color: "#ffffff" });
    const arrow = addItem(items, { kind: "arrow", from: a, to: b, x: 0, y: 0, w: 1, h: 1, color: "#000000" });
    addItem(items, { kind: "arrow", from: a, to: "gone", x: 0, y: 0, w: 1, h: 1, color: "#000000" });
    expect(readItems(items).map((item) => item.id)).toEqual([a, b, arrow]);
    deleteItems(items, [a]);
    expect([...items.keys()].filter((id) => readItem(id, items.get(id))?.kind !== "arrow")).toEqual([b]);
    expect(items.has(arrow)).toBe(false);
  });

  it("duplicates items, re-pointing arrows between copies", () => {
    const items = board();
    const a = addItem(items, { kind: "note", x: 0, y: 0, w: 1, h: 1, color: "#ffffff", text: "x" });
    const b = addItem(items, { kind: "stroke", x: 5, y: 5, w: 1, h: 1, color: "#ffffff", points: [0, 0, 1, 1] });
    addItem(items, { kind: "arrow", from: a, to: b, x: 0, y: 0, w: 1, h: 1, color: "#000000" });
    const copies = duplicateItems(items, [a, b, "missing"]);
    expect(copies).toHaveLength(3);
    const all = readItems(items);
    const arrowCopy = all.find((item) => item.id === copies[2])!;
    expect([arrowCopy.from, arrowCopy.to]).toEqual([copies[0], copies[1]]);
    const noteCopy = all.find((item) => item.id === copies[0])!;
    expect([noteCopy.x, noteCopy.text?.toString()]).toEqual([24, "x"]);
    expect(all.find((item) => item.id === copies[1])!.points).toEqual([0, 0, 1, 1]);
  });

  it("reorders to front and back keeping relative order", () => {
    const items = board();
    const ids = [0, 1, 2, 3].map(() => addItem(items, { kind: "note", x: 0, y: 0, w: 1, h: 1, color: "#ffffff" }));
    const all = readItems(items);
    const front = reorder(all, new Set([ids[0], ids[1]]), "front");
    expect(front.get(ids[0])!).toBeGreaterThan(all[3].z);
    expect(front.get(ids[1])!).toBeGreaterThan(front.get(ids[0])!);
    const back = reorder(all, new Set([ids[3]]), "back");
    expect(back.get(ids[3])!).toBeLessThan(all[0].z);
  });
});

describe("rateLimit", () => {
  it("calls at most once per interval with the latest arguments, and once after the last call", () => {
    let clock = 0;
    const timers: (() => void)[] = [];
    const calls: number[] = [];
    const limited = rateLimit(
      (value: number) => calls.push(value),
      50,
      () => clock,
      (f) => timers.push(f),
      () => undefined,
    );
    limited.call(1);
    for (let i = 2; i <= 10; i++) {
      clock += 5;
      limited.call(i);
    }
    expect(calls).toEqual([1]);
    expect(timers).toHaveLength(1);
    clock = 50;
    timers[0]();
    expect(calls).toEqual([1, 10]);
    limited.call(11);
    limited.flush();
    expect(calls).toEqual([1, 10, 11]);
    limited.flush();
    expect(calls).toEqual([1, 10, 11]);
  });
});

describe("encoding", () => {
  it("round-trips base64 of large updates", () => {
    const bytes = Uint8Array.from({ length: 100_000 }, (_, i) => (i * 7) % 256);
    expect(fromBase64(toBase64(bytes))).toEqual(bytes);
  });

  it("puts a stroke into its own box", () => {
    expect(strokeBox([10, 20, 30, 25, 15, 40])).toEqual({ x: 10, y: 20, w: 20, h: 20, points: [0, 0, 20, 5, 5, 20] });
  });
});

describe("copy and paste", () => {
  it("pastes copies at an offset with arrows re-pointed, free ends moved and groups renewed", () => {
    const items = board();
    const a = addItem(items, { kind: "note", x: 0, y: 0, w: 10, h: 10, color: "#ffd43b", text: "a", group: "g1" });
    const b = addItem(items, { kind: "note", x: 50, y: 0, w: 10, h: 10, color: "#ffd43b", text: "b", group: "g1" });
    const free = addItem(items, { kind: "arrow", from: a, x2: 100, y2: 100, x: 0, y: 0, w: 1, h: 1, color: "#1e1e1e", bend: 12, label: "to there" });
    const clip = clipItems(items, [a, b, free]);
    const copies = pasteItems(items, clip, { x: 24, y: 24 });
    const pasted = readItems(items).filter((item) => copies.includes(item.id));
    const arrow = pasted.find((item) => item.kind === "arrow")!;
    const note = pasted.find((item) => item.text?.toString() === "a")!;
    expect(arrow.from).toBe(note.id);
    expect([arrow.x2, arrow.y2, arrow.bend, arrow.label]).toEqual([124, 124, 12, "to there"]);
    expect([note.x, note.y]).toEqual([24, 24]);
    const groups = new Set(pasted.filter((item) => item.kind === "note").map((item) => item.group));
    expect(groups.size).toBe(1);
    expect(groups.has("g1")).toBe(false);
  });

  it("drops a pasted arrow whose bound end is on no board here", () => {
    const items = board();
    const clip: ClipItem[] = [{ id: "arrow1", kind: "arrow", from: "elsewhere", x2: 1, y2: 1, x: 0, y: 0, w: 1, h: 1, color: "#1e1e1e" }];
    expect(pasteItems(items, clip, { x: 24, y: 24 })).toEqual([]);
  });
});
