import { describe, expect, it } from "vitest";
import type { BoardPart, Welcome } from "../protocol.gen";
import { welcomeFrame } from "../room/testing";
import { toBase64 } from "./model";
import { BoardParts } from "./boardParts";

const state = Uint8Array.from({ length: 1000 }, (_, i) => i % 251);
const PART = 300;

function welcome(version: number): Welcome {
  return welcomeFrame({ board: toBase64(state.subarray(0, PART)), boardSize: state.length, boardVersion: version });
}

function part(version: number, offset: number, ask: boolean): BoardPart {
  const data = toBase64(state.subarray(offset, offset + PART));
  return { t: "board-part", version, offset, size: state.length, data, ask };
}

describe("BoardParts", () => {
  it("asks for the rest after the welcome and after each answer's last part, then holds the whole state", () => {
    const parts = new BoardParts();
    expect(parts.welcome(welcome(7))).toEqual({ t: "board-more", version: 7, offset: 300 });
    expect(parts.part(part(7, 300, false))).toBeNull();
    expect(parts.part(part(7, 600, true))).toEqual({ t: "board-more", version: 7, offset: 900 });
    expect(parts.part(part(7, 900, true))).toBeNull();
    expect(parts.complete).toBe(true);
    expect(parts.take()).toEqual(state);
  });

  it("continues where it stopped when the same state's welcome comes again", () => {
    const parts = new BoardParts();
    parts.welcome(welcome(7));
    parts.part(part(7, 300, true));
    expect(parts.welcome(welcome(7))).toEqual({ t: "board-more", version: 7, offset: 600 });
  });

  it("starts anew for another version", () => {
    const parts = new BoardParts();
    parts.welcome(welcome(7));
    parts.part(part(7, 300, true));
    expect(parts.part(part(8, 0, true))).toEqual({ t: "board-more", version: 8, offset: 300 });
  });
});
