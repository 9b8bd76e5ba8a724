import { useCallback, useEffect, useState } from "react";
import type { RoomStore } from "../room/roomStore";

const IDENTITY_KEY = "canvas.identity";
const DEFAULT_NAME = "Host";

export interface HostProfile {
  name: string;
  color: string;
  /** Whether the host chose the name: only then do guests see it (on the join page too). */
  named: boolean;
}

function saved(): HostProfile {
  try {
    const parsed = JSON.parse(localStorage.getItem(IDENTITY_KEY) ?? "") as Partial<HostProfile>;
    if (typeof parsed.name === "string" && typeof parsed.color === "string" && /^#[0-9a-f]{6}$/i.test(parsed.color)) {
      return { name: parsed.name.slice(0, 64) || DEFAULT_NAME, color: parsed.color, named: parsed.named === true };
    }
  } catch {
    // First visit, or a corrupt entry: the board's default identity.
  }
  return { name: DEFAULT_NAME, color: "#1971c2", named: false };
}

/** The host's name and colour, kept in this browser and told to the room after every welcome. */
export function useHostProfile(store: RoomStore): [HostProfile, (profile: HostProfile) => void] {
  const [profile, setProfile] = useState(saved);
  const adopt = useCallback((next: HostProfile) => {
    localStorage.setItem(IDENTITY_KEY, JSON.stringify(next));
    setProfile(next);
  }, []);
  useEffect(() => {
    const tell = () => {
      if (profile.named) store.send({ t: "host-profile", name: profile.name, color: profile.color });
    };
    tell();
    return store.onFrame((frame) => {
      if (frame.t === "welcome") tell();
      // Another browser of the host's named it: this one takes the same name rather than stay blank.
      if (frame.t === "people" && !profile.named) {
        const named = frame.people.find((person) => person.access === "host" && person.name !== DEFAULT_NAME);
        if (named) adopt({ name: named.name, color: named.color, named: true });
      }
    });
  }, [store, profile, adopt]);
  return [profile, adopt];
}

/** Where the host says who they are: guests see this name in the people list and on the join page. */
export function HostName({ profile, onChange }: { profile: HostProfile; onChange: (profile: HostProfile) => void }) {
  const [draft, setDraft] = useState(profile.named ? profile.name : "");
  const [shown, setShown] = useState(profile);
  if (shown !== profile) {
    // The name came from elsewhere (another of the host's browsers): the field shows it.
    setShown(profile);
    if (profile.named) setDraft(profile.name);
  }
  const save = () => {
    const name = draft.trim();
    if (name && (name !== profile.name || !profile.named)) onChange({ ...profile, name, named: true });
  };
  return (
    <form
      className="host-name"
      onSubmit={(event) => {
        event.preventDefault();
        save();
      }}
    >
      <label>
        Your name{" "}
        <input
          data-testid="host-name"
          value={draft}
          maxLength={64}
          placeholder="shown to guests"
          onChange={(e) => setDraft(e.target.value)}
          onBlur={save}
        />
      </label>
      <input
        type="color"
        aria-label="Your colour"
        value={profile.color}
        onChange={(e) => onChange({ ...profile, color: e.target.value, named: profile.named })}
      />
    </form>
  );
}
