/** Pure helpers for terminal frames, kept apart from xterm so they can be tested. */

import type { TerminalInfo } from "../protocol.gen";
import { holdsWhenHanded, may, type Access } from "../room/access";

/** The server refuses `term-input` data above this many characters (canvasrelay/protocol/terminals.py). */
export const MAX_INPUT_CHARS = 64 * 1024;
export const MAX_COLS = 1000;
export const MAX_ROWS = 500;

/**
 * Splits typed or pasted text into `term-input`-sized pieces, never between the two halves of
 * a surrogate pair (the server would decode half a character into U+FFFD).
 */
export function chunkInput(data: string, max: number = MAX_INPUT_CHARS): string[] {
  const chunks: string[] = [];
  let start = 0;
  while (start < data.length) {
    let end = Math.min(start + max, data.length);
    const last = data.charCodeAt(end - 1);
    if (end < data.length && end - start > 1 && last >= 0xd800 && last <= 0xdbff) end -= 1;
    chunks.push(data.slice(start, end));
    start = end;
  }
  return chunks;
}

/** The size the server accepts, from what the fit add-on measured (NaN or 0 when hidden). */
export function clampSize(cols: number, rows: number): { cols: number; rows: number } {
  const clamp = (n: number, lo: number, hi: number) => (Number.isFinite(n) ? Math.max(lo, Math.min(hi, Math.floor(n))) : lo);
  return { cols: clamp(cols, 2, MAX_COLS), rows: clamp(rows, 1, MAX_ROWS) };
}

/** A terminal id the server accepts (`^[A-Za-z0-9_-]{1,64}$`), unique enough across clients. */
export function newTerminalId(random: () => number = Math.random): string {
  const part = () => Math.floor(random() * 36 ** 6).toString(36).padStart(6, "0");
  return `t-${part()}${part()}`;
}

/** Whether this access level may type into a terminal: the host and trusted guests always, another guest once handed it. */
export function mayType(access: Access | undefined, granted: boolean): boolean {
  return may(access, "type-terminal") || (granted && holdsWhenHanded(access));
}

/** How a terminal's shell ended, in words; null while it runs. */
export function endedWords(terminal: Pick<TerminalInfo, "running" | "exitCode" | "endedWhileStopped">): string | null {
  if (terminal.running) return null;
  const code = terminal.exitCode;
  if (terminal.endedWhileStopped) return code === null ? "ended while canvas was stopped" : `ended while canvas was stopped, exit code ${code}`;
  return code === null ? "ended" : `exited with code ${code}`;
}

/** What a key of the phone's key bar sends; the arrows as the program asked for them (DECCKM). */
export function barKey(key: "Esc" | "Tab" | "Left" | "Up" | "Down" | "Right", applicationCursor: boolean): string {
  if (key === "Esc") return "\x1b";
  if (key === "Tab") return "\t";
  const letter = { Up: "A", Down: "B", Right: "C", Left: "D" }[key];
  return (applicationCursor ? "\x1bO" : "\x1b[") + letter;
}

/** A key typed with Ctrl held (the key bar's Ctrl): a letter or one of @[\\]^_ becomes its control code. */
export function withCtrl(data: string): string {
  if (data.length !== 1) return data;
  const code = data.toUpperCase().charCodeAt(0);
  if (code >= 0x40 && code <= 0x5f) return String.fromCharCode(code & 0x1f);
  if (data === "?") return "\x7f";
  return data;
}
