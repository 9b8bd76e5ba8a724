import { describe, expect, it } from "vitest";
import { addItem } from "../model";
import { testBoard } from "../testBoard";

describe("the frame tool", () => {
  it("puts an empty frame behind what is already on the board", () => {
    const board = testBoard();
    const note = addItem(board.session.items, { kind: "note", x: 0, y: 0, w: 100, h: 100, color: "#ffd43b", text: "" });
    board.key("f");
    board.drag({ x: -50, y: -50 }, { x: 400, y: 300 });
    const frame = board.only("frame");
    expect(frame).toMatchObject({ x: -50, y: -50, w: 450, h: 350, title: "" });
    expect(board.items().map((item) => item.id)).toEqual([frame.id, note]);
    expect([...board.view.getState().selected]).toEqual([frame.id]);
  });
});
