/** The board's small palette: stroke (lines, text, borders) and fill (notes' paper, shapes' insides). */
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

/** The colours chosen in the palette; null keeps each kind's default. */
export interface Style {
  stroke: string | null;
  fill: string | null;
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

/** What to paint for a stored colour: the default ink follows the theme. */
export function paint(colour: string): string {
  return colour.toLowerCase() === INK ? "var(--board-ink)" : colour;
}

/** A shape's inside: its own fill, none, or (for shapes drawn before fills) its stroke, faint. */
export function shapeFill(stroke: string, fill: string | undefined): string {
  if (fill === NO_FILL) return "transparent";
  return fill ?? `${stroke}33`;
}
