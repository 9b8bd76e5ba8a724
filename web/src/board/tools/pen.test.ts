import { describe, expect, it } from "vitest";
import { testBoard } from "../testBoard";

describe("the pen", () => {
  it("draws the line the pointer went along, and stays out for the next", () => {
    const board = testBoard();
    board.key("p");
    board.view.update({ style: { ...board.view.getState().style, stroke: "#2f9e44" } });
    board.press({ x: 0, y: 0 });
    board.move({ x: 30, y: 10 });
    board.move({ x: 60, y: 40 });
    expect(board.view.getState().toolState).toEqual({ name: "drawing", points: [0, 0, 30, 10, 60, 40] });
    board.release({ x: 60, y: 40 });
    const stroke = board.only("stroke");
    expect(stroke.color).toBe("#2f9e44");
    expect(stroke.points?.length).toBe(6);
    expect(board.view.getState().tool).toBe("pen");
    expect(board.view.getState().toolState).toEqual({ name: "idle" });
  });

  it("leaves a dot off the board", () => {
    const board = testBoard();
    board.key("p");
    board.press({ x: 5, y: 5 });
    board.release({ x: 5, y: 5 });
    expect(board.items()).toEqual([]);
  });
});
