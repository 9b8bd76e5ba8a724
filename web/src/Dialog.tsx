import { type KeyboardEvent, type ReactNode, useEffect, useId, useRef } from "react";

const FOCUSABLE = 'button:not([disabled]), input:not([disabled]), select:not([disabled]), textarea:not([disabled]), [href], [tabindex]:not([tabindex="-1"])';

/** Tab from the last control goes to the first, Shift+Tab from the first to the last: out of a
 * modal dialog, the focus would land on the page behind it, where Esc no longer closes it. */
function keepFocusInside(event: KeyboardEvent, dialog: HTMLDialogElement | null): void {
  const controls = dialog ? [...dialog.querySelectorAll<HTMLElement>(FOCUSABLE)] : [];
  if (controls.length === 0) return;
  const [first, last] = [controls[0], controls[controls.length - 1]];
  if (event.shiftKey ? document.activeElement === first : document.activeElement === last) {
    event.preventDefault();
    (event.shiftKey ? last : first).focus();
  }
}

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
      onKeyDown={(event) => {
        event.stopPropagation();
        if (event.key === "Tab") keepFocusInside(event, ref.current);
      }}
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
