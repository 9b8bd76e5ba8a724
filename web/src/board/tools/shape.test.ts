import { describe, expect, it } from "vitest";
import { testBoard } from "../testBoard";

describe("the rectangle and ellipse tools", () => {
  it("draw the shape dragged out, with the chosen line, and go back to Select", () => {
    const board = testBoard();
    board.view.update({ style: { ...board.view.getState().style, strokeWidth: 4, dash: "dashed" } });
    board.dispatcher.choose("rect");
    board.drag({ x: 10, y: 10 }, { x: 110, y: 60 });
    const rect = board.only("shape");
    expect(rect).toMatchObject({ shape: "rect", x: 10, y: 10, w: 100, h: 50, strokeWidth: 4, dash: "dashed" });
    expect(board.view.getState().tool).toBe("select");
    expect(board.view.getState().editing).toBeNull();
  });

  it("put an ellipse of the usual size where a click lands, undone in one step", () => {
    const board = testBoard();
    board.dispatcher.choose("ellipse");
    board.drag({ x: 80, y: 50 }, { x: 80, y: 50 });
    expect(board.only("shape")).toMatchObject({ shape: "ellipse", x: 0, y: 0, w: 160, h: 100 });
    board.key("z", { ctrlKey: true });
    expect(board.items()).toEqual([]);
  });
});
