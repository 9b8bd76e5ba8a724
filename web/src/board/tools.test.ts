import { describe, expect, it } from "vitest";
import { placesOnClick, SHORTCUTS, toolForKey, TOOLS } from "./tools";

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

  it("places items on click only for the tools that make one", () => {
    expect(placesOnClick("note")).toBe(true);
    expect(placesOnClick("frame")).toBe(true);
    expect(placesOnClick("select")).toBe(false);
    expect(placesOnClick("arrow")).toBe(false);
    expect(placesOnClick("pen")).toBe(false);
  });
});
