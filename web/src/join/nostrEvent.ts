/**
 * Nostr events (NIP-01) as canvas's rendezvous uses them, the browser's half of
 * canvasrelay/net/nostr_event.py: signed with BIP-340 Schnorr signatures over secp256k1, with a
 * key made fresh for each page load and never stored.
 *
 * Every event a relay hands over is a stranger's: `checkEvent` checks its shape, its bounds, its id
 * and its signature before anything reads its content, and says in words what is wrong.
 */
import { etc, hashes, schnorr, utils } from "@noble/secp256k1";
import { cryptoPrimitives } from "../cryptoPrimitives";

/** Ephemeral (20000 to 29999: relays pass it on and keep nothing), as the host's side uses. */
export const SIGNAL_KIND = 25050;
/** The tag that carries an invitation's topic: a single letter, which relays index. */
export const TOPIC_TAG = "x";
/** The tag that names the page (by its key) an answer is for. */
export const TO_TAG = "p";
// BIP-340's hashes through the page's primitives: the library's own default is WebCrypto's, which a
// page that is not a secure context lacks.
hashes.sha256Async = async (message) => (await cryptoPrimitives()).sha256(new Uint8Array(message));

export const CONTENT_MAX = 64 * 1024;
export const TAGS_MAX = 8;
const TAG_PART_MAX = 256;
const HEX64 = /^[0-9a-f]{64}$/;
const HEX128 = /^[0-9a-f]{128}$/;
/** Half of a surrogate pair without its other half: text with no UTF-8 form, so no id. */
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

export interface NostrEvent {
  id: string;
  pubkey: string;
  created_at: number;
  kind: number;
  tags: string[][];
  content: string;
  sig: string;
}

/** A key pair made for one page load: the host's answers name its public half. */
export interface NostrKey {
  secret: Uint8Array;
  /** The x-only public key, hex: what events name as their `pubkey`. */
  pubkey: string;
}

/** An event that is not a well-formed, correctly signed one; the message says what is wrong. */
export class EventError extends Error {}

export function keyOf(secret: Uint8Array): NostrKey {
  return { secret, pubkey: etc.bytesToHex(schnorr.getPublicKey(secret)) };
}

export function freshKey(): NostrKey {
  return keyOf(utils.randomSecretKey());
}

/** The event's id: the SHA-256 of its fields as NIP-01 serialises them (no spaces, UTF-8). */
export async function eventId(pubkey: string, createdAt: number, kind: number, tags: string[][], content: string): Promise<string> {
  const serialised = new TextEncoder().encode(JSON.stringify([0, pubkey, createdAt, kind, tags, content]));
  return etc.bytesToHex(await (await cryptoPrimitives()).sha256(serialised));
}

/**
 * `content` signed as an event of `kind`. `aux` is BIP-340's auxiliary randomness, fresh unless given
 * (the cross-language vectors give it, so both sides must make the same signature).
 */
export async function signEvent(
  key: NostrKey,
  kind: number,
  tags: string[][],
  content: string,
  createdAt: number = Math.floor(Date.now() / 1000),
  aux?: Uint8Array,
): Promise<NostrEvent> {
  const id = await eventId(key.pubkey, createdAt, kind, tags, content);
  const sig = await schnorr.signAsync(etc.hexToBytes(id), key.secret, aux);
  return { id, pubkey: key.pubkey, created_at: createdAt, kind, tags, content, sig: etc.bytesToHex(sig) };
}

/** The event a relay sent, checked: its fields and their bounds, its id, its signature. */
export async function checkEvent(value: unknown): Promise<NostrEvent> {
  if (typeof value !== "object" || value === null || Array.isArray(value)) throw new EventError("an event must be an object");
  const { id, pubkey, created_at: createdAt, kind, tags, content, sig } = value as Record<string, unknown>;
  if (typeof pubkey !== "string" || !HEX64.test(pubkey)) throw new EventError("pubkey must be 64 hex digits");
  if (typeof id !== "string" || !HEX64.test(id) || typeof sig !== "string" || !HEX128.test(sig)) {
    throw new EventError("id and sig must be hex digits");
  }
  // Safe integers only: beyond 2^53 a number would not serialise as the signer wrote it.
  if (!Number.isSafeInteger(createdAt) || !Number.isSafeInteger(kind)) throw new EventError("created_at and kind must be integers");
  if (typeof content !== "string" || content.length > CONTENT_MAX) {
    throw new EventError(`content must be text of at most ${CONTENT_MAX} characters`);
  }
  if (!Array.isArray(tags) || tags.length > TAGS_MAX) throw new EventError(`tags must be a list of at most ${TAGS_MAX}`);
  const shortText = (part: unknown): part is string => typeof part === "string" && part.length <= TAG_PART_MAX;
  if (!tags.every((tag): tag is string[] => Array.isArray(tag) && tag.every(shortText))) {
    throw new EventError("each tag must be a list of short strings");
  }
  if ([content, ...tags.flat()].some((text) => LONE_SURROGATE.test(text))) {
    throw new EventError("the event's text is not Unicode (a lone surrogate)");
  }
  const checked: NostrEvent = { id, pubkey, created_at: createdAt as number, kind: kind as number, tags, content, sig };
  if ((await eventId(pubkey, checked.created_at, checked.kind, tags, content)) !== id) {
    throw new EventError("the id is not the hash of the event");
  }
  let signed: boolean;
  try {
    signed = await schnorr.verifyAsync(etc.hexToBytes(sig), etc.hexToBytes(id), etc.hexToBytes(pubkey));
  } catch (error) {
    throw new EventError(`the signature cannot be checked: ${error instanceof Error ? error.message : String(error)}`);
  }
  if (!signed) throw new EventError("the signature does not match");
  return checked;
}

/** The first value of the event's tag `name`, if it has one. */
export function tagOf(event: NostrEvent, name: string): string | undefined {
  return event.tags.find((tag) => tag.length > 1 && tag[0] === name)?.[1];
}
