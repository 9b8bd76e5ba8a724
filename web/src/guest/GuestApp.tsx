import { useCallback, useMemo, useState } from "react";
import type { ServerFrame } from "../protocol.gen";
import { RoomClientContext, useRunConnection } from "../roomClient";
import { agentSessionsFor } from "../agents/store";
import { Board } from "../board/Board";
import { FilesPanel } from "../files/FilesPanel";
import { TerminalsPanel } from "../terminals/TerminalsPanel";
import { GuestConnection, type GuestState, type Profile, type RoomLinkParams } from "./guestConnection";
import { TopBar } from "../TopBar";

const PROFILE_KEY = "canvas.guest.profile";
const COLORS = ["#e0533d", "#e3a33b", "#3fa34d", "#2f7fd1", "#8c5bd6", "#d1469a"];

const STATE_LABEL: Record<GuestState, string> = {
  idle: "Not joined",
  connecting: "Joining…",
  connected: "Connected",
  reconnecting: "Reconnecting…",
  restarting: "Host restarting — reconnecting",
  refused: "Refused",
};

const ACCESS_TEXT: Record<string, string> = {
  view: "You can watch: the board, sessions and terminals.",
  edit: "You can edit the board and browse files; prompts wait for the host's approval.",
  trusted: "You are trusted: your prompts run directly.",
};

interface Pending {
  id: string;
  ref: string;
}

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
  const [joined, setJoined] = useState(false);
  // The profile is taken as it is when the guest presses Join; later edits of the form do not reconnect.
  const connection = useMemo(() => {
    if (!joined) return null;
    const made = new GuestConnection(link, profile);
    // Listening before the channel opens: the histories that follow the welcome are not missed.
    agentSessionsFor(made);
    return made;
  }, [joined]);
  const [access, setAccess] = useState<string | null>(null);
  const [pending, setPending] = useState<Pending[]>([]);
  const [notices, setNotices] = useState<string[]>([]);
  const state = useRunConnection<GuestState>(
    connection,
    "idle",
    useCallback((frame: ServerFrame) => {
      if (frame.t === "welcome" || frame.t === "access") setAccess(frame.access);
      if (frame.t === "request-pending") setPending((list) => [...list, { id: frame.id, ref: frame.ref }]);
      if (frame.t === "approval-resolved") {
        setPending((list) => list.filter((p) => p.id !== frame.id));
        setNotices((list) => [...list.slice(-4), `Your ${frame.ref} was ${frame.outcome}.`]);
      }
      if (frame.t === "error") setNotices((list) => [...list.slice(-4), frame.message]);
      if (frame.t === "gap") setNotices((list) => [...list.slice(-4), "Catching up with the room…"]);
    }, []),
  );

  if (!connection) {
    return (
      <main className="notice guest-join">
        <h1>Join this canvas</h1>
        <form
          onSubmit={(event) => {
            event.preventDefault();
            if (!profile.name.trim()) return;
            localStorage.setItem(PROFILE_KEY, JSON.stringify(profile));
            setJoined(true);
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

  return (
    <RoomClientContext.Provider value={connection}>
      <main className="shell">
        <TopBar state={state} label={STATE_LABEL[state]} since={connection.restart.since}>
          <span className="guest-me" style={{ color: profile.color }}>
            {profile.name}
          </span>
        </TopBar>
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
        {pending.length > 0 && (
          <ul className="banner banner-pending" data-testid="pending-requests">
            {pending.map((p) => (
              <li key={p.id}>Your {p.ref} is waiting for the host…</li>
            ))}
          </ul>
        )}
        {notices.length > 0 && (
          <ul className="notices" data-testid="guest-notices">
            {notices.map((text, i) => (
              <li key={i}>{text}</li>
            ))}
          </ul>
        )}
        {access && state !== "refused" && (
          <div className="workspace">
            <Board name={profile.name} color={profile.color} />
            <section className="panel">
              <TerminalsPanel />
              <FilesPanel />
            </section>
          </div>
        )}
      </main>
    </RoomClientContext.Provider>
  );
}
