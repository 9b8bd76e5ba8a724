/** The board's tools, their letter shortcuts, and the keys the help sheet lists. */

import { arrowTool } from "./arrow";
import { frameTool } from "./frame";
import { noteTool } from "./note";
import { penTool } from "./pen";
import { selectTool } from "./select";
import { ellipseTool, rectTool } from "./shape";
import { textTool } from "./text";
import type { BoardTool, Tool } from "./types";

export type { Tool } from "./types";

export interface ToolInfo {
  tool: Tool;
  label: string;
  /** The letter that picks the tool, as `KeyboardEvent.key` gives it (lower case). */
  key: string;
}

export const TOOLS: ToolInfo[] = [
  { tool: "select", label: "Select", key: "v" },
  { tool: "note", label: "Sticky note", key: "n" },
  { tool: "text", label: "Text", key: "t" },
  { tool: "rect", label: "Rectangle", key: "r" },
  { tool: "ellipse", label: "Ellipse", key: "o" },
  { tool: "arrow", label: "Arrow", key: "a" },
  { tool: "pen", label: "Pen", key: "p" },
  { tool: "frame", label: "Empty frame", key: "f" },
];

/** Each tool's own behaviour, by the tool. */
export const BOARD_TOOLS: Record<Tool, BoardTool> = {
  select: selectTool,
  note: noteTool,
  text: textTool,
  rect: rectTool,
  ellipse: ellipseTool,
  arrow: arrowTool,
  pen: penTool,
  frame: frameTool,
};

/** The tool a key press picks, or null: only a bare letter (no Ctrl, Alt or Meta) picks one. */
export function toolForKey(event: { key: string; ctrlKey: boolean; altKey: boolean; metaKey: boolean }): Tool | null {
  if (event.ctrlKey || event.altKey || event.metaKey) return null;
  const key = event.key.toLowerCase();
  return TOOLS.find((info) => info.key === key)?.tool ?? null;
}

/** Every key the board answers to, for the `?` sheet: keys as shown, and what they do. */
export const SHORTCUTS: [string, string][] = [
  ...TOOLS.map((info): [string, string] => [info.key.toUpperCase(), info.label]),
  ["Drag with a tool", "Draw the shape, note, text or frame at that size (a click gives the usual size)"],
  ["Esc", "Back to Select (or stop editing)"],
  ["Enter", "Edit the selected item's text (an arrow's label)"],
  ["Delete", "Delete the selection"],
  ["Shift + click, or drag on empty board", "Select several items"],
  ["Ctrl+A", "Select everything"],
  ["Ctrl+C, Ctrl+X, Ctrl+V", "Copy, cut and paste (also between boards, and text or images from elsewhere)"],
  ["Ctrl+D", "Duplicate the selection"],
  ["Ctrl+G, Ctrl+Shift+G", "Group, ungroup"],
  ["Ctrl+Shift+L", "Lock or unlock"],
  ["Arrow keys (Shift: ×10)", "Move the selection"],
  ["Tab from a selected arrow to its bend handle, then arrow keys", "Bend the arrow"],
  ["Ctrl+Z", "Undo"],
  ["Ctrl+Shift+Z", "Redo"],
  ["Scroll, or two fingers", "Pan the board"],
  ["Ctrl+scroll, or pinch", "Zoom (over a frame's content too)"],
  ["Space + drag", "Pan the board"],
  ["Shift+1, Shift+0", "Fit the board, zoom to 100 %"],
  ["Esc, then Tab", "Leave a terminal (Tab alone goes to the shell)"],
  ["?", "Show this list"],
];
