/** Keys typed here belong to what has focus (a terminal, a prompt, a field), not to the board. */
export const OWN_KEYS = "input, textarea, select, [contenteditable], .board-frame-body, dialog";

/** Whether a key pressed at `target` is the board's: on the board or an item, not in a field, a frame's content or a dialog. */
export function isBoardKey(target: EventTarget | null): boolean {
  return target instanceof Element && target.closest('[data-testid="board"]') !== null && target.closest(OWN_KEYS) === null;
}
