/** A hub message sent compressed (canvasrelay/protocol/framing.py): its first frame's seq, 8 bytes
 * big-endian, then its frames, comma-separated and deflated (zlib). Returned as the text message it stands
 * for, `[seq,frame,frame…]`. */

const SEQ_BYTES = 8;
/** What one compressed message may inflate to, as a chunked message may reassemble to: a small message
 * could otherwise stand for gigabytes. */
export const MAX_INFLATED_BYTES = 64 * 1024 * 1024;

export async function inflatedMessage(message: ArrayBuffer, limit = MAX_INFLATED_BYTES): Promise<string> {
  if (message.byteLength <= SEQ_BYTES) throw new Error("a compressed message without its frames");
  const seq = Number(new DataView(message).getBigUint64(0));
  const reader = new Blob([message.slice(SEQ_BYTES)]).stream().pipeThrough(new DecompressionStream("deflate")).getReader();
  const decoder = new TextDecoder("utf-8", { fatal: true });
  const parts: string[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > limit) {
      await reader.cancel();
      throw new Error(`a compressed message above ${limit} bytes`);
    }
    parts.push(decoder.decode(value, { stream: true }));
  }
  parts.push(decoder.decode());
  return `[${seq},${parts.join("")}]`;
}

/** Messages handed on in the order they came, though a compressed one takes a while to inflate. */
export class InOrder {
  private last: Promise<void> | null = null;

  constructor(private readonly deliver: (message: string) => void) {}

  receive(message: unknown): void {
    if (typeof message === "string" && this.last === null) {
      this.deliver(message);
      return;
    }
    // Inflating starts at once; delivering waits for everything before it.
    const text = message instanceof ArrayBuffer ? inflatedMessage(message) : Promise.resolve(String(message));
    const turn = (this.last ?? Promise.resolve()).then(() => text).then(this.deliver, () => undefined);
    this.last = turn;
    void turn.then(() => {
      if (this.last === turn) this.last = null;
    });
  }
}
