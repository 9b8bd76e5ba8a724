/**
 * The board's state in parts: the welcome holds the first, `board-part`s bring the rest, each
 * answer asked for with `board-more` once the last one came. A welcome that comes again with the
 * same version continues from what was already put together (the same logic as the Python
 * client's `board_parts.py`).
 */
import type { BoardMore, BoardPart, Welcome } from "../protocol.gen";
import { fromBase64 } from "./model";

export class BoardParts {
  version = -1;
  size = 0;
  private chunks: Uint8Array[] = [];
  private length = 0;

  get complete(): boolean {
    return this.version >= 0 && this.length >= this.size;
  }

  /** Starts (or continues) from a welcome; the `board-more` to send, if any. */
  welcome(frame: Welcome): BoardMore | null {
    const first = fromBase64(frame.board);
    const version = frame.boardVersion ?? 0;
    const size = frame.boardSize || first.length;
    if (!(version === this.version && size === this.size && this.length >= first.length)) {
      this.version = version;
      this.size = size;
      this.chunks = [first];
      this.length = first.length;
    }
    return this.next();
  }

  /** Takes a part; the `board-more` to send, if any. */
  part(frame: BoardPart): BoardMore | null {
    if (frame.version !== this.version) {
      this.version = frame.version;
      this.size = frame.size;
      this.chunks = [];
      this.length = 0;
    }
    if (frame.offset !== this.length) return null;
    const data = fromBase64(frame.data);
    this.chunks.push(data);
    this.length += data.length;
    return frame.ask ? this.next() : null;
  }

  /** The whole state once complete (then the parts are let go). */
  take(): Uint8Array {
    const whole = new Uint8Array(this.length);
    let at = 0;
    for (const chunk of this.chunks) {
      whole.set(chunk, at);
      at += chunk.length;
    }
    this.chunks = [whole];
    return whole;
  }

  private next(): BoardMore | null {
    return this.complete ? null : { t: "board-more", version: this.version, offset: this.length };
  }
}
