import { describe, expect, it } from "vitest";
import { readHubReply } from "./hubReply";

describe("readHubReply", () => {
  it("reads the about the hub writes for a plain room link, its invitation's name left out", () => {
    // canvasrelay/server/guests/hub.py: {"kind": "about", "to": conn, **guests.about()}, sealed with its time.
    const about = { kind: "about", to: "c1", project: "canvas", host: "Ada", access: "edit", ts: 1_780_000_000 };
    expect(readHubReply(about)).toEqual({ kind: "about", to: "c1", project: "canvas", host: "Ada", access: "edit", name: null, iceServers: [] });
  });

  it("keeps a named invitation's name and leaves behind what a newer hub adds", () => {
    const about = { kind: "about", to: "c1", project: "canvas", host: null, access: "view", name: "Grace", colour: "teal" };
    expect(readHubReply(about)).toEqual({ kind: "about", to: "c1", project: "canvas", host: null, access: "view", name: "Grace", iceServers: [] });
  });

  it("keeps the TURN servers the host minted credentials for, and only well-formed ones", () => {
    const minted = { urls: ["turn:relay.example:3478"], username: "1800000000:ab", credential: "c2VjcmV0" };
    const iceServers = [minted, { urls: "stun:x" }, { urls: ["turn:y"], username: 5 }, "junk"];
    const about = { kind: "about", to: "c1", project: "canvas", host: null, access: "view", iceServers };
    expect(readHubReply(about)).toMatchObject({ iceServers: [minted] });
  });

  it("reads an answer and a withdrawal", () => {
    expect(readHubReply({ kind: "answer", to: "c1", sdp: "v=0" })).toEqual({ kind: "answer", to: "c1", sdp: "v=0" });
    expect(readHubReply({ kind: "withdrawn", to: "c1", reason: "expired" })).toEqual({ kind: "withdrawn", to: "c1", reason: "expired" });
    expect(readHubReply({ kind: "withdrawn", to: "c1" })).toEqual({ kind: "withdrawn", to: "c1", reason: "" });
  });

  it.each([
    ["an answer without a session description", { kind: "answer", to: "c1" }],
    ["an about granting an access no guest can have", { kind: "about", to: "c1", project: "canvas", access: "host" }],
    ["an about naming no project", { kind: "about", to: "c1", project: 5, access: "view" }],
    ["a reply addressed to no one", { kind: "answer", sdp: "v=0" }],
    ["a kind of reply this page does not know", { kind: "offer", to: "c1", sdp: "v=0" }],
  ])("refuses %s", (_, message) => {
    expect(readHubReply(message)).toBeNull();
  });
});
