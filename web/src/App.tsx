import { useCallback, useMemo, useState } from "react";
import { fragmentParams, HostConnection, type ConnectionState } from "./connection";
import type { ServerFrame, Welcome } from "./protocol.gen";
import { RoomClientContext, useRunConnection } from "./roomClient";
import { Board } from "./board/Board";
import { RoomLink } from "./RoomLink";
import { SidePanel } from "./SidePanel";
import { TopBar } from "./TopBar";
import { Guests } from "./host/Guests";
import { FilesPanel } from "./files/FilesPanel";
import { TerminalsPanel } from "./terminals/TerminalsPanel";
import { agentSessionsFor } from "./agents/store";
import "./agents/register";

const STATE_LABEL: Record<ConnectionState, string> = {
  connecting: "Connecting…",
  connected: "Connected",
  reconnecting: "Reconnecting…",
  unauthorized: "Not authorised: open the host link that `canvas serve` printed",
};

export function HostApp() {
  const token = useMemo(() => fragmentParams().get("token"), []);
  const [welcome, setWelcome] = useState<Welcome | null>(null);
  const connection = useMemo(() => {
    if (!token) return null;
    const made = new HostConnection(token);
    // Listening from the start: agent frames are drawn by code loaded later, which must not miss them.
    agentSessionsFor(made);
    return made;
  }, [token]);
  const state = useRunConnection<ConnectionState>(
    connection,
    "connecting",
    useCallback((frame: ServerFrame) => {
      if (frame.t === "welcome") setWelcome(frame);
    }, []),
  );

  if (!connection) {
    return (
      <main className="notice">
        <h1>canvas</h1>
        <p>This page needs the host link that <code>canvas serve</code> printed (it ends in <code>#token=…</code>).</p>
      </main>
    );
  }

  return (
    <RoomClientContext.Provider value={connection}>
    <div className="shell">
      <TopBar state={state} label={STATE_LABEL[state]}>
        {welcome && (
          <span className="cwd" data-testid="cwd" title="the served folder">
            {welcome.cwd}
          </span>
        )}
      </TopBar>
      {welcome && (
        <main className="workspace">
        <Board />
        <SidePanel label="Room">
          <RoomLink welcome={welcome} />
          <Guests />
          <TerminalsPanel />
          <FilesPanel />
          <h2 id="agents-heading">Agents</h2>
          <ul className="agents" data-testid="agents" aria-labelledby="agents-heading">
            {welcome.agents.map((agent) => (
              <li key={agent.id} className={agent.available ? "available" : "unavailable"}>
                <strong>{agent.label}</strong>
                {!agent.available && <span className="reason"> — {agent.reason}</span>}
              </li>
            ))}
          </ul>
        </SidePanel>
        </main>
      )}
    </div>
    </RoomClientContext.Provider>
  );
}
