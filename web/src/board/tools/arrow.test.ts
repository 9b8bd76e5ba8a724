import { describe, expect, it } from "vitest";
import { addItem } from "../model";
import { selectArrowFrom } from "../viewStore";
import { testBoard } from "../testBoard";

function twoNotes() {
  const board = testBoard();
  const fields = { kind: "note" as const, w: 100, h: 100, color: "#ffd43b", text: "" };
  const a = addItem(board.session.items, { ...fields, x: 0, y: 0 });
  const b = addItem(board.session.items, { ...fields, x: 300, y: 0 });
  board.key("a");
  return { board, a, b };
}

describe("the arrow tool", () => {
  it("joins the items a drag starts and ends on, then goes back to Select", () => {
    const { board, a, b } = twoNotes();
    board.drag({ x: 50, y: 50 }, { x: 350, y: 50 }, { from: a, to: b });
    const arrow = board.only("arrow");
    expect([arrow.from, arrow.to]).toEqual([a, b]);
    expect([...board.view.getState().selected]).toEqual([arrow.id]);
    expect(board.view.getState().tool).toBe("select");
  });

  it("draws a free arrow between two points of the empty board", () => {
    const { board } = twoNotes();
    board.drag({ x: 0, y: 500 }, { x: 200, y: 600 });
    expect(board.only("arrow")).toMatchObject({ x1: 0, y1: 500, x2: 200, y2: 600 });
  });

  it("joins two items clicked one after the other, the first marked until the second", () => {
    const { board, a, b } = twoNotes();
    board.drag({ x: 50, y: 50 }, { x: 50, y: 50 }, { from: a });
    expect(selectArrowFrom(board.view.getState())).toBe(a);
    board.press({ x: 350, y: 50 }, b);
    expect(selectArrowFrom(board.view.getState())).toBe(a);
    board.release({ x: 350, y: 50 }, b);
    expect(board.only("arrow")).toMatchObject({ from: a, to: b });
    expect(selectArrowFrom(board.view.getState())).toBeNull();
  });

  it("joins two items picked by Enter on each, and never an item to itself", () => {
    const { board, a, b } = twoNotes();
    expect(board.key("Enter", { node: a })).toBe(true);
    board.key("Enter", { node: a });
    expect(board.items().filter((item) => item.kind === "arrow")).toEqual([]);
    board.key("Enter", { node: b });
    expect(board.only("arrow")).toMatchObject({ from: a, to: b });
  });

  it("forgets the first pick when another tool is chosen", () => {
    const { board, a } = twoNotes();
    board.key("Enter", { node: a });
    board.key("Escape");
    expect(board.view.getState().tool).toBe("select");
    expect(selectArrowFrom(board.view.getState())).toBeNull();
  });
});
