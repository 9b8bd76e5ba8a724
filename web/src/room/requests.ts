/**
 * The words for a guest's request that waits for the host, by the frame type the server names it
 * with (`request-pending.ref`, `approval-request.what`): people read these, never the type.
 */
const REQUESTS: Record<string, { noun: string; verb: string }> = {
  "agent-prompt": { noun: "prompt", verb: "prompt an agent" },
  "agent-create": { noun: "request to start the agent", verb: "start an agent" },
  "agent-cancel": { noun: "cancel", verb: "cancel an agent's turn" },
  "agent-config": { noun: "settings change", verb: "change an agent's settings" },
  "term-open": { noun: "request to start a terminal", verb: "start a terminal" },
};

export type Outcome = "approved" | "denied" | "trusted" | "expired" | "withdrawn";

/** "prompt", as in "your prompt is waiting for the host". */
export function requestNoun(ref: string): string {
  return REQUESTS[ref]?.noun ?? "request";
}

/** "prompt an agent", as in "Ada asks to prompt an agent". */
export function requestVerb(ref: string): string {
  return REQUESTS[ref]?.verb ?? "do something that runs on your machine";
}

/** How a request ended, told to the guest who made it. */
export function outcomeText(ref: string, outcome: Outcome): string {
  const what = requestNoun(ref);
  switch (outcome) {
    case "approved":
      return `The host approved your ${what}.`;
    case "trusted":
      return `The host approved your ${what} and now trusts you: your next ones run directly.`;
    case "denied":
      return `The host denied your ${what}.`;
    case "expired":
      return `The host did not answer in time: your ${what} expired.`;
    case "withdrawn":
      return `Your ${what} was withdrawn.`;
  }
}

/** Whether the request ran (then nothing more needs saying where it was made). */
export function ran(outcome: Outcome): boolean {
  return outcome === "approved" || outcome === "trusted";
}
