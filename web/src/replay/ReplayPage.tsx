import { lazy, Suspense, useEffect, useState } from "react";
import { loadReplay } from "./loadReplay";
import type { Replay } from "./replayFile";

// One chunk of its own, which the host's timeline loads too: never with either page's first load.
const ReplayView = lazy(() => import("./ReplayView").then((module) => ({ default: module.ReplayView })));

/** `canvas replay FILE`: the file this server holds, read-only, offline. */
export default function ReplayPage() {
  const [replay, setReplay] = useState<Replay | string | null>(null);
  useEffect(() => {
    void loadReplay("/replay-file").then(setReplay);
  }, []);
  if (replay === null) return <p className="loading">Opening the replay…</p>;
  if (typeof replay === "string") {
    return (
      <main className="notice">
        <h1>This replay cannot be opened</h1>
        <p data-testid="replay-refused">{replay}</p>
      </main>
    );
  }
  return (
    <main className="replay-page">
      <h1 className="visually-hidden">Replay of {replay.room.project}</h1>
      <Suspense fallback={<p className="loading">Opening the timeline…</p>}>
        <ReplayView replay={replay} />
      </Suspense>
    </main>
  );
}
