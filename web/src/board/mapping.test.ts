import { describe, expect, it } from "vitest";
import { extent, fitted, onBoard, union } from "./mapping";

describe("the map of a big board", () => {
  it("spans the items and the view together", () => {
    expect(union({ x: 0, y: 0, w: 100, h: 50 }, { x: 50, y: -20, w: 100, h: 30 })).toEqual({ x: 0, y: -20, w: 150, h: 70 });
    expect(extent([{ x: 10, y: 10, w: 10, h: 10 }, { x: -5, y: 30, w: 5, h: 5 }])).toEqual({ x: -5, y: 10, w: 25, h: 25 });
    expect(extent([])).toBeNull();
  });

  it("fits the span in the map, centred, and reads a pixel back as the board point under it", () => {
    const at = fitted({ x: 100, y: 0, w: 1000, h: 500 }, 200, 150);
    expect(at.scale).toBe(0.2);
    expect(at.offset).toEqual({ x: 0, y: 25 });
    expect(onBoard(at, { x: 100, y: 75 })).toEqual({ x: 600, y: 250 });
    expect(onBoard(at, { x: 0, y: 25 })).toEqual({ x: 100, y: 0 });
  });
});
