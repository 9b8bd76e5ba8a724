import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it, vi } from "vitest";
import { b64urlDecode } from "../base64";
import { openEnvelope, refuses, seal, signalKey, topic, turnProof, verifyProof } from "./signalCrypto";

/** What canvas's Python side derives, seals and signs (tests/vectors/signal_crypto/generate.py). */
const VECTORS = JSON.parse(
  readFileSync(join(dirname(fileURLToPath(import.meta.url)), "../../../tests/vectors/signal_crypto/vectors.json"), "utf-8"),
) as {
  roomKey: string;
  turnProof: string;
  topic: string;
  sealedAt: number;
  envelopes: { name: string; message: Record<string, unknown>; envelope: string }[];
  proofs: { name: string; hostKey: string; nonce: string; guestFingerprint: string; hubFingerprint: string; signature: string }[];
};

afterEach(() => {
  vi.useRealTimers();
});

describe("the shared vectors (Python checks the same file)", () => {
  it("derive the same TURN proof and topic", async () => {
    expect(await turnProof(VECTORS.roomKey)).toBe(VECTORS.turnProof);
    expect(await topic(VECTORS.roomKey)).toBe(VECTORS.topic);
  });

  it.each(VECTORS.envelopes.map((v) => [v.name, v] as const))("%s: Python's envelope opens while fresh, not after", async (_name, vector) => {
    const key = await signalKey(VECTORS.roomKey);
    vi.useFakeTimers({ toFake: ["Date"] });
    vi.setSystemTime(VECTORS.sealedAt * 1000 + 5_000);
    expect(await openEnvelope(key, vector.envelope)).toEqual(vector.message);
    expect(await openEnvelope(await signalKey(VECTORS.turnProof), vector.envelope)).toBeNull();
    vi.setSystemTime(VECTORS.sealedAt * 1000 + 121_000);
    expect(await openEnvelope(key, vector.envelope)).toBeNull();
  });

  it.each(VECTORS.proofs.map((v) => [v.name, v] as const))("the hub's proof with %s verifies, and not for other fingerprints", async (_name, proof) => {
    const nonce = b64urlDecode(proof.nonce);
    const signature = b64urlDecode(proof.signature);
    expect(await verifyProof(proof.hostKey, nonce, proof.guestFingerprint, proof.hubFingerprint, signature)).toBe(true);
    expect(await verifyProof(proof.hostKey, nonce, proof.hubFingerprint, proof.guestFingerprint, signature)).toBe(false);
    expect(await verifyProof(proof.hostKey.slice(0, -1), nonce, proof.guestFingerprint, proof.hubFingerprint, signature)).toBe(false);
    expect(await verifyProof("not a key!", nonce, proof.guestFingerprint, proof.hubFingerprint, signature)).toBe(false);
  });
});

describe("seal", () => {
  it("makes an envelope the room's key opens with the message and its time", async () => {
    const key = await signalKey(VECTORS.roomKey);
    const envelope = await seal(key, { kind: "offer", from: "page", sdp: "v=0", nonce: "n" });
    expect(await openEnvelope(key, envelope)).toMatchObject({ kind: "offer", from: "page", sdp: "v=0", nonce: "n" });
    expect(await openEnvelope(key, envelope.slice(0, -2))).toBeNull();
  });
});

describe("turnProof", () => {
  it("derives what the Python side derives from the same room key", async () => {
    // canvasrelay.protocol.signal_crypto.turn_proof of the key 00 01 02 … 1f
    expect(await turnProof("AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8")).toBe(
      "OIzoXg5yZYyJCKJRDFfWvXDp1kLt_2dfJZBJopztWLg",
    );
  });
});

describe("topic", () => {
  it("derives the topic the Python side derives from the same room key", async () => {
    // canvasrelay.protocol.signal_crypto.topic of the key 00 01 02 … 1f
    expect(await topic("AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8")).toBe("QIyUshETROiBHGrNIhBH33fhu7XMxL_GBgfLwVKjf7A");
  });
});

describe("refuses", () => {
  // canvasrelay.protocol.signal_crypto.refusal by a host key of Python's, of this envelope.
  const HOST = "BD7Xoo7GSO3OXVt-JS9rKq-7RINRFKJLPKqPcQ9kmTvCVxGjTNySKQgLY58Jl3_rfKkezOFkm_6orYXHKyBq3n4";
  const ENVELOPE = "c2VhbGVkLXdpdGgtYW5vdGhlci1rZXk";
  const REFUSAL =
    "refused.27fdes4dc8wxY0H-AHgJjw.cy6c-PK8mJf-3MT7fw8tW9bZw_q_KX2ekv9Ol0aYyC27-cHaFoNee4jFvqOPa5-od2lVMQDJ199XlPKsWAH67g";

  it("knows the host's signed refusal of the envelope it was sent", async () => {
    expect(await refuses(HOST, REFUSAL, ENVELOPE)).toBe(true);
  });

  it("takes no refusal of another envelope, a forged one, or an envelope for one", async () => {
    expect(await refuses(HOST, REFUSAL, ENVELOPE + "A")).toBe(false);
    expect(await refuses(HOST, REFUSAL.slice(0, -2) + "AA", ENVELOPE)).toBe(false);
    expect(await refuses(HOST, "refused.x.y.z", ENVELOPE)).toBe(false);
    expect(await refuses(HOST, ENVELOPE, ENVELOPE)).toBe(false);
  });
});
