/**
 * Vitest's setup for the tests that run again without WebCrypto: the global `crypto` becomes what
 * a page that is not a secure context has, `getRandomValues` and no `subtle`, so every primitive
 * comes from the pure-JS fallback.
 */
const { getRandomValues } = globalThis.crypto;
Object.defineProperty(globalThis, "crypto", {
  configurable: true,
  value: { getRandomValues: getRandomValues.bind(globalThis.crypto) },
});
