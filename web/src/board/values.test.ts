// @vitest-environment jsdom
/**
 * The board's values are read as their type, never trusted from the document: what the page draws
 * and what an export writes holds no value that fetches or breaks out of its attribute.
 */
import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import * as Y from "yjs";
import { decodeClip, encodeClip } from "./clipboard";
import { boardSvg, type Paper } from "./exportBoard";
import { type ClipItem, readItem, readItems } from "./model";
import { isColour, isImageSrc } from "./values";

const VECTORS = JSON.parse(readFileSync(join(dirname(fileURLToPath(import.meta.url)), "../../../tests/vectors/board_values.json"), "utf-8"));
const LEAK = "http://127.0.0.1:9/leak";
const BREAK_OUT = '"/><script>alert(1)</script><x a="';
const PNG = "data:image/png;base64,iVBORw0KGgo=";
const LIGHT: Paper = { board: "#fbfbfa", ink: "#1e1e1e", surface: "#ffffff", bar: "#f0f0ee", text: "#1d1d1f", muted: "#595959" };
const DARK: Paper = { board: "#18181b", ink: "#e8e8ec", surface: "#1f1f23", bar: "#2a2a2f", text: "#ececf0", muted: "#b0b0b8" };

describe("the board's value vectors", () => {
  for (const colour of VECTORS.colours.fit) it(`${JSON.stringify(colour)} is a colour`, () => expect(isColour(colour)).toBe(true));
  for (const colour of VECTORS.colours.unfit) it(`${JSON.stringify(colour)} is none`, () => expect(isColour(colour)).toBe(false));
  for (const src of VECTORS.images.fit) it(`${src} is a picture held in the board`, () => expect(isImageSrc(src)).toBe(true));
  for (const src of VECTORS.images.unfit) it(`${JSON.stringify(src)} is not`, () => expect(isImageSrc(src)).toBe(false));
});

/** A board a peer wrote anything into, as a stored board from before values were typed may hold. */
function hostileBoard(): Y.Map<unknown> {
  const items = new Y.Doc().getMap<unknown>("items");
  const item = (id: string, fields: Record<string, unknown>) => {
    const map = new Y.Map<unknown>();
    for (const [key, value] of Object.entries({ x: 0, y: 0, w: 100, h: 80, z: 1, ...fields })) map.set(key, value);
    items.set(id, map);
    return map;
  };
  item("shape", { kind: "shape", shape: "rect", color: `red" onload="fetch('${LEAK}')`, fill: BREAK_OUT, strokeWidth: "2px", dash: "x" });
  item("note", { kind: "note", color: `url(${LEAK})`, fontSize: "16px;background:url(x)" }).set("text", new Y.Text(`<img src="${LEAK}">`));
  item("image", { kind: "image", src: `${LEAK}/a.png`, alt: BREAK_OUT });
  item("svg", { kind: "image", src: "data:image/svg+xml;base64,PHN2ZyBvbmxvYWQ9YWxlcnQoMSk+", x: 200 });
  item("arrow", { kind: "arrow", x1: 0, y1: 0, x2: Number.NaN, y2: 5, color: BREAK_OUT, label: BREAK_OUT });
  item("stroke", { kind: "stroke", color: `${LEAK}#x` }).set("points", Y.Array.from<number | string>([0, 0, "1;x", 4, Infinity, 8]));
  item("frame", { kind: "frame", title: BREAK_OUT, color: "javascript:alert(1)" });
  return items;
}

describe("reading the board", () => {
  it("takes a value that is not of its type for absent", () => {
    const items = hostileBoard();
    const shape = readItem("shape", items.get("shape"))!;
    expect([shape.color, shape.fill, shape.strokeWidth, shape.dash]).toEqual(["#868e96", undefined, undefined, undefined]);
    expect(readItem("note", items.get("note"))!.color).toBe("#868e96");
    expect(readItem("image", items.get("image"))!.src).toBeUndefined();
    expect(readItem("svg", items.get("svg"))!.src).toBeUndefined();
    expect(readItem("stroke", items.get("stroke"))!.points).toEqual([0, 0, 4, 8]);
  });

  it("keeps what the board draws", () => {
    const items = new Y.Doc().getMap<unknown>("items");
    const map = new Y.Map<unknown>();
    for (const [key, value] of Object.entries({ kind: "shape", x: 0, y: 0, w: 1, h: 1, z: 1, color: "#1971c2", fill: "none", strokeWidth: 4 })) map.set(key, value);
    items.set("s", map);
    const image = new Y.Map<unknown>();
    for (const [key, value] of Object.entries({ kind: "image", x: 0, y: 0, w: 1, h: 1, z: 2, src: PNG, alt: "dot" })) image.set(key, value);
    items.set("i", image);
    const [shape, picture] = readItems(items);
    expect([shape.color, shape.fill, shape.strokeWidth]).toEqual(["#1971c2", "none", 4]);
    expect(picture.src).toBe(PNG);
  });
});

