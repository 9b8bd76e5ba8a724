import type { ToolItem } from "../../protocol.gen";

/**
 * What a tool call gave back, in the shapes real agents send it: text content blocks (ACP's
 * way), else its raw output — a string (Claude), or an object with the command's output and
 * exit code (Codex: `aggregated_output`/`formatted_output`/`stdout`, `exit_code`).
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

export function toolOutput(tool: Pick<ToolItem, "content" | "rawOutput">): ToolOutput {
  const texts = tool.content.flatMap((block) =>
    block.type === "content" && block.content.type === "text" ? [block.content.text] : [],
  );
  const exit = field(tool.rawOutput, EXIT_KEYS);
  const exitCode = typeof exit === "number" ? exit : null;
  if (texts.length) return { text: texts.join("\n"), exitCode };
  const raw = typeof tool.rawOutput === "string" ? tool.rawOutput : field(tool.rawOutput, OUTPUT_KEYS);
  return { text: typeof raw === "string" ? raw : "", exitCode };
}

/** The text's lines, without the empty one after a final newline. */
export function outputLines(text: string): string[] {
  if (!text) return [];
  const lines = text.split("\n");
  if (lines.at(-1) === "") lines.pop();
  return lines;
}
