/**
 * What the tools that make a boxed item share: a press on the empty board and a drag draw the
 * item at that size; a click (or a box too small to mean it) puts it at its usual size, centred
 * there. The new item is picked and the board goes back to Select.
 */
import type { Point } from "../arrows";
import type { DashKind } from "../../protocol.gen";
import { IDLE } from "../viewStore";
import type { BoardEditor, BoardTool, Tool, ToolPointer } from "./types";

/** Below this many screen pixels of movement a press is a click, not a drag. */
const CLICK_PX = 4;
/** A drawn box smaller than this (board units) on either side is taken as a click: the usual size. */
const MIN_DRAWN = 8;

type Box = { x: number; y: number; w: number; h: number };

/** Whether the pointer stayed where it went down: a click. */
export function isClick(from: Point, to: Point): boolean {
  return Math.hypot(to.x - from.x, to.y - from.y) < CLICK_PX;
}

/** The box drawn, or for a click (or a box too small) one of `size` centred at `at`. */
export function sized(drawn: Box | null, at: Point, size: { w: number; h: number }): Box {
  return drawn && drawn.w >= MIN_DRAWN && drawn.h >= MIN_DRAWN ? drawn : { x: at.x - size.w / 2, y: at.y - size.h / 2, ...size };
}

/**
 * A tool that makes an item in a box: `make` writes it (inside one undo step) and returns its
 * id; `typed` tools open the new item's editor at once.
 */
export function placingTool(id: Tool, make: (editor: BoardEditor, drawn: Box | null, at: Point) => string, typed = false): BoardTool {
  return {
    id,
    onPointerDown(editor, pointer) {
      editor.view.setToolState({ name: "placing", from: pointer.board, to: pointer.board, screen: pointer.screen });
    },
    onPointerMove(editor, pointer) {
      const state = editor.view.getState().toolState;
      if (state.name === "placing") editor.view.setToolState({ ...state, to: pointer.board });
    },
    onPointerUp(editor, pointer: ToolPointer) {
      const state = editor.view.getState().toolState;
      if (state.name !== "placing") return;
      editor.view.setToolState(IDLE);
      const end = pointer.board;
      const drawn = isClick(state.screen, pointer.screen)
        ? null
        : { x: Math.min(state.from.x, end.x), y: Math.min(state.from.y, end.y), w: Math.abs(end.x - state.from.x), h: Math.abs(end.y - state.from.y) };
      let made = "";
      editor.session.step(() => {
        made = make(editor, drawn, end);
      });
      editor.view.select([made]);
      if (typed) editor.view.edit(made, true);
      editor.view.setTool("select");
    },
    onCancel(editor) {
      editor.view.setToolState(IDLE);
    },
  };
}

/** The line style the toolbar's choice gives a new item. */
export function lines(editor: BoardEditor): { strokeWidth?: number; dash?: DashKind } {
  const { style } = editor.view.getState();
  return { strokeWidth: style.strokeWidth ?? undefined, dash: style.dash ?? undefined };
}

/** The font size the toolbar's choice gives a new item. */
export function words(editor: BoardEditor): { fontSize?: number } {
  return { fontSize: editor.view.getState().style.fontSize ?? undefined };
}
