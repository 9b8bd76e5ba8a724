/**
 * The arrow tool: drag from anywhere to anywhere (an end dropped on an item is bound to it), or
 * pick two items by clicks or by Enter on each: the first picked is where the arrow starts.
 */
import { INK } from "../colours";
import { addItem } from "../model";
import { IDLE, selectArrowFrom } from "../viewStore";
import { lines, isClick } from "./place";
import type { ArrowEnd, BoardEditor, BoardTool } from "./types";

/** Draws an arrow from `from` to `to` (not from an item to itself), picks it and goes back to Select. */
export function connect(editor: BoardEditor, from: ArrowEnd, to: ArrowEnd): void {
  if (from.item && from.item === to.item) return;
  let id = "";
  const end = (which: "1" | "2", point: ArrowEnd) =>
    point.item ? { [which === "1" ? "from" : "to"]: point.item } : { [`x${which}`]: point.point.x, [`y${which}`]: point.point.y };
  editor.session.step(() => {
    id = addItem(editor.session.items, {
      kind: "arrow",
      ...end("1", from),
      ...end("2", to),
      x: Math.min(from.point.x, to.point.x),
      y: Math.min(from.point.y, to.point.y),
      w: 1,
      h: 1,
      color: editor.view.getState().style.stroke ?? INK,
      ...lines(editor),
    });
  });
  editor.view.select([id]);
  editor.view.setTool("select");
}

function centre(editor: BoardEditor, id: string): ArrowEnd {
  const box = editor.boxOf(id);
  return { item: id, point: box ? { x: box.x + box.w / 2, y: box.y + box.h / 2 } : { x: 0, y: 0 } };
}

/** The item picked before this press, if any. */
function picked(editor: BoardEditor): string | null {
  return selectArrowFrom(editor.view.getState());
}

/** A click or Enter on `id`: the arrow's start, or its end once a start was picked. */
function pick(editor: BoardEditor, id: string, before: string | null): void {
  if (before === null) editor.view.setToolState({ name: "picked", item: id });
  else if (id !== before) connect(editor, centre(editor, before), centre(editor, id));
}

export const arrowTool: BoardTool = {
  id: "arrow",
  onPointerDown(editor, pointer) {
    editor.view.setToolState({ name: "joining", from: { point: pointer.board, item: pointer.item }, to: pointer.board, screen: pointer.screen, picked: picked(editor) });
  },
  onPointerMove(editor, pointer) {
    const state = editor.view.getState().toolState;
    if (state.name === "joining") editor.view.setToolState({ ...state, to: pointer.board });
  },
  onPointerUp(editor, pointer) {
    const state = editor.view.getState().toolState;
    if (state.name !== "joining") return;
    editor.view.setToolState(state.picked === null ? IDLE : { name: "picked", item: state.picked });
    if (!isClick(state.screen, pointer.screen)) connect(editor, state.from, { point: pointer.board, item: pointer.item });
    else if (state.from.item) pick(editor, state.from.item, state.picked);
  },
  onCancel(editor) {
    const before = picked(editor);
    editor.view.setToolState(before === null ? IDLE : { name: "picked", item: before });
  },
  onKeyDown(editor, key) {
    if (key.key !== "Enter" || !key.node) return false;
    pick(editor, key.node, picked(editor));
    return true;
  },
};
