import { describe, expect, it } from "vitest";
import { barKey, chunkInput, clampSize, endedWords, mayType, newTerminalId, withCtrl } from "./stream";

describe("chunkInput", () => {
  it("keeps short input whole", () => {
    expect(chunkInput("ls\r")).toEqual(["ls\r"]);
    expect(chunkInput("")).toEqual([]);
  });
  it("splits a long paste and loses nothing", () => {
    const paste = "x".repeat(150_000);
    const chunks = chunkInput(paste);
    expect(chunks.map((c) => c.length)).toEqual([65536, 65536, 18928]);
    expect(chunks.join("")).toBe(paste);
  });
  it("never splits a surrogate pair", () => {
    const chunks = chunkInput("ab😀cd", 3);
    expect(chunks).toEqual(["ab", "😀c", "d"]);
  });
});

describe("clampSize", () => {
  it("bounds what the fit add-on measured", () => {
    expect(clampSize(Number.NaN, 0)).toEqual({ cols: 2, rows: 1 });
    expect(clampSize(80.7, 24.2)).toEqual({ cols: 80, rows: 24 });
    expect(clampSize(5000, 9000)).toEqual({ cols: 1000, rows: 500 });
  });
});

describe("ids and typing", () => {
  it("makes ids the server accepts", () => {
    for (let i = 0; i < 50; i++) expect(newTerminalId()).toMatch(/^[A-Za-z0-9_-]{1,64}$/);
  });
  it("follows the access table", () => {
    expect(mayType("host", false)).toBe(true);
    expect(mayType("trusted", false)).toBe(true);
    expect(mayType("edit", false)).toBe(false);
    expect(mayType("edit", true)).toBe(true);
    expect(mayType("view", true)).toBe(true);
    expect(mayType("view", false)).toBe(false);
  });
});

describe("endedWords", () => {
  it("says nothing while the shell runs", () => {
    expect(endedWords({ running: true, exitCode: null, endedWhileStopped: false })).toBeNull();
  });
  it("says how the shell ended, and when canvas was not there to see it", () => {
    expect(endedWords({ running: false, exitCode: 3, endedWhileStopped: false })).toBe("exited with code 3");
    expect(endedWords({ running: false, exitCode: 7, endedWhileStopped: true })).toBe("ended while canvas was stopped, exit code 7");
    expect(endedWords({ running: false, exitCode: null, endedWhileStopped: true })).toBe("ended while canvas was stopped");
  });
});

describe("the phone's key bar", () => {
  it("sends the keys a phone keyboard lacks, arrows as the program asked", () => {
    expect(barKey("Esc", false)).toBe("\x1b");
    expect(barKey("Tab", false)).toBe("\t");
    expect(barKey("Up", false)).toBe("\x1b[A");
    expect(barKey("Left", true)).toBe("\x1bOD");
  });
  it("turns the next key into its control code", () => {
    expect(withCtrl("c")).toBe("\x03");
    expect(withCtrl("D")).toBe("\x04");
    expect(withCtrl("[")).toBe("\x1b");
    expect(withCtrl("1")).toBe("1");
    expect(withCtrl("ab")).toBe("ab");
  });
});
