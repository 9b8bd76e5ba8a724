import { useState, type ReactNode, type UIEvent } from "react";

/** Height of one line of output or diff, in px: the CSS (`.tool-line`) draws every line this tall. */
export const LINE_HEIGHT = 18;
/** Lines drawn beyond each edge of the box. */
const OVERSCAN = 20;
/** Lines the box shows at once at most. */
const VISIBLE = 24;

/**
 * A scrolling box of `count` lines of which only those in view (and a few beyond) are in the
 * page: 5,000 lines of output cost what 60 do.
 */
export function WindowedLines({
  count,
  renderLine,
  label,
  testId,
}: {
  count: number;
  renderLine: (index: number) => ReactNode;
  label: string;
  testId: string;
}) {
  const [top, setTop] = useState(0);
  const height = Math.min(count, VISIBLE) * LINE_HEIGHT;
  const first = Math.max(0, Math.floor(top / LINE_HEIGHT) - OVERSCAN);
  const last = Math.min(count, Math.ceil((top + height) / LINE_HEIGHT) + OVERSCAN);
  const lines: ReactNode[] = [];
  for (let index = first; index < last; index++) lines.push(renderLine(index));
  return (
    <div
      className="tool-window"
      style={{ height }}
      onScroll={(event: UIEvent<HTMLDivElement>) => setTop(event.currentTarget.scrollTop)}
      tabIndex={0}
      role="region"
      aria-label={label}
      data-testid={testId}
    >
      <div style={{ height: count * LINE_HEIGHT, position: "relative" }}>
        <div style={{ position: "absolute", top: first * LINE_HEIGHT, left: 0, right: 0 }}>{lines}</div>
      </div>
    </div>
  );
}
