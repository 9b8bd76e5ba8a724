import { describe, expect, it } from "vitest";
import { addItem, readItem } from "../model";
import { testBoard } from "../testBoard";
import { selectTool } from "./select";

const note = { kind: "note" as const, w: 100, h: 100, color: "#ffd43b", text: "" };

function position(board: ReturnType<typeof testBoard>, id: string) {
  const item = readItem(id, board.session.items.get(id))!;
  return { x: item.x, y: item.y };
}

describe("the select tool", () => {
  it("snaps a dragged item to another's edge and shows the guide, until the drop", () => {
    const board = testBoard();
    addItem(board.session.items, { ...note, x: 0, y: 0 });
    const moving = addItem(board.session.items, { ...note, x: 300, y: 300 });
    selectTool.onDragStart(board.editor, [{ id: moving, position: { x: 300, y: 300 } }]);
    const at = selectTool.onDragMove(board.editor, new Map([[moving, { x: 103, y: 200 }]]));
    expect(at.get(moving)).toEqual({ x: 100, y: 200 });
    expect(board.view.getState().guides.length).toBeGreaterThan(0);
    selectTool.onDrag(board.editor, [{ id: moving, position: { x: 103, y: 200 } }]);
    expect(position(board, moving)).toEqual({ x: 100, y: 200 });
    selectTool.onDragStop(board.editor, [{ id: moving, position: { x: 103, y: 200 } }]);
    expect(board.view.getState().guides).toEqual([]);
    expect(board.view.getState().toolState).toEqual({ name: "idle" });
    expect(board.sent.some((frame) => frame.t === "board-update")).toBe(true);
  });

  it("carries what lies in a dragged empty frame, but not what is locked", () => {
    const board = testBoard();
    const frame = addItem(board.session.items, { kind: "frame", x: 0, y: 0, w: 400, h: 400, color: "#868e96", title: "" });
    const inside = addItem(board.session.items, { ...note, x: 50, y: 50 });
    const locked = addItem(board.session.items, { ...note, x: 200, y: 200, locked: true });
    selectTool.onDragStart(board.editor, [{ id: frame, position: { x: 0, y: 0 } }]);
    expect(selectTool.carried(board.editor)).toEqual([inside]);
    const moved = selectTool.onDragStop(board.editor, [{ id: frame, position: { x: 1000, y: 20 } }]);
    expect([...moved.keys()]).toEqual([frame, inside]);
    expect(position(board, inside)).toEqual({ x: 1050, y: 70 });
    expect(position(board, locked)).toEqual({ x: 200, y: 200 });
  });

  it("picks the whole group from afar when a click lands on one member", () => {
    const board = testBoard();
    const a = addItem(board.session.items, { ...note, x: 0, y: 0, group: "g" });
    const b = addItem(board.session.items, { ...note, x: 500, y: 0, group: "g" });
    const c = addItem(board.session.items, { ...note, x: 0, y: 500 });
    board.view.select([c]);
    selectTool.pickAt(board.editor, { x: 10, y: 10 }, false);
    expect(new Set(board.view.getState().selected)).toEqual(new Set([a, b]));
    selectTool.pickIn(board.editor, { x: -10, y: 400, w: 200, h: 300 });
    expect(new Set(board.view.getState().selected)).toEqual(new Set([a, b, c]));
  });

  it("moves the selection by the arrow keys, ten at a time with Shift", () => {
    const board = testBoard();
    const a = addItem(board.session.items, { ...note, x: 0, y: 0 });
    board.view.select([a]);
    board.key("ArrowRight");
    board.key("ArrowDown", { shiftKey: true });
    expect(position(board, a)).toEqual({ x: 1, y: 10 });
  });

  it("deletes, duplicates and edits the selection by its keys; a read-only board keeps them", () => {
    const board = testBoard();
    const a = addItem(board.session.items, { ...note, x: 0, y: 0 });
    board.view.select([a]);
    board.key("Enter");
    expect(board.view.getState().editing).toBe(a);
    board.key("d", { ctrlKey: true });
    expect(board.items()).toHaveLength(2);
    board.key("Delete");
    expect(board.items()).toHaveLength(1);
    const viewer = testBoard({ readOnly: true });
    const b = addItem(viewer.session.items, { ...note, x: 0, y: 0 });
    viewer.view.select([b]);
    expect(viewer.key("Delete")).toBe(false);
    expect(viewer.key("?")).toBe(true);
    expect(viewer.view.getState().help).toBe(true);
  });
});
