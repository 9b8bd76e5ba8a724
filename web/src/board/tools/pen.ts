/** The pen: a freehand line in the chosen ink and width, drawn while the pointer is down. The pen stays out. */
import { INK } from "../colours";
import { addItem, strokeBox } from "../model";
import { IDLE } from "../viewStore";
import type { BoardTool } from "./types";

export const penTool: BoardTool = {
  id: "pen",
  onPointerDown(editor, pointer) {
    editor.view.setToolState({ name: "drawing", points: [pointer.board.x, pointer.board.y] });
  },
  onPointerMove(editor, pointer) {
    const state = editor.view.getState().toolState;
    if (state.name === "drawing") editor.view.setToolState({ name: "drawing", points: [...state.points, pointer.board.x, pointer.board.y] });
  },
  onPointerUp(editor) {
    const state = editor.view.getState().toolState;
    if (state.name !== "drawing") return;
    editor.view.setToolState(IDLE);
    // A dot is not a line.
    if (state.points.length < 4) return;
    const { stroke, strokeWidth } = editor.view.getState().style;
    editor.session.step(() => {
      addItem(editor.session.items, { kind: "stroke", ...strokeBox(state.points), color: stroke ?? INK, strokeWidth: strokeWidth ?? undefined });
    });
  },
  onCancel(editor) {
    editor.view.setToolState(IDLE);
  },
};
