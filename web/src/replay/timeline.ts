/**
 * The room at a moment of a replay, as the Python core's timeline computes it: the board with its
 * updates applied up to then (from a kept state every KEYFRAME_EVERY changes), each thread folded
 * as far as it had gone, each terminal's output since its screen last started over, bounded as
 * the live ring is, to feed a fresh xterm.
 */
import * as Y from "yjs";
import { fromBase64 } from "../base64";
import { fold } from "../agents/sessionLog";
import type { Mark, ReplayRoom, ReplaySession, ReplayTerminal, Thread } from "../protocol.gen";
import type { Cast, Replay } from "./replayFile";

const KEYFRAME_EVERY = 250;
const RING_BYTES = 2 * 1024 * 1024;
const RESET = "\x1bc";

export interface TerminalAt {
  cols: number;
  rows: number;
  output: string;
  exitCode: number | null;
}

/** The index of the last of `times` at or before `at`, plus one. */
export function countUpTo(times: readonly number[], at: number): number {
  let low = 0;
  let high = times.length;
  while (low < high) {
    const mid = (low + high) >> 1;
    if (times[mid] <= at) low = mid + 1;
    else high = mid;
  }
  return low;
}

class Track {
  readonly times: number[] = [];
  private readonly texts: string[] = [];
  private readonly starts: number[] = [];
  private readonly sizes: [number, number][] = [];
  private readonly exits: (number | null)[] = [];
  private start = 0;
  private size: [number, number];
  private code: number | null = null;

  constructor(cast: Cast) {
    this.size = [cast.cols, cast.rows];
    this.add(cast.events);
  }

  /** More of the terminal's output, after what the track has. */
  add(events: Cast["events"]): void {
    for (const event of events) {
      if (event.code === "o" && event.data.startsWith(RESET)) {
        this.start = this.times.length;
        this.code = null;
      } else if (event.code === "r") {
        const [cols, rows] = event.data.split("x").map(Number);
        if (cols > 0 && rows > 0) this.size = [cols, rows];
      } else if (event.code === "x") this.code = Number(event.data);
      this.times.push(event.at);
      this.texts.push(event.code === "o" ? event.data : "");
      this.starts.push(this.start);
      this.sizes.push(this.size);
      this.exits.push(this.code);
    }
  }

  at(moment: number): TerminalAt | null {
    const index = countUpTo(this.times, moment) - 1;
    if (index < 0) return null;
    const pieces: string[] = [];
    let length = 0;
    for (let i = index; i >= this.starts[index] && length < RING_BYTES; i--) {
      pieces.push(this.texts[i]);
      length += this.texts[i].length;
    }
    let output = pieces.reverse().join("");
    if (output.length > RING_BYTES) {
      const cut = output.indexOf("\n", output.length - RING_BYTES);
      output = output.slice(cut >= 0 ? cut + 1 : output.length - RING_BYTES);
    }
    const [cols, rows] = this.sizes[index];
    return { cols, rows, output, exitCode: this.exits[index] };
  }
}

/**
 * The room's timeline. The host's grows while it is open: `extend` adds what the room did after
 * `end` (a replay of only that), so the live room's new marks show without reading it all again.
 */
export class Timeline {
  readonly start: number;
  end: number;
  readonly marks: Mark[];
  readonly sessions: ReplaySession[];
  readonly terminals: ReplayTerminal[];
  readonly people: ReplayRoom["people"];
  private readonly boardTimes: number[] = [];
  private readonly updates: Uint8Array[] = [];
  /** The board before each KEYFRAME_EVERY-th update: the first is the board at the start. */
  private readonly keyframes: Uint8Array[] = [];
  private readonly tip = new Y.Doc();
  private readonly tracks = new Map<string, Track>();

  constructor(room: ReplayRoom, casts: Map<string, Cast>) {
    this.start = room.start;
    this.end = room.end;
    this.marks = [...room.marks];
    this.sessions = room.sessions.map((session) => ({ ...session, events: [...session.events] }));
    this.terminals = [...room.terminals];
    this.people = { ...room.people };
    Y.applyUpdate(this.tip, fromBase64(room.boardBase));
    this.keyframes.push(Y.encodeStateAsUpdate(this.tip));
    this.addBoard(room.board);
    for (const [id, cast] of casts) this.tracks.set(id, new Track(cast));
  }

  private addBoard(changes: ReplayRoom["board"]): void {
    for (const change of changes) {
      if (this.updates.length > 0 && this.updates.length % KEYFRAME_EVERY === 0) this.keyframes.push(Y.encodeStateAsUpdate(this.tip));
      const update = fromBase64(change.update);
      Y.applyUpdate(this.tip, update);
      this.updates.push(update);
      this.boardTimes.push(change.at);
    }
  }

  /** What the room did after `end`: its board changes, events, output and marks follow what is here. */
  extend(after: Replay): void {
    const { room, casts } = after;
    if (room.end <= this.end) return;
    this.addBoard(room.board.filter((change) => change.at > this.end));
    for (const session of room.sessions) {
      const known = this.sessions.find((s) => s.id === session.id);
      if (known) known.events.push(...session.events.filter((timed) => timed.at > this.end));
      else this.sessions.push({ ...session, events: [...session.events] });
    }
    for (const terminal of room.terminals) {
      const cast = casts.get(terminal.id);
      const track = this.tracks.get(terminal.id);
      if (!cast) continue;
      if (track) track.add(cast.events.filter((event) => event.at > this.end));
      else {
        this.tracks.set(terminal.id, new Track(cast));
        this.terminals.push(terminal);
      }
      const named = this.terminals.findIndex((t) => t.id === terminal.id);
      this.terminals[named] = { ...this.terminals[named], name: terminal.name };
    }
    Object.assign(this.people, room.people);
    this.marks.push(...room.marks.filter((mark) => mark.at > this.end));
    this.end = room.end;
  }

  /** The board as it was at `moment`: a document of its own, never the live one. */
  boardAt(moment: number): Y.Doc {
    const count = countUpTo(this.boardTimes, moment);
    const key = Math.min(Math.floor(count / KEYFRAME_EVERY), this.keyframes.length - 1);
    const doc = new Y.Doc();
    Y.applyUpdate(doc, this.keyframes[key]);
    for (const update of this.updates.slice(key * KEYFRAME_EVERY, count)) Y.applyUpdate(doc, update);
    return doc;
  }

  threadAt(sessionId: string, moment: number): Thread | null {
    const session = this.sessions.find((s) => s.id === sessionId);
    if (!session) return null;
    const upTo = countUpTo(
      session.events.map((e) => e.at),
      moment,
    );
    return fold([...session.base, ...session.events.slice(0, upTo).map((e) => e.event)]);
  }

  terminalAt(terminalId: string, moment: number): TerminalAt | null {
    return this.tracks.get(terminalId)?.at(moment) ?? null;
  }

  /** The next mark after `moment` that `wanted` picks, if any. */
  next(moment: number, wanted: (mark: Mark) => boolean): Mark | null {
    return this.marks.find((mark) => mark.at > moment + 1e-3 && wanted(mark)) ?? null;
  }
}
