/**
 * Terminal colour codes in a tool's output, as coloured runs of text: the 8 colours and their
 * bright forms, bold; every other escape sequence (cursor moves, titles, 256-colour and RGB
 * codes) is dropped, so no escape ever reaches the page as text.
 */

export interface AnsiRun {
  text: string;
  /** 0-15, or null for the page's own colour. */
  colour: number | null;
  bold: boolean;
}

const ESC = "\u001b";
const BEL = "\u0007";
// CSI (ESC [ … final byte), OSC (ESC ] … BEL or ESC \), and two-byte escapes. Built from a
// string: control characters are what it is for.
const ESCAPE = new RegExp(
  `${ESC}\\[([0-9;?]*)[ -/]*([@-~])|${ESC}\\][^${BEL}${ESC}]*(?:${BEL}|${ESC}\\\\)?|${ESC}[@-Z\\\\-_]`,
  "g",
);

export function ansiRuns(text: string): AnsiRun[] {
  const runs: AnsiRun[] = [];
  let colour: number | null = null;
  let bold = false;
  let last = 0;
  const push = (piece: string) => {
    if (!piece) return;
    const previous = runs.at(-1);
    if (previous && previous.colour === colour && previous.bold === bold) previous.text += piece;
    else runs.push({ text: piece, colour, bold });
  };
  for (const match of text.matchAll(ESCAPE)) {
    push(text.slice(last, match.index));
    last = match.index + match[0].length;
    if (match[2] !== "m") continue;
    const codes = (match[1] || "0").split(";").map(Number);
    for (let i = 0; i < codes.length; i++) {
      const code = codes[i];
      if (code === 0) [colour, bold] = [null, false];
      else if (code === 1) bold = true;
      else if (code === 22) bold = false;
      else if (code >= 30 && code <= 37) colour = code - 30;
      else if (code >= 90 && code <= 97) colour = code - 90 + 8;
      else if (code === 39) colour = null;
      else if (code === 38 || code === 48) i += codes[i + 1] === 5 ? 2 : 4; // 256-colour and RGB: skipped
    }
  }
  push(text.slice(last));
  return runs;
}

/** The text with every escape sequence removed. */
export function stripAnsi(text: string): string {
  return text.replace(ESCAPE, "");
}
