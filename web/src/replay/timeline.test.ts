import { describe, expect, it } from "vitest";
import * as Y from "yjs";
import { toBase64 } from "../base64";
import type { Mark, ReplayManifest, ReplayRoom } from "../protocol.gen";
import type { Cast, Replay } from "./replayFile";
import { Timeline } from "./timeline";

const MANIFEST: ReplayManifest = { format: "canvas-replay", version: 1, canvas: "test", made: 0, start: 0, end: 0, parts: {} };

function room(start: number, end: number, changes: [number, Uint8Array][], marks: Mark[] = []): ReplayRoom {
  return {
    project: "p",
    start,
    end,
    boardBase: toBase64(Y.encodeStateAsUpdate(new Y.Doc())),
    board: changes.map(([at, update]) => ({ at, by: "host", update: toBase64(update) })),
    sessions: [],
    terminals: [{ id: "t1", name: "Terminal 1", cast: "terminals/t1.cast" }],
    record: [],
    people: {},
    marks,
  };
}

function cast(events: [number, string][]): Cast {
  return { cols: 20, rows: 5, events: events.map(([at, data]) => ({ at, code: "o", data })) };
}

/** Notes added one per second, each update on its own. */
function notes(count: number): [number, Uint8Array][] {
  const doc = new Y.Doc();
  const items = doc.getMap("items");
  return Array.from({ length: count }, (_, i) => {
    const before = Y.encodeStateVector(doc);
    items.set(`n${i}`, new Y.Map());
    return [i + 1, Y.encodeStateAsUpdate(doc, before)];
  });
}

describe("a timeline that follows the room", () => {
  it("is, extended by what came after its end, the timeline of the whole", () => {
    const all = notes(600);
    const mark: Mark = { at: 550, kind: "board", who: "ada", name: "Ada", text: "Ada changed the board" };
    const whole = new Timeline(room(0, 600, all, [mark]), new Map([["t1", cast([[1, "one "], [550, "two"]])]]));
    const part = new Timeline(room(0, 300, all.slice(0, 300)), new Map([["t1", cast([[1, "one "]])]]));
    const after: Replay = {
      manifest: MANIFEST,
      room: { ...room(300, 600, all.slice(300), [mark]), terminals: [{ id: "t1", name: "Build", cast: "terminals/t1.cast" }] },
      casts: new Map([["t1", cast([[550, "two"]])]]),
    };
    part.extend(after);
    for (const at of [0, 1, 250, 299, 300, 301, 551, 600]) {
      expect([...part.boardAt(at).getMap("items").keys()].sort()).toEqual([...whole.boardAt(at).getMap("items").keys()].sort());
      expect(part.terminalAt("t1", at)).toEqual(whole.terminalAt("t1", at));
    }
    expect(part.end).toBe(600);
    expect(part.marks).toEqual([mark]);
    expect(part.terminals[0].name).toBe("Build");
    part.extend(after);
    expect(part.boardAt(600).getMap("items").size).toBe(600);
    expect(part.marks).toEqual([mark]);
  });
});
