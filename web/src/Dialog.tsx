import { type ReactNode, useEffect, useId, useRef } from "react";

/**
 * A modal dialog (the browser's <dialog>: focus stays inside, Esc closes it, focus returns to
 * where it was), with a title that names it and a Close button.
 */
export function Dialog(props: { title: string; onClose: () => void; children: ReactNode; className?: string; testId?: string }) {
  const ref = useRef<HTMLDialogElement>(null);
  const titleId = useId();
  const { onClose } = props;
  useEffect(() => {
    const dialog = ref.current;
    if (!dialog) return;
    dialog.showModal();
    const closed = () => onClose();
    dialog.addEventListener("close", closed);
    return () => {
      dialog.removeEventListener("close", closed);
      dialog.close();
    };
  }, [onClose]);
  return (
    <dialog
      ref={ref}
      className={`dialog ${props.className ?? ""}`}
      aria-labelledby={titleId}
      data-testid={props.testId}
      // Keys typed here are the dialog's own, not the board's shortcuts.
      onKeyDown={(event) => event.stopPropagation()}
    >
      <div className="dialog-head">
        <h2 id={titleId}>{props.title}</h2>
        <button type="button" className="dialog-close" aria-label="Close" onClick={() => ref.current?.close()}>
          ×
        </button>
      </div>
      {props.children}
    </dialog>
  );
}
