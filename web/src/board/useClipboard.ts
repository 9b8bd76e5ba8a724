/**
 * Copy, cut and paste on the board through the system clipboard (so they work between boards,
 * pages and browsers): the browser's own copy, cut and paste events, so Ctrl+C / Ctrl+X / Ctrl+V,
 * the Edit menu and a phone's paste all work, without asking for clipboard permission.
 */
import { useEffect, useLayoutEffect, useRef } from "react";
import { boardSize, decodeClip, encodeClip, imageForBoard } from "./clipboard";
import { addItem, type ClipItem, clipItems, DEFAULTS } from "./model";
import type { BoardSession } from "./sync";

/** Typing places (a note's editor, a prompt, a terminal) keep their own clipboard. */
const OWN_CLIPBOARD = "input, textarea, select, [contenteditable], .board-frame-body, dialog";
/** Each paste of the same copy lands this much further down and right (board units). */
const PASTE_STEP = 24;

export interface ClipboardProps {
  session: BoardSession;
  selected: ReadonlySet<string>;
  readOnly: boolean;
  paste: (clip: ClipItem[], offset: { x: number; y: number }) => void;
  remove: () => void;
  viewCentre: () => { x: number; y: number };
  select: (ids: ReadonlySet<string>) => void;
  notify: (message: string) => void;
}

function forBoard(event: ClipboardEvent): boolean {
  const target = event.target as HTMLElement | null;
  if (target?.closest?.(OWN_CLIPBOARD)) return false;
  // With something selected on the page (a thread's text), copying is the page's.
  const text = window.getSelection()?.toString() ?? "";
  return text === "" && (target === document.body || !!target?.closest?.('[data-testid="board"]'));
}

export function useClipboard(props: ClipboardProps): void {
  const latest = useRef(props);
  useLayoutEffect(() => {
    latest.current = props;
  });
  const pasted = useRef<{ text: string; times: number }>({ text: "", times: 0 });

  useEffect(() => {
    const copy = (event: ClipboardEvent, cut: boolean) => {
      const { session, selected, readOnly, remove } = latest.current;
      if (!forBoard(event) || selected.size === 0 || !event.clipboardData) return;
      const text = encodeClip(clipItems(session.items, selected));
      event.clipboardData.setData("text/plain", text);
      event.preventDefault();
      pasted.current = { text, times: 0 };
      if (cut && !readOnly) remove();
    };
    const onCopy = (event: ClipboardEvent) => copy(event, false);
    const onCut = (event: ClipboardEvent) => copy(event, true);

    const onPaste = (event: ClipboardEvent) => {
      const { session, readOnly, paste, viewCentre, select, notify } = latest.current;
      if (readOnly || !forBoard(event) || !event.clipboardData) return;
      const image = [...event.clipboardData.files].find((file) => file.type.startsWith("image/"));
      const text = event.clipboardData.getData("text/plain");
      event.preventDefault();
      if (image) {
        imageForBoard(image).then(
          ({ src, w, h }) => {
            const centre = viewCentre();
            const size = boardSize({ w, h });
            let id = "";
            session.step(() => {
              id = addItem(session.items, { kind: "image", x: centre.x - size.w / 2, y: centre.y - size.h / 2, ...size, color: DEFAULTS.image.color, src, alt: image.name || "Pasted image" });
            });
            select(new Set([id]));
          },
          (error: Error) => notify(error.message),
        );
        return;
      }
      const clip = decodeClip(text);
      if (clip) {
        // The same copy pasted again steps further on, so copies do not pile up on each other.
        pasted.current = pasted.current.text === text ? { text, times: pasted.current.times + 1 } : { text, times: 1 };
        const step = PASTE_STEP * pasted.current.times;
        paste(clip, { x: step, y: step });
        return;
      }
      if (!text.trim()) return;
      const centre = viewCentre();
      const { w, h } = DEFAULTS.text;
      let id = "";
      session.step(() => {
        id = addItem(session.items, { kind: "text", x: centre.x - w / 2, y: centre.y - h / 2, w, h, color: DEFAULTS.text.color, text: text.slice(0, 10_000) });
      });
      select(new Set([id]));
    };

    document.addEventListener("copy", onCopy);
    document.addEventListener("cut", onCut);
    document.addEventListener("paste", onPaste);
    return () => {
      document.removeEventListener("copy", onCopy);
      document.removeEventListener("cut", onCut);
      document.removeEventListener("paste", onPaste);
    };
  }, []);
}
