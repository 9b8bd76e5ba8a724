import { useCallback, useEffect, useMemo, useRef, useState } from "react";
import type { Mark } from "../protocol.gen";
import { ReplayBoard, type FrameSource, type Held } from "./ReplayBoard";
import { ReplayTerminal } from "./ReplayTerminal";
import { ReplayThread } from "./ReplayThread";
import type { Replay } from "./replayFile";
import { threadText } from "./threadWords";
import { Timeline } from "./timeline";
import "./replay.css";

const SPEEDS = [1, 4, 16] as const;
const TICK_MS = 100;
const STEP_S = 5;
const FOLLOW_MS = 2000;
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

/** What the room did after `after`, as a replay of only that (or why it could not be read). */
export interface Follow {
  (after: number): Promise<Replay | string>;
}

const JUMPS: { key: string; words: string; wanted: (mark: Mark) => boolean }[] = [
  { key: "p", words: "Next prompt", wanted: (m) => m.kind === "prompt" },
  { key: "a", words: "Next approval", wanted: (m) => m.kind === "approval" },
  { key: "j", words: "Next person", wanted: (m) => m.kind === "join" || m.kind === "leave" },
];

/**
 * The timeline of a replay: a scrubber with the marks in each author's colour, play at 1×, 4× or
 * 16×, jumps to the next prompt, approval or person, and the room as it was at the moment. Keys:
 * Space plays or pauses, ←/→ step five seconds (on the scrubber, Home, End, the arrows and Page
 * keys move it), N jumps to the next mark, P, A and J to the next prompt, approval or person, Esc
 * (`onNow`) returns to now. With `follow`, the timeline grows with what the live room does while
 * it is open; at its end, the moment stays the newest.
 */
export function ReplayView({
  replay,
  onNow,
  restore,
  follow,
}: {
  replay: Replay;
  onNow?: () => void;
  restore?: Restore;
  follow?: Follow;
}) {
  const timeline = useMemo(() => new Timeline(replay.room, replay.casts), [replay]);
  const [at, setAt] = useState(timeline.end);
  const [grown, setGrown] = useState(0);
  const [speed, setSpeed] = useState<(typeof SPEEDS)[number]>(1);
  const [playing, setPlaying] = useState(false);
  const [picked, setPicked] = useState<string | null>(null);
  const [said, setSaid] = useState("");
  const [screens, setScreens] = useState<Record<string, string>>({});
  const scrubber = useRef<HTMLInputElement>(null);
  const people = timeline.people;

  useEffect(() => scrubber.current?.focus(), []);

  useEffect(() => {
    if (!follow) return;
    let timer: ReturnType<typeof setTimeout>;
    let stopped = false;
    const poll = async () => {
      const end = timeline.end;
      const more = await follow(end);
      if (stopped) return;
      if (typeof more !== "string" && more.room.end > end) {
        timeline.extend(more);
        setAt((now) => (now >= end ? timeline.end : now));
        setGrown((n) => n + 1);
      }
      timer = setTimeout(() => void poll(), FOLLOW_MS);
    };
    timer = setTimeout(() => void poll(), FOLLOW_MS);
    return () => {
      stopped = true;
      clearTimeout(timer);
    };
  }, [follow, timeline]);

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
    const onScrubber = event.target === scrubber.current;
    if (onScrubber && (event.key === "Home" || event.key === "End")) {
      // The scrubber's own keys stop at its last step, which can fall short of the end: these reach it.
      event.preventDefault();
      setAt(event.key === "Home" ? timeline.start : timeline.end);
      return;
    }
    if (onScrubber && (event.key.startsWith("Arrow") || event.key.startsWith("Page"))) return;
    if (event.key === "Escape") {
      event.preventDefault();
      if (onNow) onNow();
      else setAt(timeline.end);
    } else if (event.key === " " && !(event.target instanceof HTMLButtonElement)) {
      event.preventDefault();
      setPlaying((p) => !p);
    } else if (event.key === "ArrowRight") setAt((a) => Math.min(timeline.end, a + STEP_S));
    else if (event.key === "ArrowLeft") setAt((a) => Math.max(timeline.start, a - STEP_S));
    else if (!event.ctrlKey && !event.metaKey && !event.altKey) {
      const key = event.key.toLowerCase();
      if (key === "n") jump(() => true);
      const chosen = JUMPS.find((j) => j.key === key);
      if (chosen) jump(chosen.wanted);
    }
  };

  // `grown` is the timeline's growth: the moment's board is read again when the timeline has more.
  // eslint-disable-next-line react-hooks/exhaustive-deps
  const board = useMemo(() => timeline.boardAt(at), [timeline, at, grown]);
  const onScreen = useCallback(
    (id: string, text: string) => setScreens((now) => (now[id] === text ? now : { ...now, [id]: text })),
    [],
  );
  const frames = useMemo<FrameSource>(() => {
    const sessions = new Map(timeline.sessions.map((s) => [s.id, s.title]));
    const terminals = new Map(timeline.terminals.map((t) => [t.id, t.name]));
    return {
      name: (held: Held) => (held.type === "agent" ? sessions.get(held.ref) : held.type === "terminal" ? terminals.get(held.ref) : held.ref) ?? null,
      shown: (held: Held) =>
        held.type === "agent" ? threadText(timeline.threadAt(held.ref, at)) : held.type === "terminal" ? (screens[held.ref] ?? "") : "",
    };
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [timeline, at, screens, grown]);
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
        {JUMPS.map((j) => (
          <button key={j.key} type="button" onClick={() => jump(j.wanted)} aria-keyshortcuts={j.key.toUpperCase()}>
            {j.words} ({j.key.toUpperCase()})
          </button>
        ))}
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
          ref={scrubber}
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
          <ReplayBoard doc={board} frames={frames} picked={picked} onPick={restore ? setPicked : undefined} />
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
          {timeline.sessions.map((session) => (
            <ReplayThread key={session.id} title={session.title} thread={timeline.threadAt(session.id, at)} />
          ))}
          {timeline.sessions.length === 0 && <p className="replay-muted">No agent session.</p>}
        </section>
        <section className="replay-pane" aria-label="Terminals">
          <h2>Terminals</h2>
          {timeline.terminals.map((terminal) => (
            <ReplayTerminal
              key={terminal.id}
              name={terminal.name}
              shown={timeline.terminalAt(terminal.id, at)}
              onScreen={(text) => onScreen(terminal.id, text)}
            />
          ))}
          {timeline.terminals.length === 0 && <p className="replay-muted">No terminal.</p>}
        </section>
      </div>
    </section>
  );
}
