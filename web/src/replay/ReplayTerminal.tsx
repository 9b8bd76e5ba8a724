import { Terminal } from "@xterm/xterm";
import "@xterm/xterm/css/xterm.css";
import { useEffect, useRef } from "react";
import type { TerminalAt } from "./timeline";

/** The screen's rows as text, top to bottom, without the blank ones at its end. */
function screenText(terminal: Terminal): string {
  const buffer = terminal.buffer.active;
  const rows: string[] = [];
  for (let row = 0; row < terminal.rows; row++) rows.push(buffer.getLine(buffer.viewportY + row)?.translateToString(true) ?? "");
  return rows.join("\n").trimEnd();
}

/** One terminal's screen at the moment: a fresh xterm fed its output, or only what came since when
 * the moment moved forward within the same screen. `onScreen` is told its text once drawn (the
 * board's frame of it shows the same). */
export function ReplayTerminal({
  name,
  shown,
  onScreen,
}: {
  name: string;
  shown: TerminalAt | null;
  onScreen?: (text: string) => void;
}) {
  const box = useRef<HTMLDivElement>(null);
  const term = useRef<Terminal | null>(null);
  const fed = useRef("");
  const tell = useRef(onScreen);
  useEffect(() => {
    tell.current = onScreen;
  });
  useEffect(() => {
    const terminal = new Terminal({ disableStdin: true, convertEol: false, scrollback: 1000, fontSize: 12 });
    terminal.open(box.current!);
    term.current = terminal;
    return () => {
      terminal.dispose();
      term.current = null;
      fed.current = "";
    };
  }, []);
  useEffect(() => {
    const terminal = term.current;
    if (!terminal) return;
    const output = shown?.output ?? "";
    if (shown && (terminal.cols !== shown.cols || terminal.rows !== shown.rows)) terminal.resize(shown.cols, shown.rows);
    const told = () => tell.current?.(screenText(terminal));
    if (output.startsWith(fed.current) && fed.current.length > 0) {
      terminal.write(output.slice(fed.current.length), told);
    } else {
      terminal.reset();
      terminal.write(output, told);
    }
    fed.current = output;
  }, [shown]);
  return (
    <figure className="replay-terminal">
      <figcaption>
        {name}
        {shown?.exitCode != null && <span className="replay-muted"> — ended (code {shown.exitCode})</span>}
        {!shown && <span className="replay-muted"> — not started yet</span>}
      </figcaption>
      <div ref={box} className="replay-xterm" data-testid="replay-terminal" aria-label={`${name} as it was`} />
    </figure>
  );
}
