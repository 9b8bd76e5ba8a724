/**
 * Where this page may connect, narrowed once it has read its link (adr/0028). The server's policy
 * lets a guest page reach whatever rendezvous a link could name; the page then allows only its own
 * link's rendezvous (and the host page only its own server), by a second policy of its own. A page
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
  return `${url.protocol}//${url.host}${PATH.test(url.pathname) ? url.pathname : ""}`;
}

/** The sources this page connects to: its own server, and for a guest page its link's rendezvous. */
export function connectSources(params: URLSearchParams, place: Place = location): string[] {
  const own = HOST.test(place.host) ? [`ws://${place.host}`, `wss://${place.host}`] : [];
  const signals = params.has("room") ? signalUrls(params, place) : [];
  const rendezvous = signals.flatMap((signal) => (source(signal) === null ? [] : [source(signal), source(turnEndpoint(signal))]));
  return [...new Set(["'self'", ...own, ...rendezvous.filter((found): found is string => found !== null)])];
}

/** Adds the page's own policy: from now on it connects only to `connectSources`. */
export function narrowConnections(params: URLSearchParams): void {
  const policy = document.createElement("meta");
  policy.httpEquiv = "Content-Security-Policy";
  policy.content = `connect-src ${connectSources(params).join(" ")}`;
  document.head.append(policy);
}
