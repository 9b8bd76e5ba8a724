/**
 * The way out of a terminal: Esc then Tab (or Shift+Tab) moves the focus on, as in other
 * editors that keep Tab for themselves. Tab alone goes to the shell. An Esc is held back until
 * the next key says what it meant: Tab drops it (nothing reaches the shell), any other key, or
 * a pause, or leaving by other means, sends it on.
 */

export const ESCAPE_HOLD_MS = 400;
/** Pressing these alone types nothing: Shift on its way to Shift+Tab must not end the wait. */
const MODIFIERS = new Set(["Shift", "Control", "Alt", "Meta", "AltGraph", "CapsLock"]);

interface Key {
  key: string;
  shiftKey: boolean;
  ctrlKey: boolean;
  altKey: boolean;
  metaKey: boolean;
}

interface Timers {
  set: (run: () => void, ms: number) => unknown;
  clear: (handle: unknown) => void;
}

const REAL_TIMERS: Timers = {
  set: (run, ms) => setTimeout(run, ms),
  clear: (handle) => clearTimeout(handle as ReturnType<typeof setTimeout>),
};

export class EscapeThenTab {
  private held: unknown = null;

  constructor(
    private readonly sendEscape: () => void,
    private readonly holdMs: number = ESCAPE_HOLD_MS,
    private readonly timers: Timers = REAL_TIMERS,
  ) {}

  /** For each keydown: false when the terminal must leave the key alone (the browser moves the focus on a Tab). */
  keydown(event: Key): boolean {
    const bare = !event.ctrlKey && !event.altKey && !event.metaKey;
    if (MODIFIERS.has(event.key)) return true;
    if (this.held !== null) {
      this.release();
      if (event.key === "Tab" && bare) return false;
      this.sendEscape();
    }
    if (event.key === "Escape" && bare && !event.shiftKey) {
      this.held = this.timers.set(() => {
        this.held = null;
        this.sendEscape();
      }, this.holdMs);
      return false;
    }
    return true;
  }

  /** The focus went elsewhere (a click) with an Esc held: it was meant for the shell. */
  blur(): void {
    if (this.held === null) return;
    this.release();
    this.sendEscape();
  }

  private release(): void {
    this.timers.clear(this.held);
    this.held = null;
  }
}
