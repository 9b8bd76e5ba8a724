import { useState } from "react";
import { registerFrameContent } from "../frames";
import { selectMayType } from "../room/roomState";
import { useAccess, useRoom, useRoomClient } from "../roomClient";
import { newTerminalId } from "./stream";
import { TerminalView } from "./TerminalView";

registerFrameContent("terminal", TerminalView);

/** Every terminal of the room, side by side, and a button for a new one. */
export function TerminalsPanel() {
  const client = useRoomClient();
  const terminals = useRoom((s) => s.terminals);
  // Asked for here and not listed yet: an edit guest's waits for the host.
  const [mine, setMine] = useState<string[]>([]);
  // A view guest watches the terminals that exist; it can neither start nor end one.
  const watching = useAccess() === "view";
  const known = new Set(terminals.map((t) => t.id));
  const ids = [...terminals.map((t) => t.id), ...mine.filter((id) => !known.has(id))];
  const start = () => {
    const id = newTerminalId();
    client.send({ t: "term-open", id });
    setMine((m) => [...m, id]);
  };

  return (
    <section className="terminals-panel">
      <div className="panel-head">
        <h2>Terminals</h2>
        {!watching && (
          <button type="button" data-testid="new-terminal" onClick={start}>
            New terminal
          </button>
        )}
      </div>
      {ids.map((id) => (
        <div key={id} className="terminal-card">
          {known.has(id) && <EndButton id={id} onEnd={() => setMine((m) => m.filter((x) => x !== id))} />}
          <TerminalView refId={id} title="" width={320} height={240} />
        </div>
      ))}
    </section>
  );
}

/** Ending a shell is for whoever may type into it. */
function EndButton({ id, onEnd }: { id: string; onEnd: () => void }) {
  const client = useRoomClient();
  const mayType = useRoom((s) => selectMayType(s, id));
  if (!mayType) return null;
  return (
    <div className="terminal-card-head">
      <button
        type="button"
        title="End this shell for everyone"
        onClick={() => {
          client.send({ t: "term-close", id });
          onEnd();
        }}
      >
        End this shell
      </button>
    </div>
  );
}
