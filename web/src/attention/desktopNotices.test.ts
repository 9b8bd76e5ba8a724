import { describe, expect, it } from "vitest";
import type { Entry } from "./entries";
import { newNotices } from "./desktopNotices";

const place = { type: "agent" as const, ref: "s1", name: "Demo agent 1" };
const permission = {
  kind: "permission",
  key: "perm-p1",
  sessionId: "s1",
  item: { title: "Write a.txt" },
  place,
} as unknown as Entry;
const waiting = { kind: "waiting", key: "wait-1", what: "prompt", place: null } as unknown as Entry;

describe("newNotices", () => {
  it("tells each new permission once, in words, and never a guest's own waiting", () => {
    const seen = new Set<string>();
    const headline = (entry: Entry) => (entry.kind === "permission" ? `${entry.place.name} asks your permission` : "");
    expect(newNotices([permission, waiting], seen, headline)).toEqual([
      { key: "perm-p1", title: "Demo agent 1 asks your permission", body: "Write a.txt" },
    ]);
    expect(newNotices([permission], seen, headline)).toEqual([]);
  });
});
