import { describe, expect, it } from "vitest";
import { buildTree, languageFor } from "./tree";

describe("buildTree", () => {
  it("nests folders, folders first", () => {
    const tree = buildTree(["README.md", "src/b.py", "src/a/x.ts", "a.txt"]);
    expect(tree.map((n) => n.name)).toEqual(["src", "README.md", "a.txt"]);
    const src = tree[0];
    expect(src.path).toBe("src");
    expect(src.children!.map((n) => [n.name, n.path, n.children === null])).toEqual([
      ["a", "src/a", false],
      ["b.py", "src/b.py", true],
    ]);
    expect(src.children![0].children![0].path).toBe("src/a/x.ts");
  });
  it("is empty for no paths", () => {
    expect(buildTree([])).toEqual([]);
  });
});

describe("languageFor", () => {
  it("maps extensions", () => {
    expect(languageFor("src/app.py")).toBe("python");
    expect(languageFor("web/src/App.TSX")).toBe("typescript");
    expect(languageFor("Cargo.toml")).toBe("ini");
    expect(languageFor(".gitignore")).toBeNull();
    expect(languageFor("Makefile")).toBeNull();
    expect(languageFor("notes")).toBeNull();
  });
});
