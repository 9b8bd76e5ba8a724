import { useState } from "react";
import { requestNoun } from "../room/requests";
import { selectAccess } from "../room/roomState";
import { RoomStore } from "../room/roomStore";
import { useRoomState } from "../roomClient";
import { RoomPage } from "../RoomPage";
import { Board } from "../board/Board";
import { FilesPanel } from "../files/FilesPanel";
import { TerminalsPanel } from "../terminals/TerminalsPanel";
import { SidePanel } from "../SidePanel";
import "../agents/register";
import { GuestConnection, type GuestState, type Profile, type RoomLinkParams } from "./guestConnection";

const PROFILE_KEY = "canvas.guest.profile";
const COLORS = ["#e0533d", "#e3a33b", "#3fa34d", "#2f7fd1", "#8c5bd6", "#d1469a"];

const STATE_LABEL: Record<GuestState, string> = {
  idle: "Not joined",
  connecting: "Joining…",
  connected: "Connected",
  reconnecting: "Reconnecting…",
  refused: "Refused",
};

const ACCESS_TEXT: Record<string, string> = {
  view: "You can watch: the board, sessions and terminals.",
  edit: "You can edit the board and browse files; prompts wait for the host's approval.",
  trusted: "You are trusted: your prompts run directly.",
};

function savedProfile(): Profile {
  try {
    const saved = JSON.parse(localStorage.getItem(PROFILE_KEY) ?? "") as Profile;
    if (saved.name && /^#[0-9a-f]{6}$/i.test(saved.color)) return saved;
  } catch {
    // first visit: no profile yet
  }
  return { name: "", color: COLORS[Math.floor(Math.random() * COLORS.length)] };
}

/** The page a room link opens: pick a name and colour, join, and see what you may do. */
export function GuestApp({ link }: { link: RoomLinkParams }) {
  const [profile, setProfile] = useState<Profile>(savedProfile);
  // Made when the guest presses Join, with the profile as it is then.
  const [joined, setJoined] = useState<{ connection: GuestConnection; store: RoomStore<GuestState> } | null>(null);

  if (joined) return <GuestRoom {...joined} profile={profile} />;
  return (
    <main className="notice guest-join">
      <h1>Join this canvas</h1>
      <form
        onSubmit={(event) => {
          event.preventDefault();
          if (!profile.name.trim()) return;
          localStorage.setItem(PROFILE_KEY, JSON.stringify(profile));
          const connection = new GuestConnection(link, profile);
          setJoined({ connection, store: new RoomStore(connection) });
        }}
      >
        <label>
          Your name{" "}
          <input
            data-testid="guest-name"
            value={profile.name}
            maxLength={64}
            autoFocus
            onChange={(event) => setProfile({ ...profile, name: event.target.value })}
          />
        </label>{" "}
        <label>
          Colour{" "}
          <input
            type="color"
            data-testid="guest-color"
            value={profile.color}
            onChange={(event) => setProfile({ ...profile, color: event.target.value })}
          />
        </label>{" "}
        <button type="submit" data-testid="guest-join" disabled={!profile.name.trim()}>
          Join
        </button>
      </form>
    </main>
  );
}

function GuestRoom({
  connection,
  store,
  profile,
}: {
  connection: GuestConnection;
  store: RoomStore<GuestState>;
  profile: Profile;
}) {
  const state = useRoomState(store, (s) => s.connection);
  const access = useRoomState(store, selectAccess);
  const requests = useRoomState(store, (s) => s.requests);
  const notices = useRoomState(store, (s) => s.notices);

  return (
    <RoomPage
      store={store}
      labels={STATE_LABEL}
      bar={
        <span className="guest-me">
          <span className="guest-dot" style={{ background: profile.color }} aria-hidden="true" />
          {profile.name}
        </span>
      }
    >
      <main className="page">
        {state === "refused" && (
          <p className="banner banner-refused" data-testid="refusal">
            {connection.refusal}
          </p>
        )}
        {access && (
          <p className={`banner banner-${access}`} data-testid="access-banner" data-access={access}>
            {ACCESS_TEXT[access] ?? access}
          </p>
        )}
        {requests.length > 0 && (
          <ul className="banner banner-pending" data-testid="pending-requests">
            {requests.map((request) => (
              <li key={request.id}>Your {requestNoun(request.ref)} is waiting for the host…</li>
            ))}
          </ul>
        )}
        {notices.length > 0 && (
          <ul className="notices" data-testid="guest-notices">
            {notices.map((notice) => (
              <li key={notice.id}>{notice.text}</li>
            ))}
          </ul>
        )}
        {access && state !== "refused" && (
          <div className="workspace">
            <Board name={profile.name} color={profile.color} />
            <SidePanel label="Terminals and files">
              <TerminalsPanel />
              <FilesPanel />
            </SidePanel>
          </div>
        )}
      </main>
    </RoomPage>
  );
}
