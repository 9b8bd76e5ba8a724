import { describe, expect, it } from "vitest";
import { parseView } from "./view";

describe("parseView", () => {
  it("reads a stored view", () => {
    expect(parseView('{"x":10,"y":-20.5,"zoom":0.75}')).toEqual({ x: 10, y: -20.5, zoom: 0.75 });
  });

  it("ignores what is missing, corrupt or not a view", () => {
    for (const stored of [null, "", "{", '{"x":1,"y":2}', '{"x":1,"y":2,"zoom":0}', '{"x":"1","y":2,"zoom":1}', "[]"]) {
      expect(parseView(stored)).toBeNull();
    }
  });
});
