import { describe, expect, it } from "vitest";
import { buildTree, filterPaths, languageFor } from "./tree";

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

describe("filterPaths", () => {
  const paths = ["README.md", "src/app.py", "src/readme_helpers.py", "docs/guide/readme.txt", "tests/test_app.py"];

  it("keeps every path for an empty query", () => {
    expect(filterPaths(paths, "  ")).toEqual(paths);
  });

  it("matches every word anywhere in the path, ignoring case", () => {
    expect(filterPaths(paths, "APP")).toEqual(["src/app.py", "tests/test_app.py"]);
    expect(filterPaths(paths, "src py")).toEqual(["src/app.py", "src/readme_helpers.py"]);
    expect(filterPaths(paths, "nothing")).toEqual([]);
  });

  it("puts file names that match before folders that match, then shorter paths", () => {
    expect(filterPaths(["guide/x.md", "a/guide.md"], "guide")).toEqual(["a/guide.md", "guide/x.md"]);
    expect(filterPaths(paths, "readme")).toEqual(["README.md", "docs/guide/readme.txt", "src/readme_helpers.py"]);
  });
});
