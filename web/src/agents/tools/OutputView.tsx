import { memo, useMemo, useState } from "react";
import { ansiRuns } from "./ansi";
import { outputLines } from "./toolOutput";
import { WindowedLines } from "./WindowedLines";

/** Lines of output shown without a click. */
export const INLINE_LINES = 20;

const Line = memo(function Line({ text }: { text: string }) {
  const runs = ansiRuns(text);
  return (
    <div className="tool-line">
      {runs.length === 0
        ? " "
        : runs.map((run, i) => (
            <span key={i} className={`${run.colour === null ? "" : `ansi-${run.colour}`}${run.bold ? " ansi-bold" : ""}`}>
              {run.text}
            </span>
          ))}
    </div>
  );
});

/**
 * A command's output: up to `INLINE_LINES` lines at once, the rest behind one click in a windowed
 * box; terminal colours drawn as colours. A failing exit is said beside it, not mixed into it.
 */
export function OutputView({ text, exitCode, failed }: { text: string; exitCode: number | null; failed: boolean }) {
  const lines = useMemo(() => outputLines(text), [text]);
  const [open, setOpen] = useState(false);
  const long = lines.length > INLINE_LINES;
  const exitFailed = exitCode !== null && exitCode !== 0;
  return (
    <div className={`tool-output${failed || exitFailed ? " tool-output-failed" : ""}`} data-testid="tool-output">
      {lines.length > 0 && (!long || !open) && (
        <div className="tool-lines">
          {lines.slice(0, INLINE_LINES).map((line, i) => (
            <Line key={i} text={line} />
          ))}
        </div>
      )}
      {long && open && (
        <div className="tool-lines">
          <WindowedLines
            count={lines.length}
            label={`Output, ${lines.length.toLocaleString()} lines`}
            testId="tool-output-window"
            renderLine={(i) => <Line key={i} text={lines[i]} />}
          />
        </div>
      )}
      <div className="tool-output-foot">
        {long && (
          <button type="button" className="agent-link" onClick={() => setOpen((v) => !v)} data-testid="tool-output-more">
            {open ? "Show the first lines only" : `Show all ${lines.length.toLocaleString()} lines`}
          </button>
        )}
        {exitCode !== null && (
          <span className={exitFailed ? "tool-exit-failed" : "tool-exit"} data-testid="tool-exit">
            {exitFailed ? `✗ Failed with exit code ${exitCode}` : "✓ Exit code 0"}
          </span>
        )}
      </div>
    </div>
  );
}
