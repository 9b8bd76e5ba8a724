import { describe, expect, it } from "vitest";
import { testBoard } from "../testBoard";

describe("the text tool", () => {
  it("puts text in the chosen ink where a click lands and opens its editor", () => {
    const board = testBoard();
    board.view.update({ style: { ...board.view.getState().style, stroke: "#e03131", fontSize: 32 } });
    board.dispatcher.choose("text");
    board.drag({ x: 120, y: 30 }, { x: 120, y: 30 });
    const text = board.only("text");
    expect([text.x, text.y, text.w, text.h]).toEqual([0, 0, 240, 60]);
    expect(text.color).toBe("#e03131");
    expect(text.fontSize).toBe(32);
    expect(board.view.getState().editing).toBe(text.id);
  });

  it("takes a box too small to mean it as a click: the usual size", () => {
    const board = testBoard();
    board.dispatcher.choose("text");
    board.drag({ x: 120, y: 30 }, { x: 125, y: 34 });
    expect(board.only("text")).toMatchObject({ w: 240, h: 60 });
  });
});
