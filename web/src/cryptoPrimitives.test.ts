import { describe, expect, it } from "vitest";
import { fallback } from "./cryptoFallback";
import { cryptoPrimitives, primitivesFor, webCrypto, type Bytes, type CryptoPrimitives } from "./cryptoPrimitives";

const enc = new TextEncoder();
const random = (length: number): Bytes => crypto.getRandomValues(new Uint8Array(length));

describe("the chooser", () => {
  it("gives this page WebCrypto's primitives where it has crypto.subtle, and the fallback's where not", async () => {
    expect(await cryptoPrimitives()).toBe(globalThis.crypto.subtle ? webCrypto : fallback);
    expect(await cryptoPrimitives()).toBe(await cryptoPrimitives());
  });

  it("takes the fallback exactly when there is no subtle", async () => {
    expect(await primitivesFor(undefined)).toBe(fallback);
    expect(await primitivesFor({} as SubtleCrypto)).toBe(webCrypto);
  });
});

describe("the fallback alone", () => {
  it("keeps no identity but one of its own secrets", async () => {
    for (const stored of [undefined, null, "secret", new Uint8Array(31), new Uint8Array(32), { privateKey: {}, publicKey: {} }]) {
      expect(await fallback.loadIdentity(stored)).toBeNull();
    }
    const made = await fallback.makeIdentity();
    const again = await fallback.loadIdentity(made.stored);
    expect(again?.publicKey).toEqual(made.publicKey);
  });

  it("refuses what does not open or does not verify", async () => {
    const key = await fallback.sealingKey(random(32), enc.encode("info"));
    const nonce = random(12);
    const sealed = await key.seal(nonce, enc.encode("aad"), enc.encode("words"));
    await expect(key.open(nonce, enc.encode("other aad"), sealed)).rejects.toThrow();
    sealed[0] ^= 1;
    await expect(key.open(nonce, enc.encode("aad"), sealed)).rejects.toThrow();
    const identity = await fallback.makeIdentity();
    const signature = await identity.sign(enc.encode("message"));
    expect(await fallback.verifyP256(identity.publicKey, enc.encode("massage"), signature)).toBe(false);
    expect(await fallback.verifyP256(identity.publicKey, enc.encode("message"), signature.slice(1))).toBe(false);
    expect(await fallback.verifyP256(new Uint8Array(65), enc.encode("message"), signature)).toBe(false);
  });
});

// Where this runs with WebCrypto, each side's output is checked by the other.
describe.runIf(globalThis.crypto.subtle)("WebCrypto and the fallback", () => {
  const pairs: [string, CryptoPrimitives, CryptoPrimitives][] = [
    ["WebCrypto's, by the fallback", webCrypto, fallback],
    ["the fallback's, by WebCrypto", fallback, webCrypto],
  ];

  it("hash and derive alike", async () => {
    for (const length of [0, 1, 55, 56, 64, 1000]) {
      const [data, secret] = [random(length), random(32)];
      expect(await fallback.sha256(data)).toEqual(await webCrypto.sha256(data));
      expect(await fallback.hkdf(secret, data, 32)).toEqual(await webCrypto.hkdf(secret, data, 32));
    }
  });

  it.each(pairs)("an envelope sealed with %s opens", async (_name, sealer, opener) => {
    const secret = random(32);
    const info = enc.encode("canvas/signal/v1");
    const nonce = random(12);
    const sealed = await (await sealer.sealingKey(secret, info)).seal(nonce, info, enc.encode("Grüße 😀"));
    expect(new TextDecoder().decode(await (await opener.sealingKey(secret, info)).open(nonce, info, sealed))).toBe("Grüße 😀");
  });

  it.each(pairs)("a signature made with %s verifies, and no other", async (_name, signer, verifier) => {
    const identity = await signer.makeIdentity();
    expect(identity.publicKey).toHaveLength(65);
    for (let round = 0; round < 8; round++) {
      const message = random(40);
      const signature = await identity.sign(message);
      expect(await verifier.verifyP256(identity.publicKey, message, signature)).toBe(true);
      message[0] ^= 1;
      expect(await verifier.verifyP256(identity.publicKey, message, signature)).toBe(false);
    }
    expect(await verifier.loadIdentity(identity.stored)).toBeNull();
  });
});
