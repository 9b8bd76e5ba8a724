/** The browser's Nostr events against canvas's Python side, through the vectors it signed (coincurve). */
import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { etc } from "@noble/secp256k1";
import { describe, expect, it } from "vitest";
import { CONTENT_MAX, EventError, SIGNAL_KIND, TAGS_MAX, checkEvent, freshKey, keyOf, signEvent, type NostrEvent } from "./nostrEvent";

const VECTORS = join(dirname(fileURLToPath(import.meta.url)), "../../../tests/vectors/nostr/events.json");

interface Signed {
  name: string;
  secret: string;
  aux: string;
  event: NostrEvent;
}

interface Refused {
  name: string;
  event: unknown;
}

const vectors = JSON.parse(readFileSync(VECTORS, "utf-8")) as { signed: Signed[]; refused: Refused[] };

async function refusal(event: unknown): Promise<string> {
  try {
    await checkEvent(event);
  } catch (error) {
    expect(error).toBeInstanceOf(EventError);
    return (error as Error).message;
  }
  throw new Error("the event passed");
}

describe("events signed by canvas's Python side", () => {
  it("are there to check", () => {
    expect(vectors.signed.length).toBeGreaterThanOrEqual(5);
    expect(vectors.refused.length).toBeGreaterThanOrEqual(10);
  });

  it.each(vectors.signed.map((v) => [v.name, v] as const))("%s: verifies here", async (_name, vector) => {
    expect(await checkEvent(vector.event)).toEqual(vector.event);
  });

  it.each(vectors.signed.map((v) => [v.name, v] as const))("%s: signed here, byte for byte the same", async (_name, vector) => {
    const key = keyOf(etc.hexToBytes(vector.secret));
    expect(key.pubkey).toBe(vector.event.pubkey);
    const { kind, tags, content, created_at: createdAt } = vector.event;
    // BIP-340 with the same auxiliary randomness is deterministic: the same signature is one Python verifies.
    expect(await signEvent(key, kind, tags, content, createdAt, etc.hexToBytes(vector.aux))).toEqual(vector.event);
  });

  it.each(vectors.refused.map((v) => [v.name, v] as const))("refuses %s", async (_name, vector) => {
    expect(await refusal(vector.event)).toBeTruthy();
  });
});

describe("an event signed here", () => {
  it("verifies, with a key made fresh each time", async () => {
    const key = freshKey();
    expect(freshKey().pubkey).not.toBe(key.pubkey);
    const event = await signEvent(key, SIGNAL_KIND, [["x", "topic"]], "sealed envelope");
    expect(event.pubkey).toMatch(/^[0-9a-f]{64}$/);
    expect(event.sig).toMatch(/^[0-9a-f]{128}$/);
    expect(await checkEvent(JSON.parse(JSON.stringify(event)))).toEqual(event);
  });

  it("is refused once tampered with, saying why", async () => {
    const event = await signEvent(freshKey(), SIGNAL_KIND, [["x", "topic"]], "sealed envelope");
    const other = await signEvent(freshKey(), SIGNAL_KIND, [["x", "topic"]], "sealed envelope");
    const flipped = (event.sig[0] === "0" ? "1" : "0") + event.sig.slice(1);
    expect(await refusal({ ...event, content: "changed" })).toBe("the id is not the hash of the event");
    expect(await refusal({ ...event, id: other.id })).toBe("the id is not the hash of the event");
    expect(await refusal({ ...event, sig: flipped })).toMatch(/signature/);
    expect(await refusal({ ...event, sig: other.sig })).toBe("the signature does not match");
    expect(await refusal({ ...event, content: "x".repeat(CONTENT_MAX + 1) })).toMatch(/content must be text/);
    expect(await refusal({ ...event, tags: Array(TAGS_MAX + 1).fill(["x", "t"]) })).toMatch(/tags must be a list/);
    expect(await refusal({ ...event, tags: [["x", "t".repeat(257)]] })).toMatch(/short strings/);
    expect(await refusal({ ...event, created_at: 2 ** 60 })).toMatch(/integers/);
    expect(await refusal(null)).toBe("an event must be an object");
  });
});
