/** The rectangle and ellipse tools: a shape in the chosen ink, fill, line and font. */
import { addItem, DEFAULTS } from "../model";
import { lines, placingTool, sized, words } from "./place";
import type { BoardTool } from "./types";

function shapeTool(shape: "rect" | "ellipse"): BoardTool {
  return placingTool(shape, (editor, drawn, at) => {
    const { stroke, fill } = editor.view.getState().style;
    return addItem(editor.session.items, {
      kind: "shape",
      shape,
      ...sized(drawn, at, DEFAULTS.shape),
      color: stroke ?? DEFAULTS.shape.color,
      fill: fill ?? undefined,
      text: "",
      ...lines(editor),
      ...words(editor),
    });
  });
}

export const rectTool = shapeTool("rect");
export const ellipseTool = shapeTool("ellipse");
