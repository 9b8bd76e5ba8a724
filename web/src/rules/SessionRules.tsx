import { useCallback, useEffect, useState } from "react";
import { contentKeys } from "../keys";
import { describeRule, RulesApi, type Rule, type SessionRules as Rules, unmatchable } from "./rulesApi";
import "./rules.css";

interface Props {
  sessionId: string;
  /** Bumped by the parent when a permission answer may have added a rule, to reload. */
  version?: number;
  api?: RulesApi;
}

const defaultApi = new RulesApi();

/** The host's view of a session's permission rules: its own (removable), then the files' ones. */
export function SessionRules({ sessionId, version = 0, api = defaultApi }: Props) {
  const [rules, setRules] = useState<Rules | null>(null);
  const [problem, setProblem] = useState<string | null>(null);

  const load = useCallback(() => {
    api.list(sessionId).then(
      (found) => {
        setRules(found);
        setProblem(null);
      },
      (error: Error) => setProblem(error.message),
    );
  }, [api, sessionId]);

  useEffect(load, [load, version]);

  const remove = (ruleId: number | null) => api.remove(sessionId, ruleId).then(load, (e: Error) => setProblem(e.message));

  if (problem) return <div className="rules rules-problem">Rules: {problem}</div>;
  if (!rules) return null;
  const inherited = [...rules.user.map((r) => ["yours", r] as const), ...rules.project.map((r) => ["project", r] as const)];
  const inheritedKeys = contentKeys(inherited, ([layer, rule]) => `${layer} ${describeRule(rule)}`);
  const note = (rule: Rule) => {
    const why = unmatchable(rule, rules.unnamedKinds);
    return why ? <small className="rule-note"> — {why}</small> : null;
  };
  return (
    <details className="rules" data-testid="session-rules">
      <summary>Permission rules ({rules.session.length} for this session)</summary>
      <ul>
        {rules.session.map(({ id, rule }) => (
          <li key={id} className={`rule rule-${rule.action}`}>
            <span>{describeRule(rule)}</span>
            {note(rule)}
            <button type="button" onClick={() => remove(id)} title="Remove this rule">
              Remove
            </button>
          </li>
        ))}
        {inherited.map(([layer, rule], i) => (
          <li key={inheritedKeys[i]} className={`rule rule-${rule.action} rule-inherited`}>
            <span>{describeRule(rule)}</span> <small>{layer}</small>
            {note(rule)}
          </li>
        ))}
        {(rules.agent ?? []).map((remembered) => (
          <li key={`agent-${remembered.kind}-${remembered.title}`} className="rule rule-agent">
            <span>{remembered.text}</span> <small>the agent&apos;s own rule, not canvas&apos;s</small>
          </li>
        ))}
      </ul>
      {rules.session.length > 1 && (
        <button type="button" onClick={() => remove(null)}>
          Reset this session's rules
        </button>
      )}
    </details>
  );
}
