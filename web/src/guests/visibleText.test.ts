import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { sha256Hex, visible, visiblePieces } from "./visibleText";

const VECTORS = join(dirname(fileURLToPath(import.meta.url)), "../../../tests/vectors/visible_text.json");
type Vector = { name: string; text: string; shown: string; escaped: number };

describe("the shared escape vectors (the server runs the same)", () => {
  const vectors = JSON.parse(readFileSync(VECTORS, "utf-8")) as Vector[];
  it.each(vectors.map((v) => [v.name, v] as const))("%s", (_name, vector) => {
    expect(visible(vector.text)).toBe(vector.shown);
    expect(visiblePieces(vector.text).filter((piece) => piece.escaped)).toHaveLength(vector.escaped);
  });
});

describe("visible", () => {
  it("shows ANSI sequences and control characters as escapes", () => {
    expect(visible("red \x1b[31mtext\x1b[0m\r\x00\x7f\x9b")).toBe("red \\x1b[31mtext\\x1b[0m\\x0d\\x00\\x7f\\x9b");
  });

  it("shows bidi overrides, isolates and zero-width characters as escapes", () => {
    expect(visible("invoice\u202egpj.exe\u202c")).toBe("invoice\\u202egpj.exe\\u202c");
    expect(visible("a\u2066b\u2069c\u200bd\u200fe\ufeff")).toBe("a\\u2066b\\u2069c\\u200bd\\u200fe\\ufeff");
    expect(visible("line\u2028para\u2029")).toBe("line\\u2028para\\u2029");
    expect(visible("tag\u{e0041}\u{e007f}")).toBe("tag\\u{e0041}\\u{e007f}");
  });

  it("keeps ordinary text, newlines, tabs and non-Latin scripts as they are", () => {
    const text = "fix the tests\n\tthen élan — 修正 مرحبا 🙂";
    expect(visible(text)).toBe(text);
    expect(visiblePieces(text)).toEqual([{ text, escaped: false }]);
  });

  it("marks which pieces are escapes", () => {
    expect(visiblePieces("a\x1bb")).toEqual([
      { text: "a", escaped: false },
      { text: "\\x1b", escaped: true },
      { text: "b", escaped: false },
    ]);
  });
});

describe("sha256Hex", () => {
  it("is the SHA-256 of the text as UTF-8, as the server computes it", async () => {
    expect(await sha256Hex("abc")).toBe("ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    expect(await sha256Hex("é 🙂")).toBe("5aab27a5e8e83462728b171a4c5141c2503d89bb2baad4f89a2c40bbaf29679d");
  });
});
