import { describe, expect, it } from "vitest";
import { toolKindWord, toolStatusWord, toolTitle } from "./toolWords";

describe("tool call words", () => {
  it("says kinds and statuses in words, and nothing for what it does not know", () => {
    expect(toolKindWord("execute")).toBe("Run");
    expect(toolKindWord("other")).toBe("");
    expect(toolKindWord(undefined)).toBe("");
    expect(toolStatusWord("in_progress")).toBe("running");
    expect(toolStatusWord("completed")).toBe("done");
    expect(toolStatusWord("made_up")).toBe("");
  });

  it("says the kind once when the title already begins with it", () => {
    expect(toolKindWord("read", "Read README.md")).toBe("");
    expect(toolKindWord("read", "Reading the notes")).toBe("Read");
    expect(toolKindWord("edit", "Write README.md")).toBe("Edit");
  });

  it("never falls back to the call's id", () => {
    expect(toolTitle("Add a note")).toBe("Add a note");
    expect(toolTitle("")).toBe("A tool call");
  });

  it("says an MCP tool's bare name in words, the board's as what it does there", () => {
    expect(toolTitle("mcp__canvas-board__add_note")).toBe("Add note on the board");
    expect(toolTitle("mcp__github__list_pull_requests")).toBe("List pull requests (github)");
    expect(toolTitle("mcp__ nothing")).toBe("mcp__ nothing");
  });
});
