import { describe, expect, it } from "vitest";
import { refuses, topic, turnProof } from "./signalCrypto";

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
