/** The collaborative text editor inside notes, text and shapes: a textarea kept in step with the item's Y.Text. */
import { useEffect, useLayoutEffect, useRef, useState } from "react";
import type * as Y from "yjs";
import { applyTextDiff, REMOTE, textDiff } from "./model";
import type { BoardSession } from "./sync";

/** The text of a Y.Text, kept current as anyone edits it. */
export function useYText(text: Y.Text | undefined): string {
  const [value, setValue] = useState(() => text?.toString() ?? "");
  useEffect(() => {
    if (!text) return;
    const update = () => setValue(text.toString());
    update();
    text.observe(update);
    return () => text.unobserve(update);
  }, [text]);
  return value;
}

/** Moves a caret offset across a remote Y.Text change, so typing is not thrown to the end. */
function shiftCaret(caret: number, delta: Y.YTextEvent["delta"]): number {
  let index = 0;
  for (const op of delta) {
    if (op.retain !== undefined) index += op.retain;
    else if (typeof op.insert === "string") {
      if (index <= caret) caret += op.insert.length;
      index += op.insert.length;
    } else if (op.delete !== undefined) {
      if (index < caret) caret -= Math.min(op.delete, caret - index);
    }
  }
  return caret;
}

export function TextEditor({
  text,
  session,
  onDone,
  takeTyped,
  className,
}: {
  text: Y.Text;
  session: BoardSession;
  onDone: () => void;
  takeTyped: () => string;
  className: string;
}) {
  const ref = useRef<HTMLTextAreaElement>(null);
  const [value, setValue] = useState(() => text.toString());
  const caret = useRef<[number, number] | null>(null);

  useEffect(() => {
    const observe = (event: Y.YTextEvent) => {
      const area = ref.current;
      if (area && event.transaction.origin === REMOTE) {
        caret.current = [shiftCaret(area.selectionStart, event.delta), shiftCaret(area.selectionEnd, event.delta)];
      }
      setValue(text.toString());
    };
    text.observe(observe);
    return () => text.unobserve(observe);
  }, [text]);

  useLayoutEffect(() => {
    if (ref.current && caret.current) {
      ref.current.setSelectionRange(...caret.current);
      caret.current = null;
    }
  }, [value]);

  // Before the browser paints or takes another key: a key pressed now must meet the editor
  // focused and already holding what was typed ahead, or its change would be measured against
  // text the textarea does not show yet (and take back what was typed ahead).
  useLayoutEffect(() => {
    const area = ref.current;
    if (!area) return;
    // One editing session is one undo step, apart from creating the item and from later moves.
    session.endStep();
    const early = takeTyped();
    if (early) {
      session.change(() => text.insert(text.length, early));
      area.value = text.toString();
      setValue(area.value);
    }
    area.focus();
    area.setSelectionRange(area.value.length, area.value.length);
    return () => session.endStep();
    // Once per editing session: what was typed ahead is taken when the editor first shows.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [session]);

  return (
    <textarea
      ref={ref}
      className={`${className} nodrag nowheel board-editor`}
      aria-label="The item's text"
      data-testid="board-text-editor"
      value={value}
      onChange={(event) => {
        const edit = textDiff(text.toString(), event.target.value);
        if (edit) session.change(() => applyTextDiff(text, edit));
        setValue(text.toString());
      }}
      onBlur={onDone}
      onKeyDown={(event) => {
        if (event.key === "Escape") {
          // The item keeps the focus, so the board's keys go on working.
          ref.current?.closest<HTMLElement>(".react-flow__node")?.focus();
          onDone();
        }
        event.stopPropagation();
      }}
    />
  );
}
