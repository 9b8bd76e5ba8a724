import { describe, expect, it } from "vitest";
import { type Box, contains, freeSpot, GAP, overlaps } from "./placement";

const FRAME = { w: 640, h: 480 };

function place(occupied: Box[], size = FRAME, anchor = { x: 0, y: 0 }, near?: Box): Box {
  return { ...freeSpot(occupied, size, anchor, { near }), ...size };
}

describe("overlaps", () => {
  it("counts touching edges as apart, and the gap as part of each box", () => {
    const a = { x: 0, y: 0, w: 10, h: 10 };
    expect(overlaps(a, { x: 10, y: 0, w: 10, h: 10 })).toBe(false);
    expect(overlaps(a, { x: 9, y: 9, w: 10, h: 10 })).toBe(true);
    expect(overlaps(a, { x: 15, y: 0, w: 10, h: 10 }, 6)).toBe(true);
    expect(overlaps(a, { x: 16, y: 0, w: 10, h: 10 }, 6)).toBe(false);
  });
});

describe("freeSpot", () => {
  it("centres the item on the anchor when the board is empty there", () => {
    expect(freeSpot([], FRAME, { x: 100, y: 50 })).toEqual({ x: -220, y: -190 });
  });

  it("never puts five frames added in a row on top of each other", () => {
    const placed: Box[] = [];
    for (let i = 0; i < 5; i++) placed.push(place(placed));
    for (let i = 0; i < placed.length; i++) {
      for (let j = i + 1; j < placed.length; j++) expect(overlaps(placed[i], placed[j])).toBe(false);
    }
  });

  it("keeps the gap from what is there, and stays close to the anchor", () => {
    const first = place([]);
    const second = place([first]);
    expect(overlaps(first, second, GAP - 1)).toBe(false);
    // Beside the first one, not somewhere far away.
    expect(Math.hypot(second.x - first.x, second.y - first.y)).toBeLessThanOrEqual(FRAME.w + GAP);
  });

  it("avoids small items too, not only frames", () => {
    const note = { x: -100, y: -100, w: 200, h: 200 };
    expect(overlaps(place([note]), note)).toBe(false);
  });

  it("puts an item beside the frame that caused it, right of it first", () => {
    const agent = { x: 1000, y: 1000, w: 640, h: 480 };
    const note = place([agent], { w: 200, h: 200 }, { x: 0, y: 0 }, agent);
    expect(note).toEqual({ x: 1000 + 640 + GAP, y: 1000, w: 200, h: 200 });
  });

  it("goes below the frame when its right side is taken", () => {
    const agent = { x: 0, y: 0, w: 640, h: 480 };
    const neighbour = { x: 700, y: 0, w: 640, h: 480 };
    const note = place([agent, neighbour], { w: 200, h: 200 }, { x: 5000, y: 5000 }, agent);
    expect(note).toEqual({ x: 0, y: 480 + GAP, w: 200, h: 200 });
  });

  it("takes a free spot in view over a nearer one that is not", () => {
    const agent = { x: 0, y: 0, w: 640, h: 480 };
    const view = { x: -50, y: -50, w: 1400, h: 1000 };
    const anchor = { x: 320, y: 400 };
    // Below the agent is nearer, even counted in views, but sticks out of the view; right of it fits inside.
    expect(place([agent], FRAME, anchor)).toEqual({ x: 0, y: 480 + GAP, ...FRAME });
    expect({ ...freeSpot([agent], FRAME, anchor, { within: view }), ...FRAME }).toEqual({ x: 640 + GAP, y: 160, ...FRAME });
  });

  it("counts nearness in views: on a wide view the spot beside comes before the one below", () => {
    const agent = { x: 0, y: 0, w: 640, h: 480 };
    const wide = { x: 200, y: 200, w: 400, h: 200 };
    const anchor = { x: 320, y: 240 };
    expect(place([agent], FRAME, anchor)).toEqual({ x: 0, y: 480 + GAP, ...FRAME });
    expect({ ...freeSpot([agent], FRAME, anchor, { within: wide }), ...FRAME }).toEqual({ x: 640 + GAP, y: 0, ...FRAME });
  });

  it("finds room on a crowded board", () => {
    const grid: Box[] = [];
    for (let i = 0; i < 6; i++) for (let j = 0; j < 6; j++) grid.push({ x: i * 700, y: j * 520, w: 640, h: 480 });
    const spot = place(grid, FRAME, { x: 1500, y: 1500 });
    for (const box of grid) expect(overlaps(spot, box)).toBe(false);
  });
});

describe("contains", () => {
  it("is true only for a box wholly inside the view", () => {
    const view = { x: 0, y: 0, w: 100, h: 100 };
    expect(contains(view, { x: 10, y: 10, w: 80, h: 80 })).toBe(true);
    expect(contains(view, { x: 50, y: 50, w: 80, h: 80 })).toBe(false);
  });
});
