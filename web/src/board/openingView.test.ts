import { describe, expect, it } from "vitest";
import type { Insets } from "./navigation";
import { openingView, PHONE_OPENING_ZOOM, type StackedBox, WIDE_OPENING_ZOOM, workedOn } from "./openingView";

/** A phone's board (390 px wide) under its toolbar, with the zoom bar at the bottom. */
const PHONE = { w: 390, h: 700 };
const PHONE_INSETS: Insets = { top: 84, right: 24, bottom: 80, left: 24 };
const WIDE = { w: 1440, h: 800 };
const WIDE_INSETS: Insets = { top: 84, right: 24, bottom: 200, left: 24 };

const note = (x: number, y: number, z: number): StackedBox => ({ x, y, w: 200, h: 200, z });
/** A grid of `n` notes, made left to right, row by row. */
const grid = (n: number) => Array.from({ length: n }, (_, i) => note((i % 6) * 240, Math.floor(i / 6) * 240, i + 1));

/** The part of the board (board units) that `view` shows clear of the insets. */
function clearPart(view: { x: number; y: number; zoom: number }, area: { w: number; h: number }, insets: Insets) {
  const x = (insets.left - view.x) / view.zoom;
  const y = (insets.top - view.y) / view.zoom;
  return { x, y, w: (area.w - insets.left - insets.right) / view.zoom, h: (area.h - insets.top - insets.bottom) / view.zoom };
}

function shows(part: { x: number; y: number; w: number; h: number }, box: { x: number; y: number; w: number; h: number }): boolean {
  const eps = 1e-6;
  return box.x >= part.x - eps && box.y >= part.y - eps && box.x + box.w <= part.x + part.w + eps && box.y + box.h <= part.y + part.h + eps;
}

describe("openingView", () => {
  it("leaves an empty board's view as it is", () => {
    expect(openingView([], PHONE, PHONE_INSETS, PHONE_OPENING_ZOOM)).toBeNull();
  });

  it("fits a board that reads whole, at 100 % at most", () => {
    const boxes = [note(0, 0, 1), note(240, 0, 2)];
    const view = openingView(boxes, WIDE, WIDE_INSETS, WIDE_OPENING_ZOOM)!;
    expect(view.zoom).toBe(1);
    for (const box of boxes) expect(shows(clearPart(view, WIDE, WIDE_INSETS), box)).toBe(true);
  });

  it("fits a board whose fit is just readable", () => {
    // 1,392 px of clear width over 1,640 board units: 0.85.
    const boxes = [note(0, 0, 1), note(1440, 0, 2)];
    const view = openingView(boxes, WIDE, WIDE_INSETS, WIDE_OPENING_ZOOM)!;
    expect(view.zoom).toBeCloseTo(1392 / 1640);
    for (const box of boxes) expect(shows(clearPart(view, WIDE, WIDE_INSETS), box)).toBe(true);
  });

  it("opens a phone at the readable zoom on the item made last, clear of the toolbar and zoom bar", () => {
    const boxes = grid(30);
    const last = boxes[29];
    const view = openingView(boxes, PHONE, PHONE_INSETS, PHONE_OPENING_ZOOM)!;
    expect(view.zoom).toBe(PHONE_OPENING_ZOOM);
    const part = clearPart(view, PHONE, PHONE_INSETS);
    expect(shows(part, last)).toBe(true);
    // It is the board's bottom right note: the view shows the notes before it, not what lies past it.
    expect(part.x + part.w).toBeCloseTo(last.x + last.w);
    expect(part.y + part.h).toBeCloseTo(last.y + last.h);
  });

  it("takes the item in front, wherever it lies in the list", () => {
    const boxes = grid(30);
    boxes[14] = { ...boxes[14], z: 100 };
    const view = openingView(boxes, PHONE, PHONE_INSETS, PHONE_OPENING_ZOOM)!;
    const part = clearPart(view, PHONE, PHONE_INSETS);
    // In the board's middle, it is centred.
    expect(part.x + part.w / 2).toBeCloseTo(boxes[14].x + 100);
    expect(part.y + part.h / 2).toBeCloseTo(boxes[14].y + 100);
  });

  it("shows the top left of an item bigger than the screen at that zoom", () => {
    const frame: StackedBox = { x: 1000, y: 500, w: 640, h: 480, z: 99 };
    const view = openingView([...grid(12), frame], PHONE, PHONE_INSETS, PHONE_OPENING_ZOOM)!;
    expect(view.zoom).toBe(PHONE_OPENING_ZOOM);
    const part = clearPart(view, PHONE, PHONE_INSETS);
    expect(part.x).toBeCloseTo(frame.x);
    expect(shows(part, { ...frame, w: part.w })).toBe(true);
  });

  it("opens at the top left of the board when no item is in front of the others", () => {
    const boxes = grid(30).map((box) => ({ ...box, x: box.x - 500, y: box.y - 300, z: 0 }));
    const view = openingView(boxes, PHONE, PHONE_INSETS, PHONE_OPENING_ZOOM)!;
    expect(view.zoom).toBe(PHONE_OPENING_ZOOM);
    const part = clearPart(view, PHONE, PHONE_INSETS);
    expect(part.x).toBeCloseTo(-500);
    expect(part.y).toBeCloseTo(-300);
  });

  it("shows no more of the empty board past the items than it must", () => {
    // A row of notes a little too wide to read whole: the one made last, at the row's right end,
    // is shown with the others to its left rather than centred before empty board.
    const boxes = Array.from({ length: 8 }, (_, i) => note(i * 240, 0, i + 1));
    const view = openingView(boxes, WIDE, WIDE_INSETS, 0.9)!;
    expect(view.zoom).toBe(0.9);
    const part = clearPart(view, WIDE, WIDE_INSETS);
    expect(part.x + part.w).toBeCloseTo(boxes[7].x + boxes[7].w);
    expect(shows(part, boxes[7])).toBe(true);
    // Its one row is centred up and down.
    expect(part.y + part.h / 2).toBeCloseTo(100);
  });

  it("fits on a wide screen what a phone opens at the item made last", () => {
    const boxes = grid(12);
    expect(openingView(boxes, PHONE, PHONE_INSETS, PHONE_OPENING_ZOOM)!.zoom).toBe(PHONE_OPENING_ZOOM);
    const wide = openingView(boxes, WIDE, WIDE_INSETS, WIDE_OPENING_ZOOM)!;
    expect(wide.zoom).toBeGreaterThanOrEqual(WIDE_OPENING_ZOOM);
    for (const box of boxes) expect(shows(clearPart(wide, WIDE, WIDE_INSETS), box)).toBe(true);
  });
});

describe("workedOn", () => {
  it("is the item in front, or the board's top left on a tie", () => {
    expect(workedOn([note(0, 0, 1), note(300, 300, 5), note(600, 0, 2)])).toEqual(note(300, 300, 5));
    expect(workedOn([note(100, 50, 3), note(-20, 400, 3)])).toEqual({ x: -20, y: 50, w: 320, h: 550 });
  });
});
