import { describe, expect, it } from "vitest";
import { contentKeys } from "./keys";

const same = (s: string) => s;

describe("contentKeys", () => {
  it("tells equal items apart", () => {
    expect(new Set(contentKeys(["a", "b", "a"], same)).size).toBe(3);
  });

  it("keeps the items' keys when the first one goes", () => {
    const before = contentKeys(["first", "second", "second"], same);
    expect(contentKeys(["second", "second"], same)).toEqual(before.slice(1));
  });
});
