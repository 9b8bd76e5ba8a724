import { describe, expect, it } from "vitest";
import { ACCESS_LEVELS, ACCESS_TABLE, GUEST_ACCESS_LEVELS, TERMINAL_HOLDERS, type AccessAction } from "../protocol.gen";
import { mayBrowse } from "../roomClient";
import { mayType } from "../terminals/stream";
import { decision, holdsWhenHanded, may, mayAsk } from "./access";

const ACTIONS = Object.keys(ACCESS_TABLE) as AccessAction[];

describe("the page's access checks", () => {
  it("agree with the table the core decides by, for every access and action", () => {
    for (const access of ACCESS_LEVELS) {
      for (const action of ACTIONS) {
        const decided = ACCESS_TABLE[action][access];
        expect(decision(access, action)).toBe(decided);
        expect(may(access, action)).toBe(decided === "allow");
        expect(mayAsk(access, action)).toBe(decided !== "deny");
      }
      expect(mayBrowse(access)).toBe(ACCESS_TABLE["browse-files"][access] === "allow");
      expect(mayType(access, false)).toBe(ACCESS_TABLE["type-terminal"][access] === "allow");
    }
  });

  it("let a guest the host handed a terminal to type in it, as the core does", () => {
    for (const access of ACCESS_LEVELS) {
      const handed = (TERMINAL_HOLDERS as readonly string[]).includes(access);
      expect(holdsWhenHanded(access)).toBe(handed);
      expect(mayType(access, true)).toBe(handed || ACCESS_TABLE["type-terminal"][access] === "allow");
    }
  });

  it("allow nothing before the welcome says which access this is", () => {
    for (const action of ACTIONS) expect(mayAsk(null, action)).toBe(false);
    expect(mayBrowse(null)).toBe(false);
    expect(mayType(undefined, true)).toBe(false);
  });

  it("offer the host every access level it can give a guest, lowest first", () => {
    expect([...GUEST_ACCESS_LEVELS]).toEqual(ACCESS_LEVELS.filter((level) => level !== "host"));
  });
});
