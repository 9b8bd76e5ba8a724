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

/** The name canvas serves its board tools under (server/board/mcp.py's SERVER_NAME). */
const BOARD_SERVER = "canvas-board";
/** How agents title a call of an MCP server's tool when they do not word it: `mcp__server__tool`. */
const MCP_TOOL = /^mcp__(.+?)__(\w+)$/;

/**
 * The agent's title for the call; without one, no id: just that it is a tool call. An MCP tool's
 * bare name is said as words, the board's as what it does on the board ("Add note on the board").
 */
export function toolTitle(title: string | undefined): string {
  const mcp = title ? MCP_TOOL.exec(title) : null;
  if (!mcp) return title || "A tool call";
  const [, server, tool] = mcp;
  const words = tool.replace(/_+/g, " ").trim();
  const sentence = words.charAt(0).toUpperCase() + words.slice(1);
  return server === BOARD_SERVER ? `${sentence} on the board` : `${sentence} (${server.replace(/[_-]+/g, " ")})`;
}
