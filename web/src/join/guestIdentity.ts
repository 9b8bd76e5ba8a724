/**
 * This browser's identity as a guest (ADR 0021): an ECDSA P-256 key pair made once, kept in
 * IndexedDB (its private half non-extractable where the page has WebCrypto, adr/0032), and proven
 * at each join by signing the hub's challenge with both DTLS fingerprints. The room knows the person
 * by it, so a reload, a drop or the host's restart brings back the same person with the same access.
 */
import { b64url } from "../base64";
import { cryptoPrimitives, type IdentityKey } from "../cryptoPrimitives";
import { concat } from "./signalCrypto";

const DB = "canvas-guest";
const STORE = "identity";
const KEY = "self";
const JOIN_PREFIX = new TextEncoder().encode("canvas/guest-join/v1");

export interface GuestIdentity {
  key: IdentityKey;
  /** The public key as an uncompressed point, base64url: what `guest-join` carries as `key`. */
  publicKey: string;
  /** The room's id for this person: a digest of the public key. */
  guestId: string;
}

function open(): Promise<IDBDatabase> {
  return new Promise((resolve, reject) => {
    const request = indexedDB.open(DB, 1);
    request.onupgradeneeded = () => request.result.createObjectStore(STORE);
    request.onsuccess = () => resolve(request.result);
    request.onerror = () => reject(request.error ?? new Error("IndexedDB is unavailable"));
  });
}

function run<T>(db: IDBDatabase, mode: IDBTransactionMode, work: (store: IDBObjectStore) => IDBRequest<T>): Promise<T> {
  return new Promise((resolve, reject) => {
    const request = work(db.transaction(STORE, mode).objectStore(STORE));
    request.onsuccess = () => resolve(request.result);
    request.onerror = () => reject(request.error ?? new Error("IndexedDB failed"));
  });
}

async function describe(key: IdentityKey): Promise<GuestIdentity> {
  const digest = await (await cryptoPrimitives()).sha256(key.publicKey);
  return { key, publicKey: b64url(key.publicKey), guestId: b64url(digest.slice(0, 16)) };
}

let loading: Promise<GuestIdentity> | null = null;

/** This browser's guest identity, made and stored on first use. */
export function guestIdentity(): Promise<GuestIdentity> {
  loading ??= (async () => {
    const primitives = await cryptoPrimitives();
    let db: IDBDatabase | null = null;
    try {
      db = await open();
      const saved = await primitives.loadIdentity(await run<unknown>(db, "readonly", (store) => store.get(KEY)));
      if (saved) return await describe(saved);
    } catch {
      // No IndexedDB (a private window may refuse it): a key for this page's life only.
    }
    const key = await primitives.makeIdentity();
    if (db) await run(db, "readwrite", (store) => store.put(key.stored, KEY)).catch(() => undefined);
    return describe(key);
  })();
  return loading;
}

/** Our signature over the hub's challenge and both fingerprints, raw r‖s base64url (WebCrypto's own form). */
export async function signJoin(
  identity: GuestIdentity,
  challenge: Uint8Array,
  guestFingerprint: string,
  hubFingerprint: string,
): Promise<string> {
  const enc = new TextEncoder();
  const nl = enc.encode("\n");
  const guest = enc.encode(guestFingerprint.toUpperCase());
  const message = concat(JOIN_PREFIX, nl, challenge, nl, guest, nl, enc.encode(hubFingerprint.toUpperCase()));
  return b64url(await identity.key.sign(message));
}
