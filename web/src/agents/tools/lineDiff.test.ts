import { describe, expect, it } from "vitest";
import { diffLines, diffStat, hunks } from "./lineDiff";

const marks = (oldText: string | null, newText: string) =>
  diffLines(oldText, newText).map((row) => `${{ same: " ", added: "+", removed: "-" }[row.kind]}${row.text}`);

describe("diffLines", () => {
  it("marks a changed line removed then added, with both numbers", () => {
    const rows = diffLines("a\nb\nc\n", "a\nB\nc\n");
    expect(rows).toEqual([
      { kind: "same", text: "a", oldLine: 1, newLine: 1 },
      { kind: "removed", text: "b", oldLine: 2, newLine: null },
      { kind: "added", text: "B", oldLine: null, newLine: 2 },
      { kind: "same", text: "c", oldLine: 3, newLine: 3 },
    ]);
  });

  it("finds the shortest script for inserts and deletes in the middle", () => {
    expect(marks("a\nb\nc\nd\ne", "a\nc\nd\nx\ne")).toEqual([" a", "-b", " c", " d", "+x", " e"]);
    expect(marks("x\ny", "y\nx")).toHaveLength(3);
  });

  it("shows a new file as all added and an emptied one as all removed", () => {
    expect(marks(null, "one\ntwo\n")).toEqual(["+one", "+two"]);
    expect(marks("one\n", "")).toEqual(["-one"]);
  });

  it("gives up past its bound with the old text out and the new in, still every line", () => {
    const old = Array.from({ length: 3000 }, (_, i) => `old ${i}`).join("\n");
    const next = Array.from({ length: 3000 }, (_, i) => `new ${i}`).join("\n");
    expect(diffStat(diffLines(old, next))).toEqual({ added: 3000, removed: 3000 });
  });
});

describe("hunks", () => {
  it("keeps three lines around each change and counts the rest as gaps", () => {
    const old = Array.from({ length: 20 }, (_, i) => `${i}`).join("\n");
    const next = old.replace("10", "ten");
    const shown = hunks(diffLines(old, next));
    expect(shown[0]).toEqual({ kind: "gap", lines: 7 });
    expect(shown.at(-1)).toEqual({ kind: "gap", lines: 6 });
    expect(shown.filter((row) => row.kind !== "gap")).toHaveLength(8);
  });
});
