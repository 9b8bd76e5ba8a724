/** The fold's promise to React: exactly the items an event changes are new objects. */
import { describe, expect, it } from "vitest";
import { apply, applyAll, fold, type SessionEvent, type Thread } from "./sessionLog";
import { logged } from "./testing";

const say = (seq: number, text: string): SessionEvent =>
  logged({ seq, kind: "chunk", update: { sessionUpdate: "agent_message_chunk", content: { type: "text", text } } });
const tool = (seq: number, toolCallId: string, status: string): SessionEvent =>
  logged({ seq, kind: "chunk", update: { sessionUpdate: "tool_call_update", toolCallId, status } });

/** Turn 1 runs a tool and asks a permission; turn 2 follows while both are still open. */
function twoTurns(): Thread {
  return fold([
    logged({ seq: 1, kind: "turn", text: "first", author: "host" }),
    logged({ seq: 2, kind: "chunk", update: { sessionUpdate: "tool_call", toolCallId: "t1", title: "Write", status: "pending" } }),
    logged({ seq: 3, kind: "permission", requestId: "r1", toolCallId: "t1", title: "Write?", options: [] }),
    say(4, "working"),
    logged({ seq: 5, kind: "turn", text: "second", author: "host" }),
    say(6, "hello"),
  ]);
}

function changed(before: Thread, after: Thread): number[] {
  return after.items.flatMap((item, i) => (item !== before.items[i] ? [i] : []));
}

describe("fold identity", () => {
  it("a tool update for an earlier turn replaces that item only", () => {
    const before = twoTurns();
    const after = apply(before, tool(7, "t1", "completed"));
    expect(changed(before, after)).toEqual([1]);
    expect(after.items[1]).toMatchObject({ type: "tool", status: "completed" });
    expect(before.items[1]).toMatchObject({ status: "pending" });
    expect(after.items).not.toBe(before.items);
  });

  it("resolving an older permission replaces that item only", () => {
    const before = twoTurns();
    const after = apply(before, logged({ seq: 7, kind: "permission-resolved", requestId: "r1", optionId: "allow", by: "host" }));
    expect(changed(before, after)).toEqual([2]);
    expect(after.items[2]).toMatchObject({ resolution: { optionId: "allow", by: "host" } });
    expect(before.items[2]).toMatchObject({ resolution: null });
  });

  it("a chunk merged into the last message replaces the message only", () => {
    const before = twoTurns();
    const after = apply(before, say(7, " world"));
    expect(changed(before, after)).toEqual([5]);
    expect(after.items[5]).toMatchObject({ text: "hello world" });
  });

  it("a turn-end replaces the open permission and the unfinished tool of any turn", () => {
    const before = twoTurns();
    const after = apply(before, logged({ seq: 7, kind: "turn-end" }));
    expect(changed(before, after)).toEqual([1, 2, 6]);
    expect(after.items[1]).toMatchObject({ status: "failed" });
    expect(after.items[6]).toMatchObject({ type: "turn-end" });
  });

  it("a batch copies each changed item once and leaves the rest shared", () => {
    const before = twoTurns();
    const after = applyAll(before, [tool(7, "t1", "in_progress"), tool(8, "t1", "completed"), say(9, "!")]);
    expect(changed(before, after)).toEqual([1, 5]);
    expect(after.items[1]).toMatchObject({ status: "completed" });
    expect(after.items[5]).toMatchObject({ text: "hello!" });
  });

  it("an event already folded returns the same thread", () => {
    const before = twoTurns();
    expect(apply(before, say(3, "again"))).toBe(before);
    expect(applyAll(before, [])).toBe(before);
  });

  it("an ignored event moves lastSeq and shares every item", () => {
    const before = twoTurns();
    const after = apply(before, logged({ seq: 7, kind: "something-new" }));
    expect(after).not.toBe(before);
    expect(after.lastSeq).toBe(7);
    expect(after.items).toBe(before.items);
  });

  // How fast is a benchmark's figure (tests/bench/), not a test's: this checks the batch is whole.
  it("folds a long log in one batch", () => {
    const events: SessionEvent[] = [];
    for (let turn = 0; turn < 5000; turn++) {
      const seq = events.length + 1;
      events.push(logged({ seq, kind: "turn", text: `turn ${turn}` }), say(seq + 1, "a"), say(seq + 2, "b"), logged({ seq: seq + 3, kind: "turn-end" }));
    }
    const thread = fold(events);
    expect(thread.items).toHaveLength(15_000);
    expect(thread.items.at(-2)).toMatchObject({ type: "message", text: "ab" });
  }, 30_000);
});
