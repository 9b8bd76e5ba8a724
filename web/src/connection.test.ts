import { describe, expect, it } from "vitest";
import { backoffMs, fragmentParams } from "./connection";
import { roomLink } from "./RoomLink";

describe("fragmentParams", () => {
  it("reads the token from the fragment", () => {
    expect(fragmentParams("#token=abc_-1").get("token")).toBe("abc_-1");
  });
  it("reads the room link's three keys", () => {
    const params = fragmentParams("#room=r1&key=k2&host=h3");
    expect([params.get("room"), params.get("key"), params.get("host")]).toEqual(["r1", "k2", "h3"]);
  });
});

describe("backoffMs", () => {
  it("doubles and is capped", () => {
    const fixed = () => 1;
    expect(backoffMs(0, fixed)).toBe(250);
    expect(backoffMs(1, fixed)).toBe(500);
    expect(backoffMs(20, fixed)).toBe(10_000);
  });
  it("keeps at least half the base as jitter floor", () => {
    expect(backoffMs(2, () => 0)).toBe(500);
  });
});

describe("roomLink", () => {
  it("puts the secrets in the fragment only", () => {
    const link = roomLink("room=R&key=K&host=H", "http://127.0.0.1:8477/");
    expect(link).toBe("http://127.0.0.1:8477/#room=R&key=K&host=H");
    expect(new URL(link).search).toBe("");
  });
});
