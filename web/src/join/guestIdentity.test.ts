import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { b64url, b64urlDecode } from "../base64";
import { fallback } from "../cryptoFallback";
import { cryptoPrimitives } from "../cryptoPrimitives";
import { guestIdentity, signJoin } from "./guestIdentity";
import { concat } from "./signalCrypto";

/** Guests' joins Python signed and its hub proves (tests/vectors/signal_crypto/generate.py). */
const JOINS = (
  JSON.parse(
    readFileSync(join(dirname(fileURLToPath(import.meta.url)), "../../../tests/vectors/signal_crypto/vectors.json"), "utf-8"),
  ) as { joins: { name: string; secret: string; key: string; challenge: string; guestFingerprint: string; hubFingerprint: string; signature: string }[] }
).joins;
const enc = new TextEncoder();
const GUEST = "AB:".repeat(31) + "AB";
const HUB = "cd:".repeat(31) + "cd";

describe("this browser's guest identity", () => {
  it("is one key for the page's life, named by its digest, whose join the hub's check takes", async () => {
    const identity = await guestIdentity();
    expect(await guestIdentity()).toBe(identity);
    const point = b64urlDecode(identity.publicKey);
    const primitives = await cryptoPrimitives();
    expect(identity.guestId).toBe(b64url((await primitives.sha256(point)).slice(0, 16)));
    const challenge = crypto.getRandomValues(new Uint8Array(32));
    const signature = b64urlDecode(await signJoin(identity, challenge, GUEST, HUB));
    const nl = enc.encode("\n");
    const message = concat(enc.encode("canvas/guest-join/v1"), nl, challenge, nl, enc.encode(GUEST), nl, enc.encode(HUB.toUpperCase()));
    expect(await primitives.verifyP256(point, message, signature)).toBe(true);
  });

  it.each(JOINS.map((v) => [v.name, v] as const))("%s: the fallback makes the very join Python's hub proves", async (_name, vector) => {
    const key = await fallback.loadIdentity(b64urlDecode(vector.secret));
    expect(key).not.toBeNull();
    const identity = { key: key!, publicKey: b64url(key!.publicKey), guestId: "" };
    expect(identity.publicKey).toBe(vector.key);
    expect(await signJoin(identity, b64urlDecode(vector.challenge), vector.guestFingerprint, vector.hubFingerprint)).toBe(vector.signature);
  });
});
