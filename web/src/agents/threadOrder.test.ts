import { describe, expect, it } from "vitest";
import type { Item } from "./sessionLog";
import { askedBeforeRun } from "./threadOrder";


const tool = (seq: number, toolCallId: string): Item => ({
  type: "tool",
  seq,
  toolCallId,
  title: "Write notes.txt",
  kind: "edit",
  status: "completed",
  content: [],
  locations: [],
} as unknown as Item);
const permission = (seq: number, toolCallId: string | null): Item => ({
  type: "permission",
  seq,
  requestId: `r${seq}`,
  toolCallId,
  title: "Write notes.txt",
  options: [],
  preview: null,
  resolution: null,
});

describe("the thread's order", () => {
  it("puts a call's permission before the call's row, and leaves the rest in place", () => {
    const items = [tool(1, "a"), permission(2, "a"), tool(3, "b"), permission(4, null)];
    expect(askedBeforeRun(items).map((item) => item.seq)).toEqual([2, 1, 3, 4]);
  });

  it("keeps a permission whose call is not in the thread where it is", () => {
    const items = [permission(2, "gone"), tool(3, "b")];
    expect(askedBeforeRun(items)).toBe(items);
  });
});
