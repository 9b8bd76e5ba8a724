import { lazy, Suspense, useCallback, useEffect, useRef, useState } from "react";
import { createPortal } from "react-dom";
import { fragmentParams } from "../connection";
import type { RestoreOut } from "../api.gen";
import { loadReplay } from "./loadReplay";
import type { Replay } from "./replayFile";

// The timeline's code (xterm included) loads when the host first opens it, not with the page.
const ReplayView = lazy(() => import("./ReplayView").then((module) => ({ default: module.ReplayView })));

/** The host's way back: the room's recording until now, over the live room, which goes on under it
 * and whose new work the timeline takes in while open. Esc (or "Back to now") closes it; a restore
 * is a new change by the host that every page receives. */
function hostAuth(): Record<string, string> {
  return { Authorization: `Bearer ${fragmentParams().get("token") ?? ""}` };
}

export function HostTimeline() {
  const [replay, setReplay] = useState<Replay | string | null>(null);
  const [open, setOpen] = useState(false);
  const opener = useRef<HTMLButtonElement>(null);
  const show = () => {
    setOpen(true);
    setReplay(null);
    void loadReplay("/api/replay", { headers: hostAuth() }).then(setReplay);
  };
  const close = () => {
    setOpen(false);
    opener.current?.focus();
  };
  useEffect(() => {
    if (!open) return;
    const onKey = (event: KeyboardEvent) => {
      if (event.key === "Escape") close();
    };
    document.addEventListener("keydown", onKey);
    return () => document.removeEventListener("keydown", onKey);
  });
  // What the room did since the timeline's end: a replay of only that, so it grows while open.
  const follow = useCallback((after: number) => loadReplay(`/api/replay?after=${after}`, { headers: hostAuth() }), []);
  const restore = async (at: number, item: string | null): Promise<string> => {
    const response = await fetch("/api/board/restore", {
      method: "POST",
      headers: { ...hostAuth(), "Content-Type": "application/json" },
      body: JSON.stringify(item ? { at, item } : { at }),
    });
    const body = (await response.json()) as RestoreOut & { message?: string };
    if (!response.ok) return body.message ?? "The board could not be restored.";
    if (!body.changed) return "The board was already as it was then.";
    return item ? "The item is back as it was then, on every page." : "The board is back as it was then, on every page.";
  };
  return (
    <>
      <button type="button" ref={opener} onClick={show} data-testid="open-timeline">
        Timeline
      </button>
      {/* Over the whole page, not inside the room's panel (a drawer or a phone's sheet) that opened it. */}
      {open &&
        createPortal(
          <div className="replay-overlay" role="dialog" aria-modal="true" aria-label="The room's timeline">
            {replay === null && <p className="loading">Reading the recording…</p>}
            {typeof replay === "string" && (
              <p className="notice">
                {replay} <button type="button" onClick={close}>Close</button>
              </p>
            )}
            {replay && typeof replay !== "string" && (
              <Suspense fallback={<p className="loading">Opening the timeline…</p>}>
                <ReplayView replay={replay} onNow={close} restore={restore} follow={follow} />
              </Suspense>
            )}
          </div>,
        document.body,
      )}
    </>
  );
}
