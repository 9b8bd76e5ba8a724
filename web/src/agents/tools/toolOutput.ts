import type { ToolItem } from "../../protocol.gen";

/**
 * What a tool call gave back, in the shapes real agents send it: text content blocks (ACP's
 * way), else its raw output — a string (Claude), or an object with the command's output and
 * exit code (Codex: `aggregated_output`/`formatted_output`/`stdout`, `exit_code`).
 * What only carried it is dropped: a Markdown fence around the whole output and the reminders an
 * agent injects for its model (Claude's `<system-reminder>`); a leading "Exit code N" line
 * (Claude's failed command) becomes the exit code.
 */
export interface ToolOutput {
  text: string;
  exitCode: number | null;
}

const OUTPUT_KEYS = ["aggregated_output", "formatted_output", "output", "stdout"] as const;
const EXIT_KEYS = ["exit_code", "exitCode"] as const;

function field(raw: unknown, keys: readonly string[]): unknown {
  if (typeof raw !== "object" || raw === null) return undefined;
  for (const key of keys) {
    const value = (raw as Record<string, unknown>)[key];
    if (value !== undefined && value !== null) return value;
  }
  return undefined;
}

const REMINDER = /\n*<system-reminder>[\s\S]*?<\/system-reminder>\n*/g;
const FENCED = /^(`{3,})[^`\n]*\n([\s\S]*?)\n?\1[ \t]*$/;
const EXIT_LINE = /^Exit code (\d+)(?:\n|$)/;

export function toolOutput(tool: Pick<ToolItem, "content" | "rawOutput">): ToolOutput {
  const texts = tool.content.flatMap((block) =>
    block.type === "content" && block.content.type === "text" ? [unwrapped(block.content.text)] : [],
  );
  const exit = field(tool.rawOutput, EXIT_KEYS);
  const given = typeof exit === "number" ? exit : null;
  const raw = typeof tool.rawOutput === "string" ? tool.rawOutput : field(tool.rawOutput, OUTPUT_KEYS);
  const text = texts.length ? texts.join("\n") : typeof raw === "string" ? unwrapped(raw) : "";
  const line = EXIT_LINE.exec(text);
  if (line && given === null) return { text: text.slice(line[0].length), exitCode: Number(line[1]) };
  return { text, exitCode: given };
}

/** The output without what only carried it: injected reminders, then one fence around it all. */
function unwrapped(text: string): string {
  const plain = text.replace(REMINDER, "\n");
  const fenced = FENCED.exec(plain.trim());
  if (fenced) return fenced[2];
  return plain === text ? text : plain.replace(/^\n+|\n+$/g, "");
}

/** The text's lines, without the empty one after a final newline. */
export function outputLines(text: string): string[] {
  if (!text) return [];
  const lines = text.split("\n");
  if (lines.at(-1) === "") lines.pop();
  return lines;
}
