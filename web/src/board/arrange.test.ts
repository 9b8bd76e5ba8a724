import { describe, expect, it } from "vitest";
import { align, distribute, inside, snap } from "./arrange";
import { arrowEnds, bendThrough, middle } from "./arrows";
import type { Item } from "./model";

const boxes = [
  { id: "a", x: 10, y: 0, w: 20, h: 10 },
  { id: "b", x: 50, y: 30, w: 40, h: 10 },
  { id: "c", x: 200, y: 80, w: 10, h: 10 },
];

describe("align and distribute", () => {
  it("lines boxes up on the selection's left edge and right edge", () => {
    expect([...align(boxes, "left").values()].map((p) => p.x)).toEqual([10, 10, 10]);
    expect([...align(boxes, "right").values()].map((p) => p.x)).toEqual([190, 170, 200]);
    expect([...align(boxes, "top").values()].map((p) => p.y)).toEqual([0, 0, 0]);
  });

  it("leaves equal gaps, the outer boxes staying", () => {
    const moved = distribute(boxes, "horizontal");
    expect(moved.get("a")!.x).toBe(10);
    expect(moved.get("c")!.x).toBe(200);
    const gap1 = moved.get("b")!.x - (10 + 20);
    const gap2 = 200 - (moved.get("b")!.x + 40);
    expect(gap1).toBeCloseTo(gap2);
  });
});

describe("snapping", () => {
  it("snaps a left edge to a near edge and draws a guide there", () => {
    const { dx, dy, guides } = snap({ x: 53, y: 100, w: 10, h: 10 }, boxes, 6);
    expect(dx).toBe(-3);
    expect(dy).toBe(0);
    expect(guides).toEqual([{ axis: "x", at: 50, from: 30, to: 110 }]);
  });

  it("does not snap beyond the threshold", () => {
    expect(snap({ x: 120, y: 200, w: 10, h: 10 }, boxes, 6)).toEqual({ dx: 0, dy: 0, guides: [] });
  });

  it("knows what a frame holds", () => {
    expect(inside({ x: 5, y: 5, w: 5, h: 5 }, { x: 0, y: 0, w: 20, h: 20 })).toBe(true);
    expect(inside({ x: 15, y: 5, w: 10, h: 5 }, { x: 0, y: 0, w: 20, h: 20 })).toBe(false);
  });
});

describe("arrows", () => {
  const arrow = { id: "x", kind: "arrow", x: 0, y: 0, w: 1, h: 1, z: 0, color: "#000", from: "n", x2: 300, y2: 50 } as Item;

  it("starts a bound end at its item's border and a free end at its point", () => {
    const ends = arrowEnds(arrow, (id) => (id === "n" ? { x: 0, y: 0, w: 100, h: 100 } : undefined))!;
    expect(ends[0]).toEqual({ x: 100, y: 50 });
    expect(ends[1]).toEqual({ x: 300, y: 50 });
  });

  it("is not drawn when its bound item is gone", () => {
    expect(arrowEnds(arrow, () => undefined)).toBeNull();
  });

  it("bends so the curve's middle goes through the handle", () => {
    const start = { x: 0, y: 0 };
    const end = { x: 100, y: 0 };
    const bend = bendThrough(start, end, { x: 50, y: 30 });
    expect(middle(start, end, bend)).toEqual({ x: 50, y: 30 });
  });
});
