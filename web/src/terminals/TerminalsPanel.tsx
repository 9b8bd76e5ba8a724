import { useState } from "react";
import { registerFrameContent } from "../frames";
import { useAccess, useRoom, useRoomClient } from "../roomClient";
import { newTerminalId } from "./stream";
import { TerminalView } from "./TerminalView";

registerFrameContent("terminal", TerminalView);

/** Every terminal of the room, side by side, and a button for a new one. */
export function TerminalsPanel() {
  const client = useRoomClient();
  const terminals = useRoom((s) => s.terminals);
  const [mine, setMine] = useState<string[]>([]);
  // A view guest watches the terminals that exist; it can neither start nor end one.
  const watching = useAccess() === "view";
  const known = new Set(terminals.map((t) => t.id));
  const ids = [...terminals.map((t) => t.id), ...mine.filter((id) => !known.has(id))];

  return (
    <section className="terminals-panel">
      <div className="panel-head">
        <h2>Terminals</h2>
        {!watching && (
          <button type="button" data-testid="new-terminal" onClick={() => setMine((m) => [...m, newTerminalId()])}>
            New terminal
          </button>
        )}
      </div>
      {ids.map((id, i) => (
        <div key={id} className="terminal-card">
          <div className="terminal-card-head">
            <span>Terminal {i + 1}</span>
            {!watching && (
              <button
                type="button"
                title="End this shell for everyone"
                onClick={() => {
                  client.send({ t: "term-close", id });
                  setMine((m) => m.filter((x) => x !== id));
                }}
              >
                ×
              </button>
            )}
          </div>
          <TerminalView refId={id} title={`Terminal ${i + 1}`} width={320} height={220} />
        </div>
      ))}
    </section>
  );
}