describe("pasting", () => {
  it("drops the values the board would refuse, keeping the item", () => {
    const text = encodeClip([
      { id: "a", kind: "shape", x: 1, y: 2, w: 3, h: 4, color: `url(${LEAK})`, fill: BREAK_OUT, src: `${LEAK}/x.png`, strokeWidth: 1e9, fontSize: -1, dash: "long", shape: "star" } as unknown as ClipItem,
      { id: "f", kind: "frame", x: 0, y: 0, w: 3, h: 4, color: "#fff", holds: { type: "web page", ref: LEAK } } as unknown as ClipItem,
    ]);
    const [shape, frame] = decodeClip(text)!;
    expect(shape).toEqual({ id: "a", kind: "shape", x: 1, y: 2, w: 3, h: 4 });
    expect(frame.holds).toBeUndefined();
    expect(frame.color).toBe("#fff");
  });
});

describe("exporting", () => {
  it("writes an SVG of a hostile board with no markup but its own", () => {
    const items = hostileBoard();
    const all = readItems(items);
    const { svg } = boardSvg(all, all, () => BREAK_OUT, LIGHT);
    expect(svg).not.toMatch(/<script|javascript:|url\(|127\.0\.0\.1|\son\w+=|data:image\/svg/i);
    const doc = new DOMParser().parseFromString(svg, "image/svg+xml");
    expect(doc.getElementsByTagName("parsererror")).toHaveLength(0);
    const tags = new Set([...doc.getElementsByTagName("*")].map((element) => element.tagName));
    expect([...tags].filter((tag) => !["svg", "rect", "text", "tspan", "path", "ellipse", "image"].includes(tag))).toEqual([]);
    // The words stay the words written, escaped.
    expect(doc.documentElement.textContent).toContain(BREAK_OUT);
  });

  it("keeps a picture held in the board", () => {
    const items = new Y.Doc().getMap<unknown>("items");
    const map = new Y.Map<unknown>();
    for (const [key, value] of Object.entries({ kind: "image", x: 0, y: 0, w: 10, h: 10, z: 1, src: PNG })) map.set(key, value);
    items.set("i", map);
    const all = readItems(items);
    expect(boardSvg(all, all, () => "", LIGHT).svg).toContain(`href="${PNG}"`);
  });

  it("draws a dark board dark: its ground, the default ink and a frame's body in the page's colours, a note's words still dark on its paper", () => {
    const items = new Y.Doc().getMap<unknown>("items");
    const put = (id: string, fields: Record<string, string | number>, holds?: Record<string, string>) => {
      const map = new Y.Map<unknown>();
      for (const [key, value] of Object.entries({ x: 0, y: 0, w: 120, h: 80, z: 1, ...fields })) map.set(key, key === "text" ? new Y.Text(String(value)) : value);
      if (holds) map.set("holds", new Y.Map(Object.entries(holds)));
      items.set(id, map);
    };
    put("t", { kind: "text", color: "#1e1e1e", text: "inked" });
    put("n", { kind: "note", color: "#ffd43b", text: "on paper", x: 200 });
    put("f", { kind: "frame", title: "Plan", color: "#1971c2", y: 200 }, { type: "agent", ref: "a" });
    const all = readItems(items);
    const doc = new DOMParser().parseFromString(boardSvg(all, all, () => "a turn", DARK).svg, "image/svg+xml");
    const fills = [...doc.getElementsByTagName("*")].map((element) => element.getAttribute("fill"));
    expect(doc.querySelector("rect")?.getAttribute("fill")).toBe(DARK.board);
    expect([...doc.getElementsByTagName("text")].find((text) => text.textContent === "inked")?.getAttribute("fill")).toBe(DARK.ink);
    expect([...doc.getElementsByTagName("text")].find((text) => text.textContent === "on paper")?.getAttribute("fill")).toBe("#1e1e1e");
    expect(fills).toContain(DARK.surface);
    expect(fills).not.toContain("#ffffff");
  });
});
