/**
 * The board's keys: a key pressed on the board (or with nothing focused, when the page just
 * loaded or an editor closed) goes to the dispatcher, unless it is typed into something that
 * takes its own keys.
 */
import { type KeyboardEvent, useCallback, useEffect } from "react";
import type { Dispatcher } from "./dispatcher";
import { OWN_KEYS } from "./keyTarget";

/** What the board's keys read of a key press, from React's event or the document's. */
type KeyEvent = Pick<KeyboardEvent, "key" | "code" | "ctrlKey" | "metaKey" | "altKey" | "shiftKey" | "preventDefault"> & {
  target: EventTarget | null;
};

export function useBoardKeys(dispatcher: Dispatcher): (event: KeyEvent) => void {
  const onKeyDown = useCallback(
    (event: KeyEvent) => {
      const target = event.target as HTMLElement;
      if (target.closest(OWN_KEYS)) return;
      const node = target.closest(".react-flow__node")?.getAttribute("data-id") ?? undefined;
      const { key, code, ctrlKey, metaKey, altKey, shiftKey } = event;
      if (dispatcher.keyDown({ key, code, ctrlKey, metaKey, altKey, shiftKey, node })) event.preventDefault();
    },
    [dispatcher],
  );

  useEffect(() => {
    const unfocused = (event: globalThis.KeyboardEvent) => {
      if (event.target === document.body) onKeyDown(event);
    };
    document.addEventListener("keydown", unfocused);
    return () => document.removeEventListener("keydown", unfocused);
  }, [onKeyDown]);

  return onKeyDown;
}
