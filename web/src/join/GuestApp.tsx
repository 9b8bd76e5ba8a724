import { useEffect, useRef, useState } from "react";
import { selectAccess } from "../room/roomState";
import { RoomStore } from "../room/roomStore";
import { useRoomState } from "../roomClient";
import { RoomPage } from "../RoomPage";
import { Board } from "../board/Board";
import { FilesPanel } from "../files/FilesPanel";
import { PeopleList } from "../people/PeopleList";
import { RoomList } from "../roomlist/RoomList";
import { TerminalsPanel } from "../terminals/TerminalsPanel";
import { SidePanel } from "../SidePanel";
import { AskForEdit } from "../guests/AskForEdit";
import { FRAME_KINDS } from "../frameKinds";
import type { RoomAbout } from "../protocol.gen";
import {
  fetchAbout,
  GuestConnection,
  Withdrawn,
  type GuestState,
  type Profile,
  type RoomLinkParams,
  type Trouble,
} from "./guestConnection";

const PROFILE_KEY = "canvas.guest.profile";
const COLORS = ["#e0533d", "#e3a33b", "#3fa34d", "#2f7fd1", "#8c5bd6", "#d1469a"];

const STATE_LABEL: Record<GuestState, string> = {
  idle: "Not joined",
  connecting: "Joining…",
  connected: "Connected",
  reconnecting: "Reconnecting…",
  refused: "Left the room",
};

