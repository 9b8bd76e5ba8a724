import { Terminal } from "@xterm/xterm";
import "@xterm/xterm/css/xterm.css";
import { useEffect, useRef } from "react";
import type { TerminalAt } from "./timeline";

/** One terminal's screen at the moment: a fresh xterm fed its output, or only what came since when
 * the moment moved forward within the same screen. */
export function ReplayTerminal({ name, shown }: { name: string; shown: TerminalAt | null }) {
  const box = useRef<HTMLDivElement>(null);
  const term = useRef<Terminal | null>(null);
  const fed = useRef("");
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
    if (output.startsWith(fed.current) && fed.current.length > 0) {
      terminal.write(output.slice(fed.current.length));
    } else {
      terminal.reset();
      terminal.write(output);
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
