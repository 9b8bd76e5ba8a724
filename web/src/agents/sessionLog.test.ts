/** The TypeScript fold against the same JSON vectors as the Python one (tests/vectors/session_log). */
import { readdirSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { advance, apply, empty, fold, type HeadState, shownStatus } from "./sessionLog";
import { logged } from "./testing";

const VECTORS = join(dirname(fileURLToPath(import.meta.url)), "../../../tests/vectors/session_log");
const names = readdirSync(VECTORS).filter((name) => name.endsWith(".json")).sort();

describe("session log vectors", () => {
  it("has vectors", () => expect(names.length).toBeGreaterThanOrEqual(8));

  for (const name of names) {
    const vector = JSON.parse(readFileSync(join(VECTORS, name), "utf-8"));

    it(`${name}: fold gives the vector's thread`, () => {
      expect(fold(structuredClone(vector.events))).toEqual(vector.thread);
    });

    it(`${name}: one event at a time gives the same thread, and never changes the one before`, () => {
      let thread = empty();
      for (const event of structuredClone(vector.events)) {
        const before = structuredClone(thread);
        const next = apply(thread, event);
        expect(thread).toEqual(before);
        thread = next;
      }
      expect(thread).toEqual(vector.thread);
    });

    it(`${name}: the compacted log (session_log.compact) folds to the same thread`, () => {
      expect(vector.compacted.length).toBeLessThanOrEqual(vector.events.length);
      expect(fold(structuredClone(vector.compacted))).toEqual(vector.thread);
    });

    it(`${name}: a head advanced event by event has the thread's status and lastSeq`, () => {
      const start: HeadState = { status: "idle", lastSeq: 0, turnOpen: false, openPermissions: [] };
      const head = vector.events.reduce(advance, start);
      expect([head.status, head.lastSeq, head.turnOpen]).toEqual([
        vector.thread.status,
        Math.max(0, vector.thread.lastSeq),
        vector.thread.turnOpen,
      ]);
    });

    it(`${name}: replaying the whole log again changes nothing`, () => {
      let thread = fold(structuredClone(vector.events));
      for (const event of structuredClone(vector.events)) thread = apply(thread, event);
      expect(thread).toEqual(vector.thread);
    });
  }

  it("starts empty", () => expect(empty()).toEqual({ status: "idle", items: [], lastSeq: -1, turnOpen: false }));
});

describe("shownStatus", () => {
  const turn = logged({ seq: 1, kind: "turn", text: "go", author: "ann" });
  const interrupted = logged({ seq: 2, kind: "turn-end", interrupted: true });
  it("says interrupted for a turn the server ended, until the next turn", () => {
    const ended = fold([turn, interrupted]);
    expect(shownStatus(ended.status, ended.items)).toBe("interrupted");
    const again = fold([turn, interrupted, { ...turn, seq: 3 }]);
    expect(shownStatus(again.status, again.items)).toBe("running");
  });
  it("says idle for a turn that simply ended, or was cancelled", () => {
    for (const end of [{ seq: 2, kind: "turn-end" }, { seq: 2, kind: "turn-end", cancelled: true }]) {
      const thread = fold([turn, logged(end)]);
      expect(shownStatus(thread.status, thread.items)).toBe("idle");
    }
  });
});
