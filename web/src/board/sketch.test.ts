import { describe, expect, it } from "vitest";
import type { Rect } from "./arrange";
import { INK } from "./colours";
import type { Item } from "./model";
import { drawsAsSketch, itemAt, itemsIn, itemsInView, meets, SKETCH_ITEMS, SKETCH_ZOOM, sketchOf } from "./sketch";

const item = (id: string, fields: Partial<Item>): Item => ({ id, kind: "note", x: 0, y: 0, w: 100, h: 100, z: 0, color: "#ffd43b", ...fields });
const items = [
  item("note", {}),
  item("shape", { kind: "shape", shape: "ellipse", x: 300, color: INK }),
  item("arrow", { kind: "arrow", from: "note", to: "shape", color: INK }),
  item("top", { x: 50, y: 50, z: 1 }),
];
const boxOf = (id: string): Rect | undefined => {
  const found = items.find((candidate) => candidate.id === id);
  return found && { id, x: found.x, y: found.y, w: found.w, h: found.h };
};

describe("when a board is drawn as a sketch", () => {
  it("is a big board below the sketch zoom", () => {
    expect(drawsAsSketch(SKETCH_ZOOM - 0.01, SKETCH_ITEMS)).toBe(true);
    expect(drawsAsSketch(SKETCH_ZOOM, SKETCH_ITEMS)).toBe(false);
    expect(drawsAsSketch(0.05, SKETCH_ITEMS - 1)).toBe(false);
  });
});

describe("the sketch's marks", () => {
  it("draws boxes in the items' colours, the theme's ink for ink, and arrows between borders", () => {
    const marks = sketchOf(items, boxOf, new Set(["top"]), "#e8e8ec");
    expect(marks.map((mark) => mark.kind)).toEqual(["box", "box", "curve"]);
    expect(marks[0]).toMatchObject({ fill: "#ffd43b", x: 0, w: 100 });
    expect(marks[1]).toMatchObject({ stroke: "#e8e8ec", round: true });
    expect(marks[2]).toMatchObject({ from: { x: 100, y: 50 }, to: { x: 300, y: 50 }, colour: "#e8e8ec" });
  });

  it("leaves out what is out of view", () => {
    expect(meets({ x: 0, y: 0, w: 10, h: 10 }, { x: 5, y: 5, w: 100, h: 100 })).toBe(true);
    expect(meets({ x: 0, y: 0, w: 10, h: 10 }, { x: 11, y: 0, w: 100, h: 100 })).toBe(false);
  });

  it("picks the topmost item under a click, never an arrow", () => {
    expect(itemAt(items, boxOf, { x: 60, y: 60 })).toBe("top");
    expect(itemAt(items, boxOf, { x: 10, y: 10 })).toBe("note");
    expect(itemAt(items, boxOf, { x: 200, y: 50 })).toBeUndefined();
  });

  it("picks the items wholly inside a box drawn around them", () => {
    expect(itemsIn(items, boxOf, { x: -10, y: -10, w: 170, h: 170 })).toEqual(["note", "top"]);
  });
});

describe("the items the sketch lists for the keyboard", () => {
  const view = { x: -10, y: -10, w: 500, h: 200 };
  it("lists the items in view in reading order, without arrows or live items", () => {
    const { listed, more } = itemsInView(items, boxOf, view, new Set(["top"]));
    expect(listed.map(({ item }) => item.id)).toEqual(["note", "shape"]);
    expect(more).toBe(0);
  });
  it("reads by rows, then left to right", () => {
    const { listed } = itemsInView(items, boxOf, view, new Set());
    expect(listed.map(({ item }) => item.id)).toEqual(["note", "shape", "top"]);
  });
  it("leaves out what is not in view and counts what is past the limit", () => {
    expect(itemsInView(items, boxOf, { x: 1000, y: 1000, w: 10, h: 10 }, new Set()).listed).toEqual([]);
    const { listed, more } = itemsInView(items, boxOf, view, new Set(), 2);
    expect(listed).toHaveLength(2);
    expect(more).toBe(1);
  });
});
