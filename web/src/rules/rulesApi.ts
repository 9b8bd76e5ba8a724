import type { Rule, RulesOut } from "../api.gen";
import { fragmentParams } from "../connection";

export type { Rule, RulesOut as SessionRules } from "../api.gen";

type Fetch = typeof fetch;

/** The HTTP API with the host's token: the rules live in the server, not in any one page. */
export class RulesApi {
  constructor(
    private readonly token: string | null = fragmentParams().get("token"),
    private readonly fetcher: Fetch = (...args) => fetch(...args),
  ) {}

  private async call(method: string, path: string): Promise<Response> {
    const response = await this.fetcher(path, { method, headers: { Authorization: `Bearer ${this.token ?? ""}` } });
    if (!response.ok) {
      const body = await response.json().catch(() => null);
      throw new Error(body?.error?.message ?? `${response.status} ${response.statusText}`);
    }
    return response;
  }

  async list(sessionId: string): Promise<RulesOut> {
    return (await this.call("GET", `/api/session/${encodeURIComponent(sessionId)}/rules`)).json();
  }

  /** Removes one session rule, or every one of them when `ruleId` is null. */
  async remove(sessionId: string, ruleId: number | null): Promise<void> {
    const base = `/api/session/${encodeURIComponent(sessionId)}/rules`;
    await this.call("DELETE", ruleId === null ? base : `${base}/${ruleId}`);
  }
}

/** Why a rule with a pattern cannot match what this agent asks, or null. */
export function unmatchable(rule: Rule, unnamedKinds: string[] = []): string | null {
  if (anyPattern(rule) || !unnamedKinds.includes(rule.permission)) return null;
  return `this agent's ${rule.permission} requests name no path or command, so this rule cannot match them`;
}

export function describeRule(rule: Rule): string {
  const what = rule.permission === "*" ? "any tool" : rule.permission;
  const where = anyPattern(rule) ? "" : ` ${rule.pattern}`;
  return `${rule.action} ${what}${where}${rule.reason ? ` (${rule.reason})` : ""}`;
}

function anyPattern(rule: Rule): boolean {
  return rule.pattern === undefined || rule.pattern === "*" || rule.pattern === "**";
}
