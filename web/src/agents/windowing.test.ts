import { describe, expect, it } from "vitest";
import { anchorAt, atBottom, RowHeights, rowAt, scrollTopFor, visibleRange } from "./windowing";

const keys = (n: number): string[] => Array.from({ length: n }, (_, i) => `k${i}`);

describe("RowHeights", () => {
  it("estimates rows never drawn and uses measured heights for the others", () => {
    const heights = new RowHeights(50);
    const measured = heights.measure([["k1", 20]]);
    expect([...measured.offsets(keys(3))]).toEqual([0, 50, 70, 120]);
    expect([...heights.offsets(keys(3))]).toEqual([0, 50, 100, 150]);
  });

  it("gives the same value back when no height moved", () => {
    const measured = new RowHeights(50).measure([["k1", 20]]);
    expect(measured.measure([["k1", 20]])).toBe(measured);
    expect(measured.measure([["k1", 21]])).not.toBe(measured);
  });

  it("sums 10k measured rows", () => {
    const many = keys(10_000);
    const heights = new RowHeights(40).measure(many.map((key, i) => [key, 20 + (i % 7)] as const));
    const offsets = heights.offsets(many);
    expect(offsets).toHaveLength(10_001);
    expect(offsets[10_000]).toBe(many.reduce((sum, _key, i) => sum + 20 + (i % 7), 0));
  });
});

describe("rowAt", () => {
  const offsets = [0, 10, 30, 60];
  it("finds the row containing a point", () => {
    expect(rowAt(offsets, 0)).toBe(0);
    expect(rowAt(offsets, 9.5)).toBe(0);
    expect(rowAt(offsets, 10)).toBe(1);
    expect(rowAt(offsets, 59)).toBe(2);
  });
  it("clamps to the list", () => {
    expect(rowAt(offsets, -5)).toBe(0);
    expect(rowAt(offsets, 1000)).toBe(2);
    expect(rowAt([0], 10)).toBe(0);
  });
});

describe("visibleRange", () => {
  const offsets = new RowHeights(100).offsets(keys(10_000));

  it("is empty for no rows", () => expect(visibleRange([0], 0, 500, 100)).toEqual({ start: 0, end: 0 }));

  it("draws the rows meeting the viewport and the overscan, no more", () => {
    expect(visibleRange(offsets, 0, 500, 0)).toEqual({ start: 0, end: 5 });
    expect(visibleRange(offsets, 50, 500, 0)).toEqual({ start: 0, end: 6 });
    expect(visibleRange(offsets, 100_000, 500, 200)).toEqual({ start: 998, end: 1007 });
  });

  it("stays bounded at the end of a 10k list", () => {
    const range = visibleRange(offsets, 999_500, 500, 600);
    expect(range).toEqual({ start: 9989, end: 10_000 });
  });
});

describe("anchoring", () => {
  it("keeps the reader's row in place when rows above it are measured", () => {
    const heights = new RowHeights(100);
    const list = keys(100);
    const before = heights.offsets(list);
    const anchor = anchorAt(before, 5_030);
    expect(anchor).toEqual({ index: 50, within: 30 });
    const measured = heights.measure([
      ["k10", 40],
      ["k20", 250],
    ]);
    expect(scrollTopFor(measured.offsets(list), anchor)).toBe(5_030 - 60 + 150);
  });

  it("clamps an anchor past the end", () => {
    expect(scrollTopFor([0, 10, 20], { index: 7, within: 3 })).toBe(13);
  });

  it("counts a few pixels from the bottom as the bottom", () => {
    expect(atBottom(900, 1500, 600)).toBe(true);
    expect(atBottom(895, 1500, 600)).toBe(true);
    expect(atBottom(800, 1500, 600)).toBe(false);
  });
});
