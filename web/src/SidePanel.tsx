import { type ReactNode, useEffect, useId, useRef, useState } from "react";
import { isBoardKey } from "./board/keyTarget";

/**
 * The column beside the board (room link, guests, terminals, files). Wide, it is always there;
 * at 1,200 px and less it is a drawer the toggle opens over the board; on a phone, a bottom sheet.
 */
export function SidePanel({ label, count, children }: { label: string; count?: number; children: ReactNode }) {
  const [open, setOpen] = useState(false);
  const id = useId();
  const toggle = useRef<HTMLButtonElement>(null);
  // Esc on the board (or with nothing focused) closes the open drawer too: it lies over the board.
  useEffect(() => {
    if (!open) return;
    const onKey = (event: KeyboardEvent) => {
      if (event.key === "Escape" && (event.target === document.body || isBoardKey(event.target))) setOpen(false);
    };
    document.addEventListener("keydown", onKey);
    return () => document.removeEventListener("keydown", onKey);
  }, [open]);
  return (
    <div
      className={`side${open ? " side-open" : ""}`}
      // Esc closes the open drawer from its toggle as from inside it.
      onKeyDown={(event) => {
        if (event.key !== "Escape" || !open || event.defaultPrevented) return;
        // The focus was in the drawer, which hides: it goes back to the button that opened it.
        toggle.current?.focus();
        setOpen(false);
      }}
    >
      <button
        type="button"
        ref={toggle}
        className="side-toggle"
        aria-expanded={open}
        aria-controls={id}
        data-testid="side-toggle"
        onClick={() => setOpen((was) => !was)}
      >
        {open ? `Hide ${label.toLowerCase()}` : label}
        {count !== undefined && count > 1 && (
          <span className="side-count" data-testid="people-count" aria-label={`${count} people here`}>
            {count}
          </span>
        )}
      </button>
      <aside
        id={id}
        className="panel"
        aria-label={label}
        data-testid="side-panel"
      >
        {children}
      </aside>
    </div>
  );
}
