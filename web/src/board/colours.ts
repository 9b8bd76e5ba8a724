/** The board's small palette: stroke (lines, text, borders) and fill (notes' paper, shapes' insides). */
import type { DashKind } from "../protocol.gen";
import type { ItemKind } from "./model";

/** The default dark ink; drawn in the theme's ink colour so it stays visible on a dark board. */
export const INK = "#1e1e1e";
export const NO_FILL = "none";

export const STROKES: [string, string][] = [
  ["Ink", INK],
  ["Grey", "#868e96"],
  ["Red", "#e03131"],
  ["Green", "#2f9e44"],
  ["Blue", "#1971c2"],
  ["Orange", "#f08c00"],
  ["Violet", "#9c36b5"],
];

export const FILLS: [string, string][] = [
  ["No fill", NO_FILL],
  ["Yellow", "#ffd43b"],
  ["Pink", "#ffc9c9"],
  ["Green", "#b2f2bb"],
  ["Blue", "#a5d8ff"],
  ["Violet", "#eebefa"],
];

/** The style chosen in the style bar; null keeps each kind's default. */
export interface Style {
  stroke: string | null;
  fill: string | null;
  strokeWidth: number | null;
  dash: DashKind | null;
  fontSize: number | null;
}

export const NO_STYLE: Style = { stroke: null, fill: null, strokeWidth: null, dash: null, fontSize: null };

const LINED = new Set<ItemKind>(["shape", "arrow", "stroke"]);
const WORDED = new Set<ItemKind>(["note", "text", "shape"]);

/** The keys to set on an item of `kind` for a style choice: colours (as `colourEdits`), and line and text sizes where the kind has them. */
export function styleEdits(kind: ItemKind, choice: Partial<Style>): Record<string, string | number> {
  const edits: Record<string, string | number> = colourEdits(kind, choice);
  if (LINED.has(kind) && choice.strokeWidth) edits.strokeWidth = choice.strokeWidth;
  if (LINED.has(kind) && kind !== "stroke" && choice.dash) edits.dash = choice.dash;
  if (WORDED.has(kind) && choice.fontSize) edits.fontSize = choice.fontSize;
  return edits;
}

/**
 * The keys to set on an item of `kind` for a palette choice: a note's `color` is its paper (a
 * fill), every other kind's `color` is its stroke, and only shapes have a separate `fill`.
 */
export function colourEdits(kind: ItemKind, choice: Partial<Style>): Record<string, string> {
  const edits: Record<string, string> = {};
  if (kind === "note") {
    if (choice.fill && choice.fill !== NO_FILL) edits.color = choice.fill;
  } else if (choice.stroke) {
    edits.color = choice.stroke;
  }
  if (kind === "shape" && choice.fill) edits.fill = choice.fill;
  return edits;
}

/** Whether a stored colour is the default ink, which is drawn in the theme's ink. */
export function isInk(colour: string): boolean {
  const lower = colour.toLowerCase();
  return lower === INK || lower === OLD_ARROW;
}

/** What to paint for a stored colour: the default ink follows the theme. */
export function paint(colour: string): string {
  return isInk(colour) ? "var(--board-ink)" : colour;
}

/** Arrows used to be drawn in this grey, too faint on a dark board: it is painted as ink now. */
const OLD_ARROW = "#495057";

/** A shape's inside: its own fill, none, or (for shapes drawn before fills) its stroke, faint. */
export function shapeFill(stroke: string, fill: string | undefined): string {
  if (fill === NO_FILL) return "transparent";
  return fill ?? `${stroke}33`;
}
