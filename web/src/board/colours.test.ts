import { describe, expect, it } from "vitest";
import { colourEdits, INK, NO_FILL, paint, shapeFill } from "./colours";

describe("colourEdits", () => {
  it("colours a note's paper with the fill, never with no fill or a stroke", () => {
    expect(colourEdits("note", { fill: "#a5d8ff" })).toEqual({ color: "#a5d8ff" });
    expect(colourEdits("note", { fill: NO_FILL })).toEqual({});
    expect(colourEdits("note", { stroke: "#e03131" })).toEqual({});
  });

  it("gives a shape both a stroke and a fill", () => {
    expect(colourEdits("shape", { stroke: "#e03131" })).toEqual({ color: "#e03131" });
    expect(colourEdits("shape", { fill: NO_FILL })).toEqual({ fill: NO_FILL });
  });

  it("colours text, arrows, strokes and frames by their stroke only", () => {
    for (const kind of ["text", "arrow", "stroke", "frame"] as const) {
      expect(colourEdits(kind, { stroke: "#2f9e44", fill: "#ffd43b" })).toEqual({ color: "#2f9e44" });
    }
  });
});

describe("paint and shapeFill", () => {
  it("draws the default ink in the theme's colour and other colours as they are", () => {
    expect(paint(INK)).toBe("var(--board-ink)");
    expect(paint("#E03131")).toBe("#E03131");
  });

  it("fills a shape with its fill, nothing, or its stroke faintly when it has none", () => {
    expect(shapeFill("#1971c2", "#ffd43b")).toBe("#ffd43b");
    expect(shapeFill("#1971c2", NO_FILL)).toBe("transparent");
    expect(shapeFill("#1971c2", undefined)).toBe("#1971c233");
  });
});
