/** The sticky-note tool: a note of the chosen fill (yellow by default), typed into at once. */
import { addItem, DEFAULTS } from "../model";
import { placingTool, sized, words } from "./place";

export const noteTool = placingTool(
  "note",
  (editor, drawn, at) => {
    const { fill } = editor.view.getState().style;
    const color = fill && fill !== "none" ? fill : DEFAULTS.note.color;
    return addItem(editor.session.items, { kind: "note", ...sized(drawn, at, DEFAULTS.note), color, text: "", ...words(editor) });
  },
  true,
);
