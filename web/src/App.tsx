import { useCallback, useMemo, useState } from "react";
import { fragmentParams, HostConnection, type ConnectionState } from "./connection";
import type { ServerFrame, Welcome } from "./protocol.gen";
import { RoomClientContext, useRunConnection } from "./roomClient";
import { Board } from "./board/Board";
import { RoomLink } from "./RoomLink";
import { TopBar } from "./TopBar";
import { GuestApp } from "./guest/GuestApp";
import { roomLinkParams } from "./guest/guestConnection";
import { Guests } from "./host/Guests";
import { FilesPanel } from "./files/FilesPanel";
import { TerminalsPanel } from "./terminals/TerminalsPanel";
import "./agents/register";

const STATE_LABEL: Record<ConnectionState, string> = {
  connecting: "Connecting…",
  connected: "Connected",
  reconnecting: "Reconnecting…",
  restarting: "Host restarting — reconnecting",
  unauthorized: "Not authorised: open the host link that `canvas serve` printed",
};

export function App() {
  const guestLink = useMemo(() => roomLinkParams(), []);
  return guestLink ? <GuestApp link={guestLink} /> : <HostApp />;
}

function HostApp() {
  const token = useMemo(() => fragmentParams().get("token"), []);
  const [welcome, setWelcome] = useState<Welcome | null>(null);
  const connection = useMemo(() => (token ? new HostConnection(token) : null), [token]);
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
    <main className="shell">
      <TopBar state={state} label={STATE_LABEL[state]} since={connection.restart.since}>
        {welcome && (
          <span className="cwd" data-testid="cwd" title="the served folder">
            {welcome.cwd}
          </span>
        )}
      </TopBar>
      {welcome && (
        <div className="workspace">
        <Board />
        <section className="panel">
          <RoomLink welcome={welcome} />
          <Guests />
          <TerminalsPanel />
          <FilesPanel />
          <h2>Agents</h2>
          <ul className="agents" data-testid="agents">
            {welcome.agents.map((agent) => (
              <li key={agent.id} className={agent.available ? "available" : "unavailable"}>
                <strong>{agent.label}</strong>
                {!agent.available && <span className="reason"> — {agent.reason}</span>}
              </li>
            ))}
          </ul>
        </section>
        </div>
      )}
    </main>
    </RoomClientContext.Provider>
  );
}
