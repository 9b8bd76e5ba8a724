import type { ToolItem } from "../../protocol.gen";
import { toolOutput } from "./toolOutput";

/**
 * What a board tool's call did, read from its answer: the board tools answer the model with the
 * item's id and the ids it removed, as JSON (`{"id": …, "removed": […]}`), which a person reads
 * as words and a way to the item instead.
 */
export interface BoardEdit {
  id: string;
  removed: string[];
  /** Whether the answer was the call's output text, which is then shown as these words alone. */
  inText: boolean;
}

function asEdit(value: unknown): Omit<BoardEdit, "inText"> | null {
  if (typeof value === "string") {
    try {
      return asEdit(JSON.parse(value));
    } catch {
      return null;
    }
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) return null;
  const { id, removed, ...rest } = value as Record<string, unknown>;
  const fits = typeof id === "string" && id.length > 0 && id.length <= 64 && Array.isArray(removed) && Object.keys(rest).length === 0;
  return fits && removed.every((entry) => typeof entry === "string") ? { id, removed: removed as string[] } : null;
}

/** The board edit a finished tool call made, from its output text or its raw output; null for any other call. */
export function boardEdit(tool: Pick<ToolItem, "content" | "rawOutput" | "status">): BoardEdit | null {
  if (tool.status !== "completed") return null;
  const text = toolOutput(tool).text.trim();
  const fromText = text.startsWith("{") ? asEdit(text) : null;
  if (fromText) return { ...fromText, inText: true };
  const fromRaw = asEdit(tool.rawOutput);
  return fromRaw && { ...fromRaw, inText: false };
}

/** The edit in words: what it took off the board, or that it is there. */
export function boardEditWords(edit: BoardEdit): string {
  const others = edit.removed.filter((id) => id !== edit.id).length;
  const arrows = others === 1 ? "1 arrow" : `${others} arrows`;
  if (edit.removed.includes(edit.id)) return others ? `Took it off the board, with ${arrows} attached to it.` : "Took it off the board.";
  return others ? `Done on the board; ${arrows} went with it.` : "Done on the board.";
}
