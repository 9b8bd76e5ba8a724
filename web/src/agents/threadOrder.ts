import type { Item } from "./sessionLog";

/**
 * The thread as a person reads it: a permission asked for a tool call comes before that call's row,
 * whose output the answer let happen (the fold keeps them in the order the agent announced them:
 * the call first, its permission after). Everything else keeps its place.
 */
export function askedBeforeRun(items: readonly Item[]): readonly Item[] {
  const asked = new Map<string, Item[]>();
  for (const item of items) {
    if (item.type === "permission" && item.toolCallId) asked.set(item.toolCallId, [...(asked.get(item.toolCallId) ?? []), item]);
  }
  if (asked.size === 0) return items;
  const calls = new Set(items.flatMap((item) => (item.type === "tool" ? [item.toolCallId] : [])));
  const moved = (item: Item) => item.type === "permission" && item.toolCallId !== null && calls.has(item.toolCallId);
  if (!items.some(moved)) return items;
  return items.flatMap((item) => {
    if (moved(item)) return [];
    return item.type === "tool" ? [...(asked.get(item.toolCallId) ?? []), item] : [item];
  });
}
