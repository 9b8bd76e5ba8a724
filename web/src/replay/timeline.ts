/**
 * The room at a moment of a replay, as the Python core's timeline computes it: the board with its
 * updates applied up to then (from a kept state every KEYFRAME_EVERY changes), each thread folded
 * as far as it had gone, each terminal's output since its screen last started over, bounded as
 * the live ring is, to feed a fresh xterm.
 */
import * as Y from "yjs";
import { fromBase64 } from "../base64";
import { fold } from "../agents/sessionLog";
import type { Mark, ReplayRoom, Thread } from "../protocol.gen";
import type { Cast } from "./replayFile";

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

  constructor(cast: Cast) {
    let start = 0;
    let size: [number, number] = [cast.cols, cast.rows];
    let code: number | null = null;
    cast.events.forEach((event, index) => {
      if (event.code === "o" && event.data.startsWith(RESET)) {
        start = index;
        code = null;
      } else if (event.code === "r") {
        const [cols, rows] = event.data.split("x").map(Number);
        if (cols > 0 && rows > 0) size = [cols, rows];
      } else if (event.code === "x") code = Number(event.data);
      this.times.push(event.at);
      this.texts.push(event.code === "o" ? event.data : "");
      this.starts.push(start);
      this.sizes.push(size);
      this.exits.push(code);
    });
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

export class Timeline {
  readonly start: number;
  readonly end: number;
  readonly marks: Mark[];
  private readonly boardTimes: number[];
  private readonly updates: Uint8Array[];
  private readonly keyframes: Uint8Array[] = [];
  private readonly tracks = new Map<string, Track>();

  constructor(
    readonly room: ReplayRoom,
    casts: Map<string, Cast>,
  ) {
    this.start = room.start;
    this.end = room.end;
    this.marks = room.marks;
    this.boardTimes = room.board.map((change) => change.at);
    this.updates = room.board.map((change) => fromBase64(change.update));
    const doc = new Y.Doc();
    Y.applyUpdate(doc, fromBase64(room.boardBase));
    this.updates.forEach((update, index) => {
      if (index % KEYFRAME_EVERY === 0) this.keyframes.push(Y.encodeStateAsUpdate(doc));
      Y.applyUpdate(doc, update);
    });
    if (this.updates.length === 0) this.keyframes.push(Y.encodeStateAsUpdate(doc));
    for (const [id, cast] of casts) this.tracks.set(id, new Track(cast));
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
    const session = this.room.sessions.find((s) => s.id === sessionId);
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
