import type { Thread, ThreadItem } from "../protocol.gen";

/** What a thread's item says, in words (who wrote it, for a person's): the timeline's thread and an
 * agent's frame on the board as it was read the same lines. Plans and usage say nothing here. */
export function itemWords(item: ThreadItem): { author?: string; text: string } | null {
  switch (item.type) {
    case "user":
      return { author: item.author ?? "Someone", text: item.asWritten ?? item.text };
    case "message":
    case "thought":
    case "notice":
      return { text: item.text };
    case "tool":
      return { text: `${item.title || "A tool"} (${item.status})` };
    case "permission":
      return {
        text: `${item.title || "A permission"}: ${item.resolution ? (item.resolution.answer ?? "answered") : "waiting for the host"}`,
      };
    case "turn-end":
      return { text: item.error ? `The turn failed: ${item.error}` : "The turn ended." };
    default:
      return null;
  }
}

export const STATUS_WORDS: Record<Thread["status"], string> = {
  idle: "idle",
  running: "working",
  waiting: "waiting for an answer",
};

/** The thread as plain lines, its latest `last` of them: what an agent's frame showed then. */
export function threadText(thread: Thread | null, last = 30): string {
  if (!thread) return "Not started yet.";
  const lines = thread.items.flatMap((item) => {
    const words = itemWords(item);
    return words ? [words.author ? `${words.author}: ${words.text}` : words.text] : [];
  });
  return [...lines.slice(-last), `(${STATUS_WORDS[thread.status]})`].join("\n");
}
