import type { UserItem } from "../protocol.gen";

/** A prompt in the thread, as people read it. */
export interface PromptShown {
  /** What its author wrote: shown, and put back in the box by "Edit and send again". */
  written: string;
  /** For the host, what the agent got when it differs (a guest's prompt arrives named), else null. */
  agentGot: string | null;
}

/** A guest's prompt reaches the agent named (`Ada (guest, edit): …`); the turn keeps the guest's own words too. */
export function promptShown(item: Pick<UserItem, "text" | "asWritten">, isHost: boolean): PromptShown {
  const written = item.asWritten ?? item.text;
  return { written, agentGot: isHost && written !== item.text ? item.text : null };
}

/** Who sent a prompt. */
export type Prompted = Pick<UserItem, "author" | "byHost">;

/** Who sent a prompt, in words: "You" on the host's page for the host's own, else the name it was sent under. */
export function authorShown(prompt: Prompted, isHost: boolean): string | null {
  return isHost && prompt.byHost ? "You" : prompt.author;
}
