/**
 * The few primitives the pages' cryptography stands on (SHA-256, HKDF, AES-GCM, ECDSA P-256), from
 * WebCrypto where the page has it, and otherwise from audited pure-JS libraries (`cryptoFallback`).
 * A browser hides `crypto.subtle` from a page that is not a secure context, and a room link on a
 * LAN address over plain http (`canvas serve --host 0.0.0.0 --lan-only`) opens just such a page
 * (adr/0032). The fallback loads only there, so a secure page's first load carries none of it.
 */

export type Bytes = Uint8Array<ArrayBuffer>;

/** AES-256-GCM under one key; `open` throws when the sealed bytes are not this key's. */
export interface SealingKey {
  seal(nonce: Bytes, additionalData: Bytes, plain: Bytes): Promise<Bytes>;
  open(nonce: Bytes, additionalData: Bytes, sealed: Bytes): Promise<Bytes>;
}

/** An ECDSA P-256 signing key of this browser's. */
export interface IdentityKey {
  /** The public key as an uncompressed point. */
  publicKey: Bytes;
  /** The SHA-256 signature of `message` as raw r‖s. */
  sign(message: Bytes): Promise<Bytes>;
  /** What IndexedDB keeps of the key, for `loadIdentity` to make it again. */
  stored: unknown;
}

export interface CryptoPrimitives {
  sha256(data: Bytes): Promise<Bytes>;
  /** HKDF-SHA-256 with no salt, which RFC 5869 (and Python's HKDF) reads as a zero salt of the hash's length. */
  hkdf(secret: Bytes, info: Bytes, length: number): Promise<Bytes>;
  /** The AES-256-GCM key HKDF derives from `secret` for `info`. */
  sealingKey(secret: Bytes, info: Bytes): Promise<SealingKey>;
  /** Whether `signature` (raw r‖s) is `publicKey`'s over `message`; false for one that is malformed. */
  verifyP256(publicKey: Bytes, message: Bytes, signature: Bytes): Promise<boolean>;
  makeIdentity(): Promise<IdentityKey>;
  /** The key `stored` holds, or null when it holds none this implementation made. */
  loadIdentity(stored: unknown): Promise<IdentityKey | null>;
}

export const HKDF_SALT = new Uint8Array(32);
const ECDSA = { name: "ECDSA", namedCurve: "P-256" } as const;
const SIGNED = { name: "ECDSA", hash: "SHA-256" } as const;

function isKeyPair(value: unknown): value is CryptoKeyPair {
  return typeof CryptoKey !== "undefined" && typeof value === "object" && value !== null
    && (value as CryptoKeyPair).privateKey instanceof CryptoKey && (value as CryptoKeyPair).publicKey instanceof CryptoKey;
}

async function identityOf(keys: CryptoKeyPair): Promise<IdentityKey> {
  const publicKey = new Uint8Array(await crypto.subtle.exportKey("raw", keys.publicKey));
  return {
    publicKey,
    sign: async (message) => new Uint8Array(await crypto.subtle.sign(SIGNED, keys.privateKey, message)),
    stored: keys,
  };
}

async function hkdfBase(secret: Bytes, use: KeyUsage): Promise<CryptoKey> {
  return crypto.subtle.importKey("raw", secret, "HKDF", false, [use]);
}

/** WebCrypto's: the identity's private half is made non-extractable, so no script can read it out. */
export const webCrypto: CryptoPrimitives = {
  sha256: async (data) => new Uint8Array(await crypto.subtle.digest("SHA-256", data)),
  hkdf: async (secret, info, length) =>
    new Uint8Array(await crypto.subtle.deriveBits({ name: "HKDF", hash: "SHA-256", salt: HKDF_SALT, info }, await hkdfBase(secret, "deriveBits"), length * 8)),
  async sealingKey(secret, info) {
    const key = await crypto.subtle.deriveKey(
      { name: "HKDF", hash: "SHA-256", salt: HKDF_SALT, info },
      await hkdfBase(secret, "deriveKey"),
      { name: "AES-GCM", length: 256 },
      false,
      ["encrypt", "decrypt"],
    );
    return {
      seal: async (iv, additionalData, plain) => new Uint8Array(await crypto.subtle.encrypt({ name: "AES-GCM", iv, additionalData }, key, plain)),
      open: async (iv, additionalData, sealed) => new Uint8Array(await crypto.subtle.decrypt({ name: "AES-GCM", iv, additionalData }, key, sealed)),
    };
  },
  async verifyP256(publicKey, message, signature) {
    try {
      const key = await crypto.subtle.importKey("raw", publicKey, ECDSA, false, ["verify"]);
      return await crypto.subtle.verify(SIGNED, key, signature, message);
    } catch {
      return false;
    }
  },
  makeIdentity: async () => identityOf(await crypto.subtle.generateKey(ECDSA, false, ["sign", "verify"])),
  loadIdentity: async (stored) => (isKeyPair(stored) ? identityOf(stored) : null),
};

/** The primitives for a page with `subtle` (WebCrypto), or without it. */
export function primitivesFor(subtle: SubtleCrypto | undefined): Promise<CryptoPrimitives> {
  return subtle ? Promise.resolve(webCrypto) : import("./cryptoFallback").then((module) => module.fallback);
}

let chosen: Promise<CryptoPrimitives> | null = null;

/** This page's primitives, chosen once. */
export function cryptoPrimitives(): Promise<CryptoPrimitives> {
  chosen ??= primitivesFor(globalThis.crypto?.subtle);
  return chosen;
}
