import type { AvailableCommand } from "../protocol.gen";

/**
 * The agent's commands that fit what is typed: while the prompt is `/` and part of a name (no
 * space yet), those whose name starts with it; otherwise none.
 */
export function matchingCommands(draft: string, commands: readonly AvailableCommand[]): AvailableCommand[] {
  const typed = /^\/(\S*)$/.exec(draft);
  if (!typed) return [];
  const start = typed[1].toLowerCase();
  return commands.filter((command) => command.name.toLowerCase().startsWith(start));
}

/** The prompt once a command is picked: its name, then room for its input. */
export function withCommand(command: AvailableCommand): string {
  return `/${command.name} `;
}