/** What each access lets a guest do, as the join page and the room page say it. */
const ACCESS_TEXT: Record<string, string> = {
  view: "You can watch: the board, the agents' sessions, the terminals and the files on the board.",
  edit: "You can edit the board and browse the files; your prompts and new terminals wait for the host's approval.",
  trusted: "You are trusted: your prompts and terminals run directly.",
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

/** The page a room link opens: whose room, which project, what one may do; a name and colour; join. */
export function GuestApp({ link }: { link: RoomLinkParams }) {
  const [profile, setProfile] = useState<Profile>(savedProfile);
  // Made when the guest presses Join, with the profile as it is then.
  const [joined, setJoined] = useState<{ connection: GuestConnection; store: RoomStore<GuestState> } | null>(null);
  // A named invitation says whom it is for: the name to start from.
  const about = useAbout(link, (name) => setProfile((current) => (current.name ? current : { ...current, name })));
  const join = () => {
    // The reply the page already has about the room spares the join asking again (through relays, it holds the TURN credentials).
    const connection = new GuestConnection(link, profile, about && !(about instanceof Withdrawn) ? about : null);
    setJoined({ connection, store: new RoomStore(connection) });
  };

  if (joined) return <GuestRoom {...joined} profile={profile} onRejoin={join} />;
  if (about instanceof Withdrawn) {
    return (
      <main className="notice guest-join">
        {/* Said alike for a withdrawn invitation and for a person the host removed: the reason says which. */}
        <h1 data-testid="join-title">This link does not let you in</h1>
        <p data-testid="join-refused" role="alert">
          {about.message} Ask the host if you should be here.
        </p>
      </main>
    );
  }
  return (
    <main className="notice guest-join">
      <h1 data-testid="join-title">{about ? `Join ${about.project}` : "Join this canvas"}</h1>
      <p data-testid="join-about">{aboutText(about)}</p>
      <form
        onSubmit={(event) => {
          event.preventDefault();
          if (!profile.name.trim()) return;
          localStorage.setItem(PROFILE_KEY, JSON.stringify(profile));
          join();
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

function aboutText(about: RoomAbout | null | undefined): string {
  if (about === undefined) return "Finding the room…";
  if (about === null) return "The room does not answer yet: the host may not be serving it right now. You can still try to join.";
  const whose = about.host ? `${about.host}'s room` : "The host's room";
  return `${whose} for the project ${about.project}. You will join with ${about.access} access. ${ACCESS_TEXT[about.access] ?? ""}`;
}

/** What the hub says about the room: undefined while asking, null when it does not answer, Withdrawn when
 * the link's invitation no longer stands. */
function useAbout(link: RoomLinkParams, onName: (name: string) => void): RoomAbout | Withdrawn | null | undefined {
  const [about, setAbout] = useState<RoomAbout | Withdrawn | null | undefined>(undefined);
  const named = useRef(onName);
  useEffect(() => {
    let current = true;
    fetchAbout(link).then(
      (found) => {
        if (!current) return;
        setAbout(found);
        if (found.name) named.current(found.name);
      },
      (error: unknown) => current && setAbout(error instanceof Withdrawn ? error : null),
    );
    return () => {
      current = false;
    };
  }, [link]);
  return about;
}

function GuestRoom({
  connection,
  store,
  profile,
  onRejoin,
}: {
  connection: GuestConnection;
  store: RoomStore<GuestState>;
  profile: Profile;
  onRejoin: () => void;
}) {
  const state = useRoomState(store, (s) => s.connection);
  const access = useRoomState(store, selectAccess);
  const welcome = useRoomState(store, (s) => s.welcome);
  const people = useRoomState(store, (s) => s.people.length);
  const trouble = useTrouble(connection);

  if (state === "refused") {
    return (
      <Ended reason={connection.refusal} withdrawn={connection.withdrawn} onRejoin={connection.final ? null : onRejoin} />
    );
  }
  return (
    <RoomPage
      store={store}
      labels={STATE_LABEL}
      bar={
        <>
          {welcome && (
            <span className="cwd" data-testid="project">
              {welcome.project}
            </span>
          )}
          <span className="guest-me">
            <span className="guest-dot" style={{ background: profile.color }} aria-hidden="true" />
            {profile.name}
          </span>
        </>
      }
    >
      <main className="page">
        {trouble && state !== "connected" && <TroubleLine key={trouble.retryAt} trouble={trouble} />}
        {access && (
          <p className={`banner banner-${access}`} data-testid="access-banner" data-access={access}>
            <FoldedLine text={ACCESS_TEXT[access] ?? ""} />
            <AskForEdit />
          </p>
        )}
        {access && welcome && (
          <div className="workspace">
            <Board name={profile.name} color={profile.color} frames={FRAME_KINDS} />
            <SidePanel label="Room" count={people}>
              <PeopleList me={welcome.peerId} />
              <RoomList />
              <TerminalsPanel />
              <FilesPanel />
            </SidePanel>
          </div>
        )}
      </main>
    </RoomPage>
  );
}

/** Why the page has not reached the host yet, as the connection last said it. */
function useTrouble(connection: GuestConnection): Trouble | null {
  const [trouble, setTrouble] = useState<Trouble | null>(connection.trouble);
  useEffect(() => connection.onTrouble(setTrouble), [connection]);
  return trouble;
}

/** What went wrong, and when the page tries again, counted down (drawn anew for each trouble: see its key). */
function TroubleLine({ trouble }: { trouble: Trouble }) {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    const timer = setInterval(() => setNow(Date.now()), 1000);
    return () => clearInterval(timer);
  }, []);
  const seconds = Math.ceil((trouble.retryAt - now) / 1000);
  return (
    <p className="banner banner-trouble" data-testid="join-trouble" data-pause-s={trouble.pauseMs / 1000} role="status">
      {trouble.words} {seconds > 0 ? `Trying again in ${seconds} s.` : "Trying again now…"}
    </p>
  );
}

/** A line that a phone shows as one row, whole after a tap, so the board starts near the top. */
function FoldedLine({ text }: { text: string }) {
  const [open, setOpen] = useState(false);
  return (
    <button type="button" className="banner-fold" aria-expanded={open} onClick={() => setOpen((was) => !was)}>
      {text}
    </button>
  );
}

/** The end of a visit: removed by the host, the invitation withdrawn, or the room closed. Nothing of the room stays on screen. */
function Ended({ reason, withdrawn, onRejoin }: { reason: string; withdrawn: boolean; onRejoin: (() => void) | null }) {
  return (
    <main className="notice guest-ended" data-testid="ended">
      <h1 data-testid="ended-title">{withdrawn ? "This invitation was withdrawn" : "You left the room"}</h1>
      <p data-testid="refusal">{withdrawn ? "The host withdrew it: you are out of the room, and its link no longer opens it." : reason || "The room closed."}</p>
      {onRejoin ? (
        <button type="button" onClick={onRejoin}>
          Try to join again
        </button>
      ) : (
        <p>Ask the host for a new invitation if you should be here.</p>
      )}
    </main>
  );
}
