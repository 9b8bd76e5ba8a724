/**
 * The words people read for requests, answers and outcomes. The phrases come from the one table
 * the server uses too (`REQUEST_WORDS`, generated from canvasrelay/protocol/words.py), so a
 * person reads "send a prompt to Demo agent" everywhere and never a frame type.
 */
import { ANSWER_WORDS, REQUEST_WORDS, RULES_BY } from "../protocol.gen";
import type { PermissionOption } from "../protocol.gen";

export type Outcome = "approved" | "denied" | "trusted" | "expired" | "withdrawn";

type Phrase = "verb" | "noun";

function phrase(ref: string, which: Phrase, name: string | null | undefined, fallback: string): string {
  const words = (REQUEST_WORDS as Record<string, { verb: string; noun: string; subject: string }>)[ref];
  if (!words) return fallback;
  return words[which].replace("{name}", name || words.subject);
}

/** "send a prompt to Demo agent", as in "Ada asks to …". */
export function requestVerb(ref: string, name?: string | null): string {
  return phrase(ref, "verb", name, "do something on your machine");
}

/** As in "Ada asks …": "to " and the request's verb ("to send a prompt to Demo agent"), or its own phrase ("for edit access"). */
export function requestAsks(ref: string, verb: string): string {
  const words = (REQUEST_WORDS as Record<string, { asks?: string }>)[ref];
  return words?.asks ?? `to ${verb}`;
}

/** "prompt to Demo agent", as in "your … is waiting for the host". */
export function requestNoun(ref: string, name?: string | null): string {
  return phrase(ref, "noun", name, "request");
}

const OUTCOMES: Record<Outcome, string> = {
  approved: "The host approved it.",
  trusted: "The host approved it and now trusts you: your next requests run directly.",
  denied: "The host said no.",
  expired: "The host did not answer in time, so it expired.",
  withdrawn: "It was withdrawn.",
};

/** How a request ended, told to the guest who made it: "Your prompt to Demo agent: the host said no." */
export function outcomeText(ref: string, outcome: Outcome, name?: string | null): string {
  return `Your ${requestNoun(ref, name)}: ${OUTCOMES[outcome].charAt(0).toLowerCase()}${OUTCOMES[outcome].slice(1)}`;
}

/** Whether the request ran (then nothing more needs saying where it was made). */
export function ran(outcome: Outcome): boolean {
  return outcome === "approved" || outcome === "trusted";
}

/** A permission rule in words: "edits of notes/todo.txt", "every command", "the command `make test`". */
export function ruleWords(rule: { permission: string; pattern: string }): string {
  const kind = TOOL_KINDS[rule.permission] ?? `${rule.permission} calls`;
  if (rule.pattern === "*" || rule.pattern === "**") return `every one of its ${kind}`;
  if (rule.permission === "execute") return `the command ${unescapePattern(rule.pattern)}`;
  return `${kind} of ${unescapePattern(rule.pattern)}`;
}

const TOOL_KINDS: Record<string, string> = {
  read: "reads",
  edit: "edits",
  delete: "deletions",
  move: "moves",
  search: "searches",
  execute: "commands",
  think: "thoughts",
  fetch: "fetches",
  other: "tool calls",
  "*": "tool calls",
};

/** A rule's exact pattern back as the text it matches (`escape` in permission_rules.py). */
function unescapePattern(pattern: string): string {
  return pattern.replace(/\\([*?\\])/g, "$1");
}

/** "allowed once by Ada", "rejected by a permission rule", "cancelled" (answer_words in words.py). */
export function answerWords(
  resolution: { optionId: string | null; by: string | null; answer: string | null },
  options: readonly PermissionOption[],
): string {
  if (resolution.optionId === null) return "cancelled";
  const kind = options.find((option) => option.optionId === resolution.optionId)?.kind;
  const said = ANSWER_WORDS[resolution.answer ?? ""] ?? ANSWER_WORDS[kind ?? ""] ?? "answered";
  if (resolution.by === RULES_BY) return `${said} by a permission rule`;
  return resolution.by ? `${said} by ${resolution.by}` : said;
}

/** "12 bytes", "3.4 KB". */
export function sizeWords(bytes: number): string {
  if (bytes < 1000) return `${bytes} byte${bytes === 1 ? "" : "s"}`;
  if (bytes < 1_000_000) return `${(bytes / 1000).toFixed(1)} KB`;
  return `${(bytes / 1_000_000).toFixed(1)} MB`;
}
