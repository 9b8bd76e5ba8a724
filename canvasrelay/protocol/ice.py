"""ICE server lists, the rendezvous URLs and TURN credentials, as the room link and `--ice-server` give them.

Plain data and parsing only: asking the rendezvous for credentials is `canvasrelay.net.turn_client`'s,
and turning the servers into a WebRTC library's configuration is `canvasrelay.net`'s, so the server can
start without importing that library (a third of a second or more) and load it once it is up.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any
from urllib.parse import unquote, urlsplit

MAX_TURN_SERVERS = 4


@dataclass(frozen=True)
class IceServer:
    """One STUN or TURN server, with its credentials if it has any."""

    urls: tuple[str, ...]
    username: str | None = None
    credential: str | None = None

    @property
    def is_relay(self) -> bool:
        return all(url.startswith("turn") for url in self.urls)


def ice_servers(urls: list[str]) -> list[IceServer]:
    """`--ice-server` values: `stun:host:port`, or `turn:user:pass@host:port` with credentials."""
    servers = []
    for url in urls:
        scheme, _, rest = url.partition(":")
        if "@" in rest:
            creds, _, where = rest.rpartition("@")
            user, _, password = creds.partition(":")
            servers.append(IceServer((f"{scheme}:{where}",), username=unquote(user), credential=unquote(password)))
        else:
            servers.append(IceServer((url,)))
    return servers


def servers_to_use(urls: list[str], turn: list[IceServer], relay_only: bool) -> list[IceServer]:
    """The rendezvous's TURN servers first, then `--ice-server`'s; relay-only keeps the TURN ones alone,
    since with a STUN server configured aiortc still gathers server-reflexive candidates."""
    servers = [*turn, *ice_servers(urls)]
    return [server for server in servers if server.is_relay] if relay_only else servers


def signal_urls(value: str) -> list[str]:
    """`--signal` and the link's `signal=` may list several rendezvous, tried in turn when one fails."""
    return [url.strip() for url in value.split(",") if url.strip()]


def signal_url_for(base_url: str) -> str:
    parts = urlsplit(base_url)
    scheme = "wss" if parts.scheme == "https" else "ws"
    return f"{scheme}://{parts.netloc}/signal"


def turn_endpoint_for(signal_url: str) -> str:
    """Where the rendezvous at `signal_url` hands out TURN credentials."""
    parts = urlsplit(signal_url)
    scheme = "https" if parts.scheme == "wss" else "http"
    return f"{scheme}://{parts.netloc}{parts.path.removesuffix('/signal')}/turn"


def parse_turn_servers(answer: Any) -> list[IceServer]:
    """The TURN servers in the rendezvous's untrusted answer: at most a few, each with string credentials."""
    listed = answer.get("iceServers") if isinstance(answer, dict) else None
    servers = []
    for item in listed[:MAX_TURN_SERVERS] if isinstance(listed, list) else []:
        urls = item.get("urls") if isinstance(item, dict) else None
        if isinstance(urls, str):
            urls = [urls]
        if not (isinstance(urls, list) and urls and all(isinstance(u, str) and u.startswith("turn") for u in urls)):
            continue
        username, credential = item.get("username"), item.get("credential")
        if isinstance(username, str) and isinstance(credential, str):
            servers.append(IceServer(tuple(urls), username=username, credential=credential))
    return servers
