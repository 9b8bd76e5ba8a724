/**
 * The board (or a selection) as an SVG document and as a PNG drawn from it, in the colours the page
 * shows it in (a dark board exports dark). Frames that hold an agent or a terminal are drawn with
 * the text they show now, read from the page.
 */
import { arrowEnds, arrowPath, controlPoint, dashArray, middle } from "./arrows";
import { bounds, type Rect } from "./arrange";
import { INK, isInk, NO_FILL } from "./colours";
import type { Item } from "./model";
import { strokePath } from "./nodes";
import { isColour, isImageSrc } from "./values";

const PAD = 16;
const LINE = 1.3;

function escape(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

type Attributes = Record<string, string | number | undefined>;

/**
 * One SVG element. Every attribute goes through here, escaped, and a number that is not finite is
 * written as 0: whatever a board holds, an export holds no markup but its own.
 */
function el(name: string, attributes: Attributes, body = ""): string {
  const written = Object.entries(attributes)
    .filter((entry): entry is [string, string | number] => entry[1] !== undefined)
    .map(([key, value]) => ` ${key}="${escape(typeof value === "number" ? String(Number.isFinite(value) ? value : 0) : value)}"`)
    .join("");
  return body ? `<${name}${written}>${body}</${name}>` : `<${name}${written}/>`;
}

/** The page's colours an export is drawn in: the board, its ink, and a frame's body, bar and words. */
export interface Paper {
  board: string;
  ink: string;
  surface: string;
  bar: string;
  text: string;
  muted: string;
}

/** The colours of the page's theme now, read from its own variables so an export matches the screen. */
export function pagePaper(): Paper {
  const style = getComputedStyle(document.documentElement);
  const read = (name: string) => {
    const value = style.getPropertyValue(name).trim();
    return isColour(value) ? value : INK;
  };
  return { board: read("--board-bg"), ink: read("--board-ink"), surface: read("--surface"), bar: read("--surface-2"), text: read("--text"), muted: read("--muted") };
}

/** A stored colour as drawn on `paper`: the default ink is the theme's, as on screen. */
function colour(value: string | undefined, paper: Paper): string {
  return !isColour(value) || isInk(value) ? paper.ink : value;
}

/** `text` broken into lines that fit `width` at `size`, cut to `maxLines`. */
export function wrap(text: string, width: number, size: number, maxLines: number): string[] {
  const perLine = Math.max(4, Math.floor(width / (size * 0.55)));
  const lines: string[] = [];
  for (const paragraph of text.split("\n")) {
    let line = "";
    for (const word of paragraph.split(/(\s+)/)) {
      if ((line + word).length > perLine && line.trim()) {
        lines.push(line.trimEnd());
        line = word.trimStart();
      } else {
        line += word;
      }
      while (line.length > perLine) {
        lines.push(line.slice(0, perLine));
        line = line.slice(perLine);
      }
    }
    lines.push(line);
  }
  return lines.slice(0, Math.max(0, maxLines));
}

function textBlock(lines: string[], x: number, y: number, size: number, fill: string, anchor = "start"): string {
  const spans = lines.map((line, i) => el("tspan", { x, y: y + size * (1 + i * LINE) }, escape(line) || " ")).join("");
  return el("text", { "font-family": "system-ui, sans-serif", "font-size": size, fill, "text-anchor": anchor }, spans);
}

function itemSvg(item: Item, paper: Paper, frameText: (id: string) => string, boxOf: (id: string) => Rect | undefined): string {
  const { x, y, w, h } = item;
  const stroke = colour(item.color, paper);
  const width = item.strokeWidth ?? 2;
  const line = { stroke, "stroke-width": width, "stroke-dasharray": dashArray(item.dash, width) };
  const text = item.text?.toString() ?? "";
  switch (item.kind) {
    case "note": {
      const size = item.fontSize ?? 16;
      // A note is paper of its own colour with dark words, on either theme.
      const body = textBlock(wrap(text, w - 24, size, Math.floor((h - 24) / (size * LINE))), x + 12, y + 12, size, INK);
      return el("rect", { x, y, width: w, height: h, rx: 4, fill: isColour(item.color) ? item.color : stroke }) + body;
    }
    case "text": {
      const size = item.fontSize ?? 20;
      return textBlock(wrap(text, w - 8, size, 1000), x + 4, y + 4, size, stroke);
    }
    case "shape": {
      const fill = item.fill === undefined ? { fill: stroke, "fill-opacity": 0.2 } : { fill: item.fill === NO_FILL ? "none" : colour(item.fill, paper) };
      const body =
        item.shape === "ellipse"
          ? el("ellipse", { cx: x + w / 2, cy: y + h / 2, rx: w / 2, ry: h / 2, ...fill, ...line })
          : el("rect", { x, y, width: w, height: h, rx: 4, ...fill, ...line });
      const size = item.fontSize ?? 15;
      const lines = wrap(text, w - 16, size, Math.floor((h - 16) / (size * LINE)));
      const top = y + h / 2 - (lines.length * size * LINE) / 2 - size * 0.2;
      return body + textBlock(lines, x + w / 2, top, size, paper.ink, "middle");
    }
    case "stroke":
      return el("path", { transform: `translate(${finite(x)} ${finite(y)})`, d: strokePath((item.points ?? []).filter(Number.isFinite), width * 3), fill: stroke });
    case "image":
      return isImageSrc(item.src)
        ? el("image", { x, y, width: w, height: h, href: item.src, preserveAspectRatio: "xMidYMid meet" })
        : el("rect", { x, y, width: w, height: h, fill: "none", stroke: paper.muted, "stroke-dasharray": "6 4" }) +
            textBlock([item.alt ?? ""], x + w / 2, y + h / 2 - 8, 14, paper.muted, "middle");
    case "frame": {
      const title = textBlock([item.title || (item.holds ? item.holds.type : "Frame")], x + 10, y + 6, 13, paper.text);
      const body = item.holds ? textBlock(wrap(frameText(item.id), w - 20, 12, Math.floor((h - 44) / (12 * LINE))), x + 10, y + 36, 12, paper.text) : "";
      const outline = { x, y, width: w, height: h, rx: 8, fill: item.holds ? paper.surface : "none", stroke, "stroke-width": 2 };
      return (
        el("rect", { ...outline, "stroke-dasharray": item.holds ? undefined : "8 6" }) +
        el("rect", { x: x + 1, y: y + 1, width: w - 2, height: 27, fill: paper.bar }) +
        title +
        body
      );
    }
    case "arrow": {
      const ends = arrowEnds(item, boxOf);
      if (!ends) return "";
      const [start, end] = ends;
      const bend = item.bend ?? 0;
      const from = bend ? controlPoint(start, end, bend) : start;
      const angle = Math.atan2(end.y - from.y, end.x - from.x);
      const size = 14 + width * 2;
      const side = (turn: number) => `${finite(end.x - size * Math.cos(angle + turn))},${finite(end.y - size * Math.sin(angle + turn))}`;
      const mid = middle(start, end, bend);
      const label = item.label ? textBlock([item.label], mid.x, mid.y - 10, 14, stroke, "middle") : "";
      const head = `M${finite(end.x)},${finite(end.y)} L${side(0.45)} L${side(-0.45)} Z`;
      return el("path", { d: arrowPath(start, end, bend), fill: "none", ...line }) + el("path", { d: head, fill: stroke }) + label;
    }
  }
}

function finite(value: number): number {
  return Number.isFinite(value) ? value : 0;
}

/** The SVG of `items` (already the ones to export, back to front) on `paper`, and its size in pixels. */
export function boardSvg(items: Item[], all: Item[], frameText: (id: string) => string, paper: Paper): { svg: string; w: number; h: number } {
  const boxes = new Map(all.map((item) => [item.id, item]));
  const boxOf = (id: string) => boxes.get(id);
  const shapes = items.map((item) => {
    if (item.kind !== "arrow") return item as Rect;
    const ends = arrowEnds(item, boxOf);
    return ends ? (bounds(ends.map((p) => ({ x: p.x, y: p.y, w: 0, h: 0 }))) as Rect) : null;
  });
  const box = bounds(shapes.filter((b): b is Rect => b !== null)) ?? { x: 0, y: 0, w: 1, h: 1 };
  const w = Math.ceil(finite(box.w) + PAD * 2);
  const h = Math.ceil(finite(box.h) + PAD * 2);
  const left = finite(box.x) - PAD;
  const top = finite(box.y) - PAD;
  const body = items.map((item) => itemSvg(item, paper, frameText, boxOf)).join("\n");
  const ground = el("rect", { x: left, y: top, width: w, height: h, fill: paper.board });
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="${w}" height="${h}" viewBox="${left} ${top} ${w} ${h}">${ground}\n${body}\n</svg>`;
  return { svg, w, h };
}

/** The SVG drawn into a PNG of the same size. */
export async function svgToPng(svg: string, w: number, h: number): Promise<Blob> {
  const url = URL.createObjectURL(new Blob([svg], { type: "image/svg+xml" }));
  try {
    const image = new Image();
    await new Promise<void>((resolve, reject) => {
      image.onload = () => resolve();
      image.onerror = () => reject(new Error("The board could not be drawn as an image."));
      image.src = url;
    });
    const canvas = document.createElement("canvas");
    canvas.width = w;
    canvas.height = h;
    canvas.getContext("2d")?.drawImage(image, 0, 0, w, h);
    return await new Promise<Blob>((resolve, reject) =>
      canvas.toBlob((blob) => (blob ? resolve(blob) : reject(new Error("The board could not be drawn as an image."))), "image/png"),
    );
  } finally {
    URL.revokeObjectURL(url);
  }
}

export function download(blob: Blob, name: string): void {
  const url = URL.createObjectURL(blob);
  const link = document.createElement("a");
  link.href = url;
  link.download = name;
  link.click();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}

/** A frame's controls and words for screen readers: what a person works with, not what the frame shows. */
const NOT_SHOWN = "button, select, input, textarea, label, [role=toolbar], [aria-hidden=true], .visually-hidden";

/** What a frame shows now, as text: an agent's thread, a terminal's screen, without its controls. */
export function visibleText(id: string): string {
  const body = document.querySelector<HTMLElement>(`.react-flow__node[data-id="${CSS.escape(id)}"] .board-frame-body`);
  if (!body) return "";
  // A copy laid out off screen: `innerText` keeps the lines only of what is rendered.
  const copy = body.cloneNode(true) as HTMLElement;
  for (const control of copy.querySelectorAll(NOT_SHOWN)) control.remove();
  copy.style.cssText = `position: fixed; left: -100000px; top: 0; width: ${body.clientWidth}px`;
  document.body.append(copy);
  try {
    return copy.innerText.replace(/\n{3,}/g, "\n\n").trim();
  } finally {
    copy.remove();
  }
}

/** Downloads the selection (or the whole board when nothing is selected) as `format`; says why when it cannot. */
export async function exportItems(items: Item[], selected: ReadonlySet<string>, format: "png" | "svg", notify: (message: string) => void): Promise<void> {
  const chosen = selected.size ? items.filter((item) => selected.has(item.id)) : items;
  const { svg, w, h } = boardSvg(chosen, items, visibleText, pagePaper());
  const name = `board-${new Date().toISOString().slice(0, 10)}.${format}`;
  try {
    download(format === "svg" ? new Blob([svg], { type: "image/svg+xml" }) : await svgToPng(svg, w, h), name);
  } catch (error) {
    notify(error instanceof Error ? error.message : "The export failed.");
  }
}
