"""What a page canvas serves may load and reach: its Content-Security-Policy (adr/0028).

A page runs the bundle it was built with and nothing else: scripts and style sheets from its own
origin, images from itself or held in the page (`data:`, `blob:`), no plugins, frames, forms or
`<base>`. What agents and guests write is drawn without fetching anything; this is the wall behind
that, so a sanitiser's miss still sends nothing anywhere. Only `connect-src` differs by server:
`canvas serve` knows the rendezvous its links name, `canvas signal` serves guest pages whose links
may name any rendezvous (the page narrows itself to its own link once it has read it).
"""

from __future__ import annotations

import base64
import hashlib
import json
import re
from collections.abc import Iterable
from pathlib import Path
from urllib.parse import urlsplit

from aiohttp import web
from aiohttp.typedefs import Handler

from canvasrelay.protocol.ice import signal_urls, turn_endpoint_for

# xterm's DOM renderer sizes and colours its rows through <style> elements it writes, so style
# elements may be inline; style attributes may not (React and xterm set styles through the CSSOM,
# which CSP does not govern). A browser without the -elem/-attr directives falls back to style-src.
# What a style sheet fetches (url(), @import) still meets img-src and style-src-elem. The list is
# one file the built page's own policy (web/vite.config.ts) reads too.
BUNDLE_ONLY: tuple[str, ...] = tuple(json.loads(Path(__file__).with_name("policy.json").read_text())["bundleOnly"])
NOTHING = "default-src 'none'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"
"""For whatever else is served (JSON, errors, plain text): it is no page and loads nothing."""
ANY_RENDEZVOUS = ("https:", "wss:")
"""What a guest page on `canvas signal` may connect to: its link may name any rendezvous."""
ANY_PLAIN = ("http:", "ws:")
"""And a page served without TLS (a LAN, a test) also without it, as its link may then say."""
SECURITY_HEADERS = {
    "Referrer-Policy": "no-referrer",
    "X-Content-Type-Options": "nosniff",
    "X-Frame-Options": "DENY",
}
_HOST = re.compile(r"^[A-Za-z0-9.\-]+(:[0-9]{1,5})?$|^\[[0-9A-Fa-f:.]+\](:[0-9]{1,5})?$")
_PATH = re.compile(r"^[A-Za-z0-9._~%/\-]*$")
"""A path a source expression may carry as it is: no separators of the policy (`;`, `,`, space)."""


def bundle_policy(connect: Iterable[str]) -> str:
    """The policy of a page of the bundle that may open connections to `connect` (and itself)."""
    sources = " ".join(dict.fromkeys(["'self'", *connect]))
    return "; ".join([*BUNDLE_ONLY, f"connect-src {sources}"])


def self_contained_policy(html: str) -> str:
    """The policy of a page that holds its own script and style sheet (the API's docs): those, by
    their digests, and requests to its own origin; nothing else, not even images."""
    scripts, styles = (_digests(html, tag) for tag in ("script", "style"))
    return "; ".join(
        [
            "default-src 'none'",
            f"script-src {scripts}",
            f"style-src {styles}",
            "connect-src 'self'",
            "base-uri 'none'",
            "form-action 'none'",
            "frame-ancestors 'none'",
        ]
    )


def _digests(html: str, tag: str) -> str:
    bodies = re.findall(rf"<{tag}>(.*?)</{tag}>", html, re.DOTALL)
    return " ".join(f"'sha256-{_digest(body)}'" for body in bodies) or "'none'"


def _digest(body: str) -> str:
    return base64.b64encode(hashlib.sha256(body.encode("utf-8")).digest()).decode("ascii")


def own_sockets(request: web.Request) -> list[str]:
    """The page's own origin as WebSocket sources: browsers that do not count ws: as 'self' need them."""
    host = request.host
    return [f"ws://{host}", f"wss://{host}"] if _HOST.match(host) else []


def guest_page_connects(request: web.Request) -> list[str]:
    """The guest page on `canvas signal`: its link may name any rendezvous, so any (the page then
    allows only its own link's, `web/src/pagePolicy.ts`); without TLS only if the page has none."""
    return [*own_sockets(request), *ANY_RENDEZVOUS, *([] if request.secure else ANY_PLAIN)]


def rendezvous_sources(signal: str | None) -> list[str]:
    """Sources for the rendezvous `--signal` names (a list, comma-separated): each one's socket
    and the endpoint that hands out its TURN credentials, and nothing else of those hosts."""
    urls = signal_urls(signal or "")
    return socket_sources([*urls, *map(turn_endpoint_for, urls)])


def socket_sources(urls: Iterable[str]) -> list[str]:
    """`urls` as sources, each as exactly as a source can say it; one that is no web address, none."""
    return [source for source in map(_source, urls) if source is not None]


def _source(url: str) -> str | None:
    parts = urlsplit(url)
    if parts.scheme not in ("ws", "wss", "http", "https") or not _HOST.match(parts.netloc):
        return None
    path = parts.path if _PATH.match(parts.path) else ""
    return f"{parts.scheme}://{parts.netloc}{path}"


@web.middleware
async def security_headers(request: web.Request, handler: Handler) -> web.StreamResponse:
    """Every answer says it is no page to frame, sniff or refer from; one that set no policy of
    its own (a page does) may load nothing."""
    try:
        response = await handler(request)
    except web.HTTPException as refusal:
        _secure(refusal)
        raise
    _secure(response)
    return response


def _secure(response: web.StreamResponse) -> None:
    if response.prepared:
        return
    for key, value in SECURITY_HEADERS.items():
        response.headers.setdefault(key, value)
    response.headers.setdefault("Content-Security-Policy", NOTHING)
