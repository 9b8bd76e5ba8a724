import { describe, expect, it } from "vitest";
import { describeRule, type Rule, RulesApi, unmatchable } from "./rulesApi";

function fakeFetch(status: number, body: unknown, seen: [string, RequestInit | undefined][]) {
  return (async (url: string, init?: RequestInit) => {
    seen.push([url, init]);
    return new Response(body === null ? null : JSON.stringify(body), { status });
  }) as typeof fetch;
}

describe("RulesApi", () => {
  it("lists a session's rules with the host token", async () => {
    const seen: [string, RequestInit | undefined][] = [];
    const rules = { session: [{ id: 3, rule: { permission: "edit", pattern: "a.md", action: "allow" } }], user: [], project: [] };
    const api = new RulesApi("tok", fakeFetch(200, rules, seen));
    expect(await api.list("s/1")).toEqual(rules);
    expect(seen[0][0]).toBe("/api/session/s%2F1/rules");
    expect(seen[0][1]?.headers).toEqual({ Authorization: "Bearer tok" });
  });
  it("removes one rule or all of them", async () => {
    const seen: [string, RequestInit | undefined][] = [];
    const api = new RulesApi("tok", fakeFetch(204, null, seen));
    await api.remove("s1", 3);
    await api.remove("s1", null);
    expect(seen.map(([url, init]) => `${init?.method} ${url}`)).toEqual([
      "DELETE /api/session/s1/rules/3",
      "DELETE /api/session/s1/rules",
    ]);
  });
  it("reports the API's error message", async () => {
    const api = new RulesApi("tok", fakeFetch(404, { error: { name: "not_found", message: "session not found", code: 404 } }, []));
    await expect(api.list("nope")).rejects.toThrow("session not found");
  });
});

describe("describeRule", () => {
  it("reads like a sentence", () => {
    expect(describeRule({ permission: "execute", pattern: "rm *", action: "deny", reason: "no" })).toBe("deny execute rm * (no)");
    expect(describeRule({ permission: "*", pattern: "*", action: "ask" })).toBe("ask any tool");
  });
});

describe("unmatchable", () => {
  it("says a path rule cannot match an agent whose requests name no path", () => {
    const rule: Rule = { permission: "read", pattern: "src/**", action: "deny" };
    expect(unmatchable(rule, ["read"])).toMatch(/name no path or command/);
    expect(unmatchable(rule, ["edit"])).toBeNull();
    expect(unmatchable({ ...rule, pattern: "*" }, ["read"])).toBeNull();
  });
});
