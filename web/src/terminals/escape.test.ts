import { describe, expect, it } from "vitest";
import { EscapeThenTab } from "./escape";

function key(name: string, more: Partial<{ shiftKey: boolean; ctrlKey: boolean; altKey: boolean; metaKey: boolean }> = {}) {
  return { key: name, shiftKey: false, ctrlKey: false, altKey: false, metaKey: false, ...more };
}

/** Timers the test runs by hand. */
function manualTimers() {
  const due = new Map<number, () => void>();
  let next = 0;
  return {
    timers: {
      set: (run: () => void) => {
        due.set(++next, run);
        return next;
      },
      clear: (handle: unknown) => due.delete(handle as number),
    },
    runAll: () => {
      for (const [handle, run] of [...due]) {
        due.delete(handle);
        run();
      }
    },
    pending: () => due.size,
  };
}

function setup() {
  const clock = manualTimers();
  const sent: string[] = [];
  const escape = new EscapeThenTab(() => sent.push("ESC"), 400, clock.timers);
  return { escape, sent, clock };
}

describe("EscapeThenTab", () => {
  it("lets Tab alone through to the shell", () => {
    const { escape, sent } = setup();
    expect(escape.keydown(key("Tab"))).toBe(true);
    expect(sent).toEqual([]);
  });

  it("leaves on Esc then Tab or Shift+Tab, sending neither key", () => {
    for (const tab of [key("Tab"), key("Tab", { shiftKey: true })]) {
      const { escape, sent, clock } = setup();
      expect(escape.keydown(key("Escape"))).toBe(false);
      expect(escape.keydown(tab)).toBe(false);
      clock.runAll();
      expect(sent).toEqual([]);
      expect(clock.pending()).toBe(0);
    }
  });

  it("waits through the Shift pressed on the way to Shift+Tab", () => {
    const { escape, sent } = setup();
    escape.keydown(key("Escape"));
    expect(escape.keydown(key("Shift", { shiftKey: true }))).toBe(true);
    expect(escape.keydown(key("Tab", { shiftKey: true }))).toBe(false);
    expect(sent).toEqual([]);
  });

  it("sends a held Esc before any other key, which then goes through", () => {
    const { escape, sent } = setup();
    escape.keydown(key("Escape"));
    expect(escape.keydown(key(":"))).toBe(true);
    expect(sent).toEqual(["ESC"]);
  });

  it("sends a lone Esc after the pause, so vim still gets it", () => {
    const { escape, sent, clock } = setup();
    escape.keydown(key("Escape"));
    expect(sent).toEqual([]);
    clock.runAll();
    expect(sent).toEqual(["ESC"]);
    // The next Tab is an ordinary one again.
    expect(escape.keydown(key("Tab"))).toBe(true);
  });

  it("sends the first of two Escs and holds the second", () => {
    const { escape, sent } = setup();
    escape.keydown(key("Escape"));
    expect(escape.keydown(key("Escape"))).toBe(false);
    expect(sent).toEqual(["ESC"]);
    expect(escape.keydown(key("Tab"))).toBe(false);
    expect(sent).toEqual(["ESC"]);
  });

  it("sends a held Esc when the focus leaves by a click", () => {
    const { escape, sent } = setup();
    escape.keydown(key("Escape"));
    escape.blur();
    expect(sent).toEqual(["ESC"]);
    escape.blur();
    expect(sent).toEqual(["ESC"]);
  });

  it("does not hold Esc with a modifier, nor leave on Ctrl+Tab", () => {
    const { escape, sent } = setup();
    expect(escape.keydown(key("Escape", { altKey: true }))).toBe(true);
    escape.keydown(key("Escape"));
    expect(escape.keydown(key("Tab", { ctrlKey: true }))).toBe(true);
    expect(sent).toEqual(["ESC"]);
  });
});
