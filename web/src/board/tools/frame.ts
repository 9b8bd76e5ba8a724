/** The empty-frame tool: a titled box that holds what is put on it, so it goes behind everything. */
import { itemMap } from "../commands";
import { addItem, DEFAULTS, readItems, reorder } from "../model";
import { placingTool, sized } from "./place";

export const frameTool = placingTool("frame", (editor, drawn, at) => {
  const { color, ...size } = DEFAULTS.frame;
  const { items } = editor.session;
  const id = addItem(items, { kind: "frame", ...sized(drawn, at, size), color: editor.view.getState().style.stroke ?? color, title: "" });
  for (const [key, z] of reorder(readItems(items), new Set([id]), "back")) itemMap(editor.session, key)?.set("z", z);
  return id;
});
