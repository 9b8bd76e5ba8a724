/** The browser's half of ADR 0004: topic, sealed envelopes and the hub's proof. */
import { b64url, b64urlDecode } from "../base64";
import type { GuestMessage } from "../protocol.gen";
import { cryptoPrimitives, type Bytes, type SealingKey } from "../cryptoPrimitives";

const enc = new TextEncoder();
const dec = new TextDecoder();
const SIGNAL_INFO = enc.encode("canvas/signal/v1");
const TURN_INFO = enc.encode("canvas/turn/v1");
const MAX_AGE_SECONDS = 120;
const REFUSAL_PREFIX = enc.encode("canvas/refusal/v1");
/** Refusals travel in the clear; `.` is not base64url, so no envelope starts like one. */
const REFUSAL_TAG = "refused.";
export const GUEST_NONCE_BYTES = 32;

export function concat(...parts: Uint8Array[]): Bytes {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

/** The room's topic on the rendezvous: from the key, through the TURN verifier (ADR 0014), so the
 *  room id alone names no topic. */
export async function topic(roomKey: string): Promise<string> {
  const { sha256 } = await cryptoPrimitives();
  const verifier = await sha256(b64urlDecode(await turnProof(roomKey)));
  return b64url(await sha256(concat(enc.encode("canvas/topic/v1:"), verifier)));
}

export async function signalKey(roomKey: string): Promise<SealingKey> {
  return (await cryptoPrimitives()).sealingKey(b64urlDecode(roomKey), SIGNAL_INFO);
}

/** What a room-link holder shows the rendezvous to get TURN credentials; it reveals nothing of the key. */
export async function turnProof(roomKey: string): Promise<string> {
  return b64url(await (await cryptoPrimitives()).hkdf(b64urlDecode(roomKey), TURN_INFO, 32));
}

export async function seal(key: SealingKey, message: GuestMessage): Promise<string> {
  const nonce = crypto.getRandomValues(new Uint8Array(12));
  const body = enc.encode(JSON.stringify({ ...message, ts: Date.now() / 1000 }));
  return b64url(concat(nonce, await key.seal(nonce, SIGNAL_INFO, body)));
}

/** The envelope's message, or null when it is not for this room or is stale. */
export async function openEnvelope(key: SealingKey, envelope: string): Promise<Record<string, unknown> | null> {
  try {
    const raw = b64urlDecode(envelope);
    const plain = await key.open(raw.slice(0, 12), SIGNAL_INFO, raw.slice(12));
    const message = JSON.parse(dec.decode(plain)) as Record<string, unknown>;
    const age = Date.now() / 1000 - Number(message.ts);
    return Math.abs(age) < MAX_AGE_SECONDS ? message : null;
  } catch {
    return null;
  }
}

export function sdpFingerprint(sdp: string): string {
  const match = /^a=fingerprint:sha-256 ([0-9A-Fa-f:]{95})\s*$/m.exec(sdp);
  if (!match) throw new Error("SDP has no sha-256 fingerprint");
  return match[1].toUpperCase();
}

export async function verifyProof(
  hostPublicKey: string,
  nonce: Uint8Array,
  guestFingerprint: string,
  hubFingerprint: string,
  signature: Bytes,
): Promise<boolean> {
  const nl = enc.encode("\n");
  const message = concat(
    enc.encode("canvas/proof/v1"),
    nl,
    nonce,
    nl,
    enc.encode(guestFingerprint.toUpperCase()),
    nl,
    enc.encode(hubFingerprint.toUpperCase()),
  );
  return verifyHostSignature(hostPublicKey, message, signature);
}

/**
 * Whether `message` is the hub's signed refusal of `envelope` (canvasrelay/protocol/signal_crypto.py
 * `refusal`): an envelope sealed with another key than the room's, so the link's key is wrong. Signed with
 * the host key, so nobody else on the topic can make the page believe it.
 */
export async function refuses(hostPublicKey: string, message: string, envelope: string): Promise<boolean> {
  if (!message.startsWith(REFUSAL_TAG)) return false;
  const [digest, signature, ...more] = message.slice(REFUSAL_TAG.length).split(".");
  if (digest === undefined || signature === undefined || more.length) return false;
  try {
    const expected = (await (await cryptoPrimitives()).sha256(concat(REFUSAL_PREFIX, enc.encode(envelope)))).slice(0, 16);
    const named = b64urlDecode(digest);
    if (named.length !== expected.length || named.some((byte, at) => byte !== expected[at])) return false;
    return await verifyHostSignature(hostPublicKey, concat(REFUSAL_PREFIX, named), b64urlDecode(signature));
  } catch {
    return false;
  }
}

/** ECDSA P-256 / SHA-256 by the host key (raw r‖s, WebCrypto's form), as the hub signs its proof and refusals. */
async function verifyHostSignature(hostPublicKey: string, message: Bytes, signature: Bytes): Promise<boolean> {
  try {
    return await (await cryptoPrimitives()).verifyP256(b64urlDecode(hostPublicKey), message, signature);
  } catch {
    return false;
  }
}
