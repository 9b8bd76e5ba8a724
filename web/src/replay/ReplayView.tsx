import { useEffect, useMemo, useState } from "react";
import type { Mark } from "../protocol.gen";
import { ReplayBoard } from "./ReplayBoard";
import { ReplayTerminal } from "./ReplayTerminal";
import { ReplayThread } from "./ReplayThread";
import type { Replay } from "./replayFile";
import { Timeline } from "./timeline";
import "./replay.css";

const SPEEDS = [1, 4, 16] as const;
const TICK_MS = 100;
const STEP_S = 5;
const PALETTE = ["#1864ab", "#c2255c", "#2b8a3e", "#e67700", "#5f3dc4", "#0b7285"];
const KIND_WORDS: Record<Mark["kind"], string> = {
  prompt: "prompt",
  approval: "approval",
  join: "person",
  leave: "person",
  board: "board change",
};

function colourOf(who: string, people: Record<string, { color?: string }>): string {
  const own = people[who]?.color;
  if (own) return own;
  let hash = 0;
  for (const c of who) hash = (hash * 31 + c.charCodeAt(0)) >>> 0;
  return PALETTE[hash % PALETTE.length];
}

function clock(at: number): string {
  return new Date(at * 1000).toLocaleTimeString([], { hour: "2-digit", minute: "2-digit", second: "2-digit" });
}

export interface Restore {
  (at: number, item: string | null): Promise<string>;
}

/**
 * The timeline of a replay: a scrubber with the marks in each author's colour, play at 1×, 4× or
 * 16×, jumps to the next prompt, approval or person, and the room as it was at the moment. Keys:
 * Space plays or pauses, ←/→ step five seconds, N jumps to the next mark, Esc (`onNow`) returns to now.
 */
export function ReplayView({ replay, onNow, restore }: { replay: Replay; onNow?: () => void; restore?: Restore }) {
  const timeline = useMemo(() => new Timeline(replay.room, replay.casts), [replay]);
  const [at, setAt] = useState(timeline.end);
  const [speed, setSpeed] = useState<(typeof SPEEDS)[number]>(1);
  const [playing, setPlaying] = useState(false);
  const [picked, setPicked] = useState<string | null>(null);
  const [said, setSaid] = useState("");
  const people = replay.room.people;

  useEffect(() => {
    if (!playing) return;
    const timer = setInterval(() => {
      setAt((now) => {
        const next = Math.min(timeline.end, now + (TICK_MS / 1000) * speed);
        if (next >= timeline.end) setPlaying(false);
        return next;
      });
    }, TICK_MS);
    return () => clearInterval(timer);
  }, [playing, speed, timeline]);

  const jump = (wanted: (mark: Mark) => boolean) => {
    const mark = timeline.next(at, wanted);
    if (mark) {
      setAt(mark.at);
      setSaid(mark.text);
    } else setSaid("Nothing more of that kind after this moment.");
  };

  const onKey = (event: React.KeyboardEvent) => {
    if (event.target instanceof HTMLInputElement && event.target.type === "range" && event.key.startsWith("Arrow")) return;
    if (event.key === "Escape") {
      event.preventDefault();
      if (onNow) onNow();
      else setAt(timeline.end);
    } else if (event.key === " " && !(event.target instanceof HTMLButtonElement)) {
      event.preventDefault();
      setPlaying((p) => !p);
    } else if (event.key === "ArrowRight") setAt((a) => Math.min(timeline.end, a + STEP_S));
    else if (event.key === "ArrowLeft") setAt((a) => Math.max(timeline.start, a - STEP_S));
    else if (event.key.toLowerCase() === "n" && !event.ctrlKey && !event.metaKey) jump(() => true);
  };

  const board = useMemo(() => timeline.boardAt(at), [timeline, at]);
  const span = Math.max(1e-6, timeline.end - timeline.start);
  const doRestore = async (item: string | null) => {
    if (!restore) return;
    try {
      setSaid(await restore(at, item));
    } catch (error) {
      setSaid(error instanceof Error ? error.message : String(error));
    }
  };

  return (
    <section className="replay" aria-label="The room's timeline" onKeyDown={onKey} data-testid="replay">
      <header className="replay-bar">
        <button type="button" onClick={() => setPlaying((p) => !p)} aria-pressed={playing}>
          {playing ? "Pause" : "Play"}
        </button>
        <fieldset className="replay-speeds">
          <legend className="visually-hidden">Speed</legend>
          {SPEEDS.map((s) => (
            <label key={s}>
              <input type="radio" name="replay-speed" checked={speed === s} onChange={() => setSpeed(s)} />
              {s}×
            </label>
          ))}
        </fieldset>
        <button type="button" onClick={() => jump((m) => m.kind === "prompt")}>Next prompt</button>
        <button type="button" onClick={() => jump((m) => m.kind === "approval")}>Next approval</button>
        <button type="button" onClick={() => jump((m) => m.kind === "join" || m.kind === "leave")}>Next person</button>
        <button type="button" onClick={() => (onNow ? onNow() : setAt(timeline.end))}>
          {onNow ? "Back to now (Esc)" : "To the end (Esc)"}
        </button>
        <output className="replay-clock" data-testid="replay-clock" aria-live="polite">
          {clock(at)}
        </output>
      </header>
      <div className="replay-scrub">
        <input
          type="range"
          min={timeline.start}
          max={timeline.end}
          step={0.1}
          value={at}
          onChange={(event) => setAt(Number(event.target.value))}
          aria-label="Moment"
          aria-valuetext={clock(at)}
          data-testid="replay-scrubber"
        />
        <ol className="replay-marks" aria-label="Marks">
          {timeline.marks.map((mark, index) => (
            <li key={index} style={{ left: `${((mark.at - timeline.start) / span) * 100}%` }}>
              <button
                type="button"
                className="replay-mark"
                style={{ background: colourOf(mark.who, people) }}
                title={`${clock(mark.at)} ${mark.text}`}
                aria-label={`${KIND_WORDS[mark.kind]} at ${clock(mark.at)}: ${mark.text}`}
                onClick={() => {
                  setAt(mark.at);
                  setSaid(mark.text);
                }}
              />
            </li>
          ))}
        </ol>
      </div>
      <p className="replay-said" aria-live="polite" data-testid="replay-said">
        {said}
      </p>
      <div className="replay-panes">
        <section className="replay-pane" aria-label="Board">
          <h2>Board</h2>
          <ReplayBoard doc={board} picked={picked} onPick={restore ? setPicked : undefined} />
          {restore && (
            <p className="replay-actions">
              <button type="button" onClick={() => void doRestore(null)}>
                Restore the board as it was then
              </button>
              <button type="button" disabled={!picked} onClick={() => void doRestore(picked)}>
                Restore the picked item
              </button>
            </p>
          )}
        </section>
        <section className="replay-pane" aria-label="Threads">
          <h2>Threads</h2>
          {replay.room.sessions.map((session) => (
            <ReplayThread key={session.id} title={session.title} thread={timeline.threadAt(session.id, at)} />
          ))}
          {replay.room.sessions.length === 0 && <p className="replay-muted">No agent session.</p>}
        </section>
        <section className="replay-pane" aria-label="Terminals">
          <h2>Terminals</h2>
          {replay.room.terminals.map((terminal) => (
            <ReplayTerminal key={terminal.id} name={terminal.name} shown={timeline.terminalAt(terminal.id, at)} />
          ))}
          {replay.room.terminals.length === 0 && <p className="replay-muted">No terminal.</p>}
        </section>
      </div>
    </section>
  );
}
