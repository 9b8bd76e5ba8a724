import { describe, expect, it } from "vitest";
import { topic, turnProof } from "./signalCrypto";

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
