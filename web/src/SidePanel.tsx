import { type ReactNode, useEffect, useId, useRef, useState } from "react";
import { isBoardKey } from "./board/keyTarget";
import { useMedia } from "./board/useMedia";

/** Windows this narrow show the panel as a drawer over the board (styles.css says the same). */
const DRAWER = "(max-width: 1200px)";

/**
 * The column beside the board (room link, guests, terminals, files). Wide, it is there until its
 * button hides it, to give the board the width; at 1,200 px and less it is a drawer the button opens
 * over the board; on a phone, a bottom sheet. At every width the button counts the people here.
 */
export function SidePanel({ label, count, children }: { label: string; count?: number; children: ReactNode }) {
  const drawer = useMedia(DRAWER);
  const [open, setOpen] = useState(false);
  const [hidden, setHidden] = useState(false);
  const shown = drawer ? open : !hidden;
  const id = useId();
  const toggle = useRef<HTMLButtonElement>(null);
  const classes = ["side", drawer && open ? "side-open" : "", !drawer && hidden ? "side-hidden" : ""];
  // Esc on the board (or with nothing focused) closes the open drawer too: it lies over the board.
  useEffect(() => {
    if (!drawer || !open) return;
    const onKey = (event: KeyboardEvent) => {
      if (event.key === "Escape" && (event.target === document.body || isBoardKey(event.target))) setOpen(false);
    };
    document.addEventListener("keydown", onKey);
    return () => document.removeEventListener("keydown", onKey);
  }, [drawer, open]);
  return (
    <div
      className={classes.filter(Boolean).join(" ")}
      // Esc closes the open drawer from its toggle as from inside it.
      onKeyDown={(event) => {
        if (event.key !== "Escape" || !drawer || !open || event.defaultPrevented) return;
        // The focus was in the drawer, which hides: it goes back to the button that opened it.
        toggle.current?.focus();
        setOpen(false);
      }}
    >
      <button
        type="button"
        ref={toggle}
        className="side-toggle"
        aria-expanded={shown}
        aria-controls={id}
        data-testid="side-toggle"
        onClick={() => (drawer ? setOpen((was) => !was) : setHidden((was) => !was))}
      >
        {shown ? `Hide ${label.toLowerCase()}` : label}
        {count !== undefined && count > 1 && (
          <span className="side-count" data-testid="people-count" aria-label={`${count} people here`}>
            {count}
          </span>
        )}
      </button>
      <aside id={id} className="panel" aria-label={label} data-testid="side-panel">
        {children}
      </aside>
    </div>
  );
}
