import { memo, useMemo, useState } from "react";
import type { ToolDiff } from "../../protocol.gen";
import { useHighlighter } from "../highlighter";
import { diffLines, diffStat, hunks, type DiffGap, type DiffRow } from "./lineDiff";
import { WindowedLines } from "./WindowedLines";

/** Rows of a diff shown without a click. */
const INLINE_ROWS = 40;
const MARK = { same: " ", added: "+", removed: "−" } as const;
const SAID = { same: "", added: "added", removed: "removed" } as const;

type Highlight = ((text: string) => string | null) | null;

const Row = memo(function Row({ row, highlight }: { row: DiffRow | DiffGap; highlight: Highlight }) {
  if (row.kind === "gap") {
    return (
      <div className="tool-line diff-gap">
        ⋯ {row.lines.toLocaleString()} unchanged line{row.lines === 1 ? "" : "s"}
      </div>
    );
  }
  const html = row.text ? highlight?.(row.text) : null;
  return (
    <div className={`tool-line diff-${row.kind}`} data-testid={`diff-${row.kind}`}>
      <span className="diff-number" aria-hidden="true">
        {row.oldLine ?? ""}
      </span>
      <span className="diff-number" aria-hidden="true">
        {row.newLine ?? ""}
      </span>
      <span className="diff-mark" aria-hidden="true">
        {MARK[row.kind]}
      </span>
      {SAID[row.kind] && <span className="visually-hidden">{SAID[row.kind]}: </span>}
      {html ? <code dangerouslySetInnerHTML={{ __html: html }} /> : <code>{row.text}</code>}
    </div>
  );
});

/** An edit's change to one file: a unified diff with line numbers, +/− and colour, highlighted. */
export function DiffView({ diff, shownPath }: { diff: ToolDiff; shownPath: string }) {
  const rows = useMemo(() => diffLines(diff.oldText, diff.newText), [diff.oldText, diff.newText]);
  const shown = useMemo(() => hunks(rows), [rows]);
  const stat = useMemo(() => diffStat(rows), [rows]);
  const [open, setOpen] = useState(false);
  const highlighter = useHighlighter(true);
  const language = highlighter?.languageFor(diff.path) ?? null;
  const highlight: Highlight = useMemo(
    () => (highlighter && language ? (text: string) => highlighter.highlightIn(language, text) : null),
    [highlighter, language],
  );
  const long = shown.length > INLINE_ROWS;
  return (
    <div className="tool-diff" data-testid="tool-diff">
      <div className="tool-diff-head">
        <span className="tool-path">{shownPath}</span>
        {diff.oldText === null && <span className="tool-new">new file</span>}
        <span className="diff-stat-added">+{stat.added}</span>
        <span className="diff-stat-removed">−{stat.removed}</span>
      </div>
      <div className="tool-lines">
        {long && open ? (
          <WindowedLines
            count={shown.length}
            label={`Changes to ${shownPath}`}
            testId="tool-diff-window"
            renderLine={(i) => <Row key={i} row={shown[i]} highlight={highlight} />}
          />
        ) : (
          shown.slice(0, INLINE_ROWS).map((row, i) => <Row key={i} row={row} highlight={highlight} />)
        )}
      </div>
      {long && (
        <button type="button" className="agent-link" onClick={() => setOpen((v) => !v)}>
          {open ? "Show the first changes only" : `Show the whole diff (${shown.length.toLocaleString()} lines)`}
        </button>
      )}
    </div>
  );
}
