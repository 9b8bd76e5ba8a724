import { describe, expect, it } from "vitest";
import { ansiRuns, stripAnsi } from "./ansi";
import { boardEdit, boardEditWords } from "./boardEdit";
import { outputLines, toolOutput } from "./toolOutput";

describe("ansiRuns", () => {
  it("turns colour codes into coloured runs and never keeps an escape", () => {
    const runs = ansiRuns("ok \x1b[1;31mfailed\x1b[0m done\x1b[2K\x1b]0;title\x07");
    expect(runs).toEqual([
      { text: "ok ", colour: null, bold: false },
      { text: "failed", colour: 1, bold: true },
      { text: " done", colour: null, bold: false },
    ]);
    expect(runs.map((r) => r.text).join("")).not.toContain("\x1b");
  });

  it("reads bright colours and skips 256-colour codes", () => {
    expect(ansiRuns("\x1b[38;5;196mx\x1b[92my")).toEqual([
      { text: "x", colour: null, bold: false },
      { text: "y", colour: 10, bold: false },
    ]);
  });

  it("strips", () => expect(stripAnsi("\x1b[32mgreen\x1b[m")).toBe("green"));
});

describe("toolOutput", () => {
  const text = (t: string) => [{ type: "content" as const, content: { type: "text" as const, text: t } }];

  it("drops the fence around the whole output and the agent's injected reminders", () => {
    expect(toolOutput({ content: text("```console\ntool-says-42\n```"), rawOutput: null }).text).toBe("tool-says-42");
    expect(toolOutput({ content: text("````\na ``` b\n````"), rawOutput: null }).text).toBe("a ``` b");
    const read = "1\tplain notes\n\n<system-reminder>\nWhenever you read a file…\n</system-reminder>\n";
    expect(toolOutput({ content: text(read), rawOutput: null }).text).toBe("1\tplain notes");
    // a fence inside the output is the output's own
    expect(toolOutput({ content: text("see:\n```\nx\n```"), rawOutput: null }).text).toBe("see:\n```\nx\n```");
  });

  it("says the exit code a failed command's first line gives", () => {
    expect(toolOutput({ content: text("```\nExit code 2\nno such file\n```"), rawOutput: null })).toEqual({
      text: "no such file",
      exitCode: 2,
    });
    expect(toolOutput({ content: [], rawOutput: "Exit code 1" })).toEqual({ text: "", exitCode: 1 });
  });

  it("takes the text content and the exit code of the raw output", () => {
    const content = [{ type: "content" as const, content: { type: "text" as const, text: "a\nb\n" } }];
    expect(toolOutput({ content, rawOutput: { exit_code: 2 } })).toEqual({ text: "a\nb\n", exitCode: 2 });
  });

  it("falls back to the raw output: a string, or a command's output", () => {
    expect(toolOutput({ content: [], rawOutput: "done" })).toEqual({ text: "done", exitCode: null });
    expect(toolOutput({ content: [], rawOutput: { formatted_output: "x", exitCode: 0 } })).toEqual({ text: "x", exitCode: 0 });
    expect(toolOutput({ content: [], rawOutput: null })).toEqual({ text: "", exitCode: null });
  });

  it("splits lines without an empty last one", () => {
    expect(outputLines("a\nb\n")).toEqual(["a", "b"]);
    expect(outputLines("")).toEqual([]);
  });
});

describe("a board tool's answer", () => {
  const text = (value: string) => [{ type: "content" as const, content: { type: "text" as const, text: value } }];

  it("is read from a real agent's output text, which then reads as words", () => {
    const edit = boardEdit({ status: "completed", content: text('{"id": "3fa2c1d0e9b8", "removed": []}'), rawOutput: null });
    expect(edit).toEqual({ id: "3fa2c1d0e9b8", removed: [], inText: true });
    expect(boardEditWords(edit!)).toBe("Done on the board.");
  });

  it("is read from the raw output beside words the agent gave", () => {
    const edit = boardEdit({ status: "completed", content: text("A note on the board: hi"), rawOutput: '{"id": "a1", "removed": ["a1", "b2"]}' });
    expect(edit).toEqual({ id: "a1", removed: ["a1", "b2"], inText: false });
    expect(boardEditWords(edit!)).toBe("Took it off the board, with 1 arrow attached to it.");
  });

  it("is none for other JSON, for a call still running and for plain output", () => {
    expect(boardEdit({ status: "completed", content: text('{"id": "a1", "removed": [], "x": 1}'), rawOutput: null })).toBeNull();
    expect(boardEdit({ status: "in_progress", content: text('{"id": "a1", "removed": []}'), rawOutput: null })).toBeNull();
    expect(boardEdit({ status: "completed", content: text("{ not json"), rawOutput: { exit_code: 0 } })).toBeNull();
  });
});
