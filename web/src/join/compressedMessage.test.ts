import { describe, expect, it } from "vitest";
import { InOrder, inflatedMessage } from "./compressedMessage";

const hex = (text: string) => Uint8Array.from(text.match(/../g)!, (byte) => parseInt(byte, 16)).buffer;

async function compressed(seq: number, frame: string): Promise<ArrayBuffer> {
  const deflated = await new Response(new Blob([frame]).stream().pipeThrough(new CompressionStream("deflate"))).arrayBuffer();
  const message = new Uint8Array(8 + deflated.byteLength);
  new DataView(message.buffer).setBigUint64(0, BigInt(seq));
  message.set(new Uint8Array(deflated), 8);
  return message.buffer;
}

describe("inflatedMessage", () => {
  it("reads what the hub's Python deflates", async () => {
    // canvasrelay.protocol.framing.compressed_message(7, zlib.compress(b'{"t":"ping"}', 1))
    expect(await inflatedMessage(hex("00000000000000077801ab562a51b2522ac8cc4b57aa0500181903dd"))).toBe('[7,{"t":"ping"}]');
  });

  it("refuses a message that would inflate above its limit", async () => {
    const bomb = await compressed(1, `"${"a".repeat(2_000_000)}"`);
    expect(bomb.byteLength).toBeLessThan(10_000);
    await expect(inflatedMessage(bomb, 1_000_000)).rejects.toThrow("above 1000000 bytes");
  });
});

describe("InOrder", () => {
  it("hands on text after a compressed message before it, in the order they came", async () => {
    const got: string[] = [];
    const inOrder = new InOrder((message) => got.push(message));
    inOrder.receive("[1,{}]");
    inOrder.receive(await compressed(2, `{"t":"term-data","data":"${"x".repeat(50_000)}"}`));
    inOrder.receive("[3,{}]");
    expect(got).toEqual(["[1,{}]"]);
    await expect.poll(() => got.length).toBe(3);
    expect(got[1].startsWith('[2,{"t":"term-data"')).toBe(true);
    expect(got[2]).toBe("[3,{}]");
  });
});
