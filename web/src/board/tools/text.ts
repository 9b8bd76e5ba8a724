/** The text tool: words on the board in the chosen ink, typed into at once. */
import { addItem, DEFAULTS } from "../model";
import { placingTool, sized, words } from "./place";

export const textTool = placingTool(
  "text",
  (editor, drawn, at) => {
    const color = editor.view.getState().style.stroke ?? DEFAULTS.text.color;
    return addItem(editor.session.items, { kind: "text", ...sized(drawn, at, DEFAULTS.text), color, text: "", ...words(editor) });
  },
  true,
);
