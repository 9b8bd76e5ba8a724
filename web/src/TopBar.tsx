import type { ReactNode } from "react";

/** The bar across the top of the host's and the guests' pages: the name, the connection state, and more. */
export function TopBar({ state, label, children }: { state: string; label: string; children?: ReactNode }) {
  return (
    <header className="topbar">
      <span className="brand">canvas</span>
      <span className={`status status-${state}`} data-testid="connection-state">
        {label}
      </span>
      {children}
    </header>
  );
}
