import { describe, expect, it } from "vitest";
import { testBoard } from "../testBoard";

describe("the note tool", () => {
  it("puts a note of the usual size where a click lands, picks it and opens its editor", () => {
    const board = testBoard();
    board.dispatcher.choose("note");
    board.drag({ x: 300, y: 300 }, { x: 300, y: 300 });
    const note = board.only("note");
    expect([note.x, note.y, note.w, note.h]).toEqual([200, 200, 200, 200]);
    expect(note.color).toBe("#ffd43b");
    const view = board.view.getState();
    expect([...view.selected]).toEqual([note.id]);
    expect(view.editing).toBe(note.id);
    expect(view.tool).toBe("select");
  });

  it("keeps what is typed before the editor shows, for the editor", () => {
    const board = testBoard();
    board.dispatcher.choose("note");
    board.drag({ x: 0, y: 0 }, { x: 0, y: 0 });
    const note = board.only("note");
    for (const key of ["h", "i", "x", "Backspace", "!"]) expect(board.key(key)).toBe(true);
    // The letters did not pick tools: they were the note's first words.
    expect(board.view.getState().tool).toBe("select");
    expect(board.view.takeTyped(note.id)).toBe("hi!");
    expect(board.view.takeTyped(note.id)).toBe("");
  });

  it("draws a note at the size dragged out, in the fill chosen", () => {
    const board = testBoard();
    board.view.update({ style: { ...board.view.getState().style, fill: "#b2f2bb" } });
    board.dispatcher.choose("note");
    board.drag({ x: 100, y: 80 }, { x: 20, y: 20 });
    const note = board.only("note");
    expect([note.x, note.y, note.w, note.h]).toEqual([20, 20, 80, 60]);
    expect(note.color).toBe("#b2f2bb");
  });

  it("shows the box being dragged out, and forgets it when the press is cancelled", () => {
    const board = testBoard();
    board.dispatcher.choose("note");
    board.press({ x: 10, y: 10 });
    board.move({ x: 50, y: 40 });
    expect(board.view.getState().toolState).toMatchObject({ name: "placing", from: { x: 10, y: 10 }, to: { x: 50, y: 40 } });
    board.dispatcher.cancel();
    expect(board.view.getState().toolState).toEqual({ name: "idle" });
    board.release({ x: 50, y: 40 });
    expect(board.items()).toEqual([]);
  });
});
