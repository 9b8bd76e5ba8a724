import { describe, expect, it } from "vitest";
import { SHORTCUTS, toolForKey, TOOLS } from ".";

const bare = { ctrlKey: false, altKey: false, metaKey: false };

describe("toolForKey", () => {
  it("maps each tool's letter, in either case, to the tool", () => {
    expect(toolForKey({ ...bare, key: "v" })).toBe("select");
    expect(toolForKey({ ...bare, key: "N" })).toBe("note");
    expect(toolForKey({ ...bare, key: "a" })).toBe("arrow");
    expect(toolForKey({ ...bare, key: "f" })).toBe("frame");
  });

  it("leaves shortcuts with a modifier and unknown keys alone", () => {
    expect(toolForKey({ ...bare, key: "z", ctrlKey: true })).toBeNull();
    expect(toolForKey({ ...bare, key: "n", metaKey: true })).toBeNull();
    expect(toolForKey({ ...bare, key: "q" })).toBeNull();
  });
});

describe("the tool table", () => {
  it("gives every tool its own key, and the help sheet lists each", () => {
    const keys = TOOLS.map((info) => info.key);
    expect(new Set(keys).size).toBe(keys.length);
    const listed = SHORTCUTS.map(([key]) => key.toLowerCase());
    for (const key of keys) expect(listed).toContain(key);
  });
});
