/**
 * Copy and paste through the system clipboard: board items travel as JSON text with a marker, so
 * they paste on this board, another board or another browser; other text pastes as a text item,
 * and an image as an image item kept in the board (shrunk to fit `MAX_IMAGE_SRC`).
 */
import { DASH_KINDS, HOLDS_TYPES, MAX_FONT_SIZE, MAX_IMAGE_SRC, MAX_STROKE_WIDTH, SHAPE_KINDS } from "../protocol.gen";
import type { ClipItem } from "./model";
import { isColour, isImageSrc, sizeWithin } from "./values";

const MARKER = "canvas/board-items/1";
/** A paste is one update to the board, which one frame must carry. */
export const MAX_PASTE_ITEMS = 1000;
export const MAX_PASTE_CHARS = 900_000;

const NUMBERS = ["x", "y", "w", "h", "x1", "y1", "x2", "y2", "bend"] as const;
const STRINGS = ["kind", "from", "to", "label", "title", "group", "alt", "text"] as const;
/** Values whose type is narrower than their JSON type: the board refuses any other (core/board_values.py). */
const TYPED: Record<string, (value: unknown) => unknown> = {
  color: (value) => (isColour(value) ? value : undefined),
  fill: (value) => (isColour(value) ? value : undefined),
  src: (value) => (isImageSrc(value) ? value : undefined),
  shape: (value) => (SHAPE_KINDS.some((shape) => shape === value) ? value : undefined),
  dash: (value) => (DASH_KINDS.some((dash) => dash === value) ? value : undefined),
  strokeWidth: (value) => sizeWithin(value, MAX_STROKE_WIDTH),
  fontSize: (value) => sizeWithin(value, MAX_FONT_SIZE),
};

export function encodeClip(items: ClipItem[]): string {
  return JSON.stringify({ format: MARKER, items });
}

/** The items in clipboard text, keeping only fields of the right type; null when it is not ours. */
export function decodeClip(text: string): ClipItem[] | null {
  if (text.length > MAX_PASTE_CHARS || !text.includes(MARKER)) return null;
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return null;
  }
  const body = parsed as { format?: unknown; items?: unknown };
  if (body?.format !== MARKER || !Array.isArray(body.items)) return null;
  return body.items.slice(0, MAX_PASTE_ITEMS).flatMap((raw): ClipItem[] => {
    if (typeof raw !== "object" || raw === null) return [];
    const source = raw as Record<string, unknown>;
    if (typeof source.id !== "string" || typeof source.kind !== "string") return [];
    const item: Record<string, unknown> = { id: source.id };
    for (const key of NUMBERS) if (typeof source[key] === "number" && Number.isFinite(source[key])) item[key] = source[key];
    for (const key of STRINGS) if (typeof source[key] === "string") item[key] = source[key];
    for (const [key, typed] of Object.entries(TYPED)) {
      const value = typed(source[key]);
      if (value !== undefined) item[key] = value;
    }
    if (Array.isArray(source.points)) item.points = source.points.filter((p) => typeof p === "number" && Number.isFinite(p));
    const holds = source.holds as { type?: unknown; ref?: unknown } | undefined;
    if (HOLDS_TYPES.some((type) => type === holds?.type) && typeof holds?.ref === "string") item.holds = { type: holds.type, ref: holds.ref };
    if (typeof item.x !== "number" || typeof item.y !== "number") return [];
    return [item as unknown as ClipItem];
  });
}

function loadImage(url: string): Promise<HTMLImageElement> {
  return new Promise((resolve, reject) => {
    const image = new Image();
    image.onload = () => resolve(image);
    image.onerror = () => reject(new Error("That image could not be read."));
    image.src = url;
  });
}

function readAsDataUrl(blob: Blob): Promise<string> {
  return new Promise((resolve, reject) => {
    const reader = new FileReader();
    reader.onload = () => resolve(String(reader.result));
    reader.onerror = () => reject(new Error("That image could not be read."));
    reader.readAsDataURL(blob);
  });
}

/**
 * An image file as a data: URL of at most `MAX_IMAGE_SRC` characters, with its size: as it is
 * when it fits, else redrawn smaller (JPEG) until it does.
 */
export async function imageForBoard(file: Blob): Promise<{ src: string; w: number; h: number }> {
  const original = await readAsDataUrl(file);
  const image = await loadImage(original);
  const size = { w: image.naturalWidth || 1, h: image.naturalHeight || 1 };
  if (original.length <= MAX_IMAGE_SRC && /^data:image\/(png|jpeg|gif|webp);/.test(original)) return { src: original, ...size };
  let scale = Math.min(1, 1600 / Math.max(size.w, size.h));
  for (let attempt = 0; attempt < 8; attempt++, scale *= 0.7) {
    const canvas = document.createElement("canvas");
    canvas.width = Math.max(1, Math.round(size.w * scale));
    canvas.height = Math.max(1, Math.round(size.h * scale));
    canvas.getContext("2d")?.drawImage(image, 0, 0, canvas.width, canvas.height);
    const src = canvas.toDataURL("image/jpeg", 0.82);
    if (src.length <= MAX_IMAGE_SRC) return { src, ...size };
  }
  throw new Error("That image is too large for the board, even made smaller.");
}

/** An image's size on the board: its own, at most 480 units on its longer side. */
export function boardSize(size: { w: number; h: number }): { w: number; h: number } {
  const scale = Math.min(1, 480 / Math.max(size.w, size.h));
  return { w: Math.round(size.w * scale), h: Math.round(size.h * scale) };
}
