import { type ReactNode, useEffect, useState } from "react";

/** Seconds since `since` (epoch ms), ticking once a second while `since` is set. */
function useSecondsSince(since: number | null): number | null {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    if (since === null) return;
    setNow(Date.now());
    const timer = setInterval(() => setNow(Date.now()), 1000);
    return () => clearInterval(timer);
  }, [since]);
  return since === null ? null : Math.max(0, Math.round((now - since) / 1000));
}

/**
 * The bar across the top of the host's and the guests' pages: the name, the connection state, and
 * more. `since` is when the host said it was restarting, shown as the time since.
 */
export function TopBar({
  state,
  label,
  since = null,
  children,
}: {
  state: string;
  label: string;
  since?: number | null;
  children?: ReactNode;
}) {
  const seconds = useSecondsSince(state === "restarting" ? since : null);
  return (
    <header className="topbar">
      <span className="brand">canvas</span>
      <span className={`status status-${state}`} data-testid="connection-state" role="status">
        {label}
        {seconds !== null && ` (${seconds} s)`}
      </span>
      {children}
    </header>
  );
}
