import { GUEST_ACCESS_LEVELS, type HubReply, type RoomAbout } from "../protocol.gen";

function isAccessLevel(value: unknown): value is RoomAbout["access"] {
  return (GUEST_ACCESS_LEVELS as readonly unknown[]).includes(value);
}

function stringOrNull(value: unknown): string | null {
  return typeof value === "string" ? value : null;
}

/**
 * The hub's reply read field by field, as the models read it: what the hub leaves out takes the model's
 * default, what it adds is left behind. Null when a field the reply needs is missing or of the wrong kind:
 * anyone who holds the room link can write to the rendezvous, so a reply that opened is still untrusted.
 */
export function readHubReply(message: Record<string, unknown>): HubReply | null {
  const { kind, to } = message;
  if (typeof to !== "string") return null;
  if (kind === "answer") return typeof message.sdp === "string" ? { kind, to, sdp: message.sdp } : null;
  if (kind === "withdrawn") return { kind, to, reason: typeof message.reason === "string" ? message.reason : "" };
  if (kind !== "about" || typeof message.project !== "string" || !isAccessLevel(message.access)) return null;
  return { kind, to, project: message.project, host: stringOrNull(message.host), access: message.access, name: stringOrNull(message.name) };
}
