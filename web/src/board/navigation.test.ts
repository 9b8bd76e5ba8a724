import { describe, expect, it } from "vitest";
import { type Insets, panInto } from "./navigation";

const AREA = { w: 1000, h: 700 };
/** A toolbar above, the zoom bar below: the part left clear is x 24..976, y 100..600 on screen. */
const INSETS: Insets = { top: 100, right: 24, bottom: 100, left: 24 };

describe("panInto", () => {
  it("leaves the view as it is when the box is in the clear part already", () => {
    const view = { x: 0, y: 0, zoom: 1 };
    expect(panInto(view, { x: 100, y: 200, w: 300, h: 200 }, AREA, INSETS)).toEqual(view);
  });

  it("pans a box below the clear part up until its bottom edge is at that part's bottom, no further", () => {
    const view = { x: 0, y: 0, zoom: 0.5 };
    // On screen the box spans y 500..700: it goes up by 100, and stays where it was across.
    expect(panInto(view, { x: 200, y: 1000, w: 400, h: 400 }, AREA, INSETS)).toEqual({ x: 0, y: -100, zoom: 0.5 });
  });

  it("pans a box left of the clear part right until its left edge is at that part's left", () => {
    const view = { x: 0, y: 0, zoom: 1 };
    expect(panInto(view, { x: -500, y: 200, w: 300, h: 200 }, AREA, INSETS)).toEqual({ x: 524, y: 0, zoom: 1 });
  });

  it("shows a box larger than the clear part from its top left", () => {
    const view = { x: 0, y: 0, zoom: 1 };
    expect(panInto(view, { x: 0, y: 0, w: 2000, h: 2000 }, AREA, INSETS)).toEqual({ x: 24, y: 100, zoom: 1 });
  });
});
