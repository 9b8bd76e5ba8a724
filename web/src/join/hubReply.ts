import { GUEST_ACCESS_LEVELS, type HubReply, type JsonValue, type RoomAbout } from "../protocol.gen";

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
  const about: RoomAbout = {
    kind,
    to,
    project: message.project,
    host: stringOrNull(message.host),
    access: message.access,
    name: stringOrNull(message.name),
    iceServers: turnServers(message.iceServers),
  };
  return about;
}

const MAX_TURN_SERVERS = 4;

/** The TURN servers the host minted credentials for, as `ice.parse_turn_servers` reads them: at most a
 * few, each with `turn` URLs and string credentials; anything else is left behind. */
function turnServers(listed: unknown): Record<string, JsonValue>[] {
  if (!Array.isArray(listed)) return [];
  const servers: Record<string, JsonValue>[] = [];
  for (const item of listed.slice(0, MAX_TURN_SERVERS)) {
    if (typeof item !== "object" || item === null) continue;
    const { urls, username, credential } = item as Record<string, unknown>;
    const list = typeof urls === "string" ? [urls] : urls;
    const turnOnly = Array.isArray(list) && list.length > 0 && list.every((url) => typeof url === "string" && url.startsWith("turn"));
    if (turnOnly && typeof username === "string" && typeof credential === "string") {
      servers.push({ urls: list as string[], username, credential });
    }
  }
  return servers;
}
