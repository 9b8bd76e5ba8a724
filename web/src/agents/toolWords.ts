/** What a person reads for an agent's tool call: ACP's kinds and statuses are protocol values. */

const KINDS: Record<string, string> = {
  read: "Read",
  edit: "Edit",
  delete: "Delete",
  move: "Move",
  search: "Search",
  execute: "Run",
  think: "Think",
  fetch: "Fetch",
  switch_mode: "Switch mode",
};

const STATUSES: Record<string, string> = {
  pending: "waiting",
  in_progress: "running",
  completed: "done",
  failed: "failed",
};

/** The kind as a word, or "" for `other` and kinds this app does not know (the title says it), and
 * for a title that already begins with that word ("Read README.md" is not "Read Read README.md"). */
export function toolKindWord(kind: string | undefined, title = ""): string {
  const word = (kind && KINDS[kind]) || "";
  return word && title.toLowerCase().startsWith(`${word.toLowerCase()} `) ? "" : word;
}

export function toolStatusWord(status: string | undefined): string {
  return (status && STATUSES[status]) || "";
}

/** The agent's title for the call; without one, no id: just that it is a tool call. */
export function toolTitle(title: string | undefined): string {
  return title || "A tool call";
}
