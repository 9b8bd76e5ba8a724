/**
 * The board's values by their type, as the server holds writers to them (core/board_values.py):
 * a page draws colours into styles and an export writes them into SVG attributes, so a value read
 * from the document is used only when it is what it claims to be. The document is never trusted:
 * a board stored before values were typed, or a peer of another version, may hold anything.
 */
import { COLOUR_PATTERN, IMAGE_SRC_PATTERN, MAX_IMAGE_SRC } from "../protocol.gen";

const COLOUR = new RegExp(`^(?:${COLOUR_PATTERN})$`);
const IMAGE_SRC = new RegExp(`^(?:${IMAGE_SRC_PATTERN})$`);

/** Hex digits or a colour's name: drawn anywhere, it can only be a colour. */
export function isColour(value: unknown): value is string {
  return typeof value === "string" && COLOUR.test(value);
}

/** A PNG, JPEG, GIF or WebP held in a `data:` URL: shown, it fetches nothing. */
export function isImageSrc(value: unknown): value is string {
  return typeof value === "string" && value.length <= MAX_IMAGE_SRC && IMAGE_SRC.test(value);
}

/** A finite number within `(0, limit]`, or undefined. */
export function sizeWithin(value: unknown, limit: number): number | undefined {
  return typeof value === "number" && Number.isFinite(value) && value > 0 && value <= limit ? value : undefined;
}
