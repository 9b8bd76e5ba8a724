/**
 * Text a guest wrote, made safe to read before approving it: every character that would act or
 * hide instead of show — control characters (so ANSI sequences), bidi overrides and isolates,
 * zero-width and other format characters, line and paragraph separators, and every default
 * ignorable code point (variation selectors, the combining grapheme joiner, Hangul fillers,
 * Mongolian and Khmer invisibles, tags) — becomes a visible escape such as `\x1b` or `\u202e`.
 * Newlines and tabs stay what they are. The server escapes the same set
 * (canvasrelay/protocol/visible_text.py); both run tests/vectors/visible_text.json.
 */
import { cryptoPrimitives } from "../cryptoPrimitives";

export type Piece = { text: string; escaped: boolean };

const HIDDEN = /[^\n\t\P{Cc}]|\p{Cf}|\p{Zl}|\p{Zp}|\p{Default_Ignorable_Code_Point}/gu;

export function escapeChar(char: string): string {
  const code = char.codePointAt(0)!;
  if (code < 0x100) return `\\x${code.toString(16).padStart(2, "0")}`;
  if (code < 0x10000) return `\\u${code.toString(16).padStart(4, "0")}`;
  return `\\u{${code.toString(16)}}`;
}

export function visiblePieces(text: string): Piece[] {
  const pieces: Piece[] = [];
  let last = 0;
  for (const match of text.matchAll(HIDDEN)) {
    if (match.index > last) pieces.push({ text: text.slice(last, match.index), escaped: false });
    pieces.push({ text: escapeChar(match[0]), escaped: true });
    last = match.index + match[0].length;
  }
  if (last < text.length) pieces.push({ text: text.slice(last), escaped: false });
  return pieces;
}

export function visible(text: string): string {
  return visiblePieces(text)
    .map((piece) => piece.text)
    .join("");
}

/** The SHA-256 of `text` as UTF-8, hex: the digest the host's answer names. */
export async function sha256Hex(text: string): Promise<string> {
  const digest = await (await cryptoPrimitives()).sha256(new TextEncoder().encode(text));
  return Array.from(digest, (byte) => byte.toString(16).padStart(2, "0")).join("");
}
