/**
 * The primitives of `cryptoPrimitives` for a page without WebCrypto (one that is not a secure
 * context), from the audited noble libraries, bundled and pinned; loaded only by such a page.
 */
import { gcm } from "@noble/ciphers/aes.js";
import { p256 } from "@noble/curves/nist.js";
import { hkdf } from "@noble/hashes/hkdf.js";
import { sha256 } from "@noble/hashes/sha2.js";
import { HKDF_SALT, type Bytes, type CryptoPrimitives, type IdentityKey } from "./cryptoPrimitives";

const SECRET_BYTES = 32;

/**
 * The identity's secret is kept as bytes in IndexedDB, where the page's own script can read it.
 * WebCrypto's non-extractable key guards it from a script that runs in the page later; on plain
 * http anyone on the network path can rewrite the page's script before it runs, and such a
 * script signs with a non-extractable key just as well, so the weaker form loses nothing there
 * (adr/0032). IndexedDB is per origin, so a secure origin's key is never this one.
 */
function identityOf(secret: Bytes): IdentityKey {
  return {
    publicKey: p256.getPublicKey(secret, false) as Bytes,
    // Low-S or not, both verify (WebCrypto, Python's cryptography): noble's default of low-S stays.
    sign: async (message) => p256.sign(message, secret) as Bytes,
    stored: secret,
  };
}

function isSecret(value: unknown): value is Bytes {
  return value instanceof Uint8Array && value.length === SECRET_BYTES && p256.utils.isValidSecretKey(value);
}

export const fallback: CryptoPrimitives = {
  sha256: async (data) => sha256(data) as Bytes,
  hkdf: async (secret, info, length) => hkdf(sha256, secret, HKDF_SALT, info, length) as Bytes,
  async sealingKey(secret, info) {
    const key = hkdf(sha256, secret, HKDF_SALT, info, 32);
    return {
      seal: async (nonce, additionalData, plain) => gcm(key, nonce, additionalData).encrypt(plain) as Bytes,
      open: async (nonce, additionalData, sealed) => gcm(key, nonce, additionalData).decrypt(sealed) as Bytes,
    };
  },
  async verifyP256(publicKey, message, signature) {
    try {
      // WebCrypto and Python sign with either half of S, so a high S is as good as a low one.
      return p256.verify(signature, message, publicKey, { lowS: false });
    } catch {
      return false;
    }
  },
  makeIdentity: async () => identityOf(p256.utils.randomSecretKey() as Bytes),
  loadIdentity: async (stored) => (isSecret(stored) ? identityOf(stored) : null),
};
