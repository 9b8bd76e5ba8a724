import { useState } from "react";
import { fragmentParams, HostConnection, type ConnectionState } from "./connection";
import { RoomStore } from "./room/roomStore";
import { useRoomState } from "./roomClient";
import { AgentMenu } from "./agents/AgentMenu";
import { Board } from "./board/Board";
import { AuditPanel } from "./audit/AuditPanel";
import { Invites } from "./people/Invites";
import { RoomLink } from "./RoomLink";
import { RoomPage } from "./RoomPage";
import { SidePanel } from "./SidePanel";
import { PeopleList } from "./people/PeopleList";
import { HostName, useHostProfile } from "./people/HostName";
import { RoomList } from "./roomlist/RoomList";
import { FilesPanel } from "./files/FilesPanel";
import { TerminalsPanel } from "./terminals/TerminalsPanel";
import { HostTimeline } from "./replay/HostTimeline";
import { FRAME_KINDS } from "./frameKinds";

const STATE_LABEL: Record<ConnectionState, string> = {
  connecting: "Connecting…",
  connected: "Connected",
  reconnecting: "Reconnecting…",
  unauthorized: "Not authorised: open the host link that `canvas serve` printed",
};

export function HostApp() {
  const [store] = useState(() => {
    const token = fragmentParams().get("token");
    return token ? new RoomStore(new HostConnection(token)) : null;
  });
  if (!store) {
    return (
      <main className="notice">
        <h1>canvas</h1>
        <p>This page needs the host link that <code>canvas serve</code> printed (it ends in <code>#token=…</code>).</p>
      </main>
    );
  }
  return <HostRoom store={store} />;
}

function HostRoom({ store }: { store: RoomStore<ConnectionState> }) {
  const welcome = useRoomState(store, (s) => s.welcome);
  const people = useRoomState(store, (s) => s.people.length);
  const [profile, setProfile] = useHostProfile(store);
  return (
    <RoomPage
      store={store}
      labels={STATE_LABEL}
      bar={
        welcome && (
          <span className="cwd" data-testid="cwd" title="the served folder">
            {welcome.cwd ?? welcome.project}
          </span>
        )
      }
    >
      {welcome && (
        <main className="workspace">
          <Board name={profile.name} color={profile.color} frames={FRAME_KINDS} />
          <SidePanel label="Room" count={people}>
            <RoomLink />
            <HostName profile={profile} onChange={setProfile} />
            <PeopleList me={welcome.peerId} />
            <Invites />
            <AuditPanel />
            <HostTimeline />
            <RoomList />
            <TerminalsPanel />
            <FilesPanel />
            <h2>Agents</h2>
            <AgentMenu />
          </SidePanel>
        </main>
      )}
    </RoomPage>
  );
}
