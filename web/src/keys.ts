/**
 * React keys for a list whose items have no ids (queued prompts, plan entries): each item's own
 * words, numbered among equal ones. Unlike an index, an item keeps its key when one before it
 * goes, so React moves its row instead of rewriting every row after it.
 */
export function contentKeys<T>(items: readonly T[], contentOf: (item: T) => string): string[] {
  const seen = new Map<string, number>();
  return items.map((item) => {
    const content = contentOf(item);
    const n = seen.get(content) ?? 0;
    seen.set(content, n + 1);
    return `${n}:${content}`;
  });
}
