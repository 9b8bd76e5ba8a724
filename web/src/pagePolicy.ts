/**
 * Where this page may connect, narrowed once it has read its link (adr/0028). The server's policy
 * lets a guest page reach whatever rendezvous or relay a link could name; the page then allows only its
 * own link's relays or rendezvous (and the host page only its own server), by a second policy of its own. A page
 * can only narrow what the server allows, so a link's words never widen it.
 */

/** Where a page's own host is, as `location` says it. */
export interface Place {
  protocol: string;
  host: string;
}

const HOST = /^[A-Za-z0-9.\-[\]:]+$/;
/** A path a source may carry as written: no separator of a policy (`;`, `,`, space). */
const PATH = /^[A-Za-z0-9._~%/-]*$/;

/** The rendezvous a room link names (`signal=`, comma-separated), or the page's own `/signal`. */
export function signalUrls(params: URLSearchParams, place: Place = location): string[] {
  const scheme = place.protocol === "https:" ? "wss" : "ws";
  return (params.get("signal") || `${scheme}://${place.host}/signal`).split(",").filter(Boolean);
}

/** At most this many of a link's relays are used (a link names three): a link's words cannot have a page open a hundred sockets. */
export const LINK_RELAYS_MAX = 8;

/**
 * The public Nostr relays a room link names (`nostr=`, comma-separated), as `canvas join` reads them:
 * WebSocket addresses only. When there are some, the page finds the host through them, not `/signal`.
 */
export function relayUrls(params: URLSearchParams): string[] {
  const named = (params.get("nostr") || "").split(",").filter((url) => url.startsWith("wss://") || url.startsWith("ws://"));
  return [...new Set(named)].slice(0, LINK_RELAYS_MAX);
}

/** Where the rendezvous at `signal` hands out TURN credentials. */
export function turnEndpoint(signal: string): string {
  const url = new URL(signal);
  url.protocol = url.protocol === "wss:" ? "https:" : "http:";
  url.pathname = url.pathname.replace(/\/signal$/, "") + "/turn";
  return url.toString();
}

/** `address` as a source of a policy, or null when it is no web address a source can say. */
function source(address: string): string | null {
  let url: URL;
  try {
    url = new URL(address);
  } catch {
    return null;
  }
  if (!["ws:", "wss:", "http:", "https:"].includes(url.protocol) || !HOST.test(url.host)) return null;
  // A bare address reads with the path "/", which a policy would read as every path: say none, as the server does.
  const path = url.pathname !== "/" && PATH.test(url.pathname) ? url.pathname : "";
  return `${url.protocol}//${url.host}${path}`;
}

/**
 * The sources this page connects to: its own server, and for a guest page its link's relays when it names
 * some (the page then reaches no rendezvous, nor one's TURN credentials), or else its link's rendezvous.
 */
export function connectSources(params: URLSearchParams, place: Place = location): string[] {
  const own = HOST.test(place.host) ? [`ws://${place.host}`, `wss://${place.host}`] : [];
  const relays = params.has("room") ? relayUrls(params) : [];
  const signals = params.has("room") && !relays.length ? signalUrls(params, place) : [];
  const rendezvous = signals.flatMap((signal) => (source(signal) === null ? [] : [source(signal), source(turnEndpoint(signal))]));
  const reached = [...relays.map(source), ...rendezvous].filter((found): found is string => found !== null);
  return [...new Set(["'self'", ...own, ...reached])];
}

/** Adds the page's own policy: from now on it connects only to `connectSources`. */
export function narrowConnections(params: URLSearchParams): void {
  const policy = document.createElement("meta");
  policy.httpEquiv = "Content-Security-Policy";
  policy.content = `connect-src ${connectSources(params).join(" ")}`;
  document.head.append(policy);
}
