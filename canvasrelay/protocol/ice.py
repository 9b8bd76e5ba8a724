"""ICE server lists, the rendezvous URLs and TURN credentials, as the room link and `--ice-server` give them.

Hub and guests share this: both ask the rendezvous for short-lived TURN credentials before each
ICE start (`TurnClient`), and put them first, since aiortc uses only the first TURN server. The
servers are plain data here; only `rtc_configuration` turns them into aiortc's, so the server
can start without importing aiortc (half a second) and load it once it is up.
"""

from __future__ import annotations

import logging
import time
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import unquote, urlsplit

import aiohttp

from canvasrelay.protocol import signal_crypto

log = logging.getLogger(__name__)

TURN_FETCH_TIMEOUT = 3.0
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


@dataclass
class TurnClient:
    """Short-lived TURN credentials for one room, fetched from the rendezvous with the room's proof.

    A credential is checked only when a relay is allocated, so one with half its life left is as
    good as a fresh one for an ICE start; beyond that a new one is fetched.
    """

    room_id: str
    room_key: str
    servers: list[IceServer] = field(default_factory=list)
    fresh_until: float = 0.0

    async def fetch(self, session: aiohttp.ClientSession, signal_url: str) -> list[IceServer]:
        """The rendezvous's TURN servers with credentials, or none if it has none or cannot be asked."""
        if time.monotonic() < self.fresh_until:
            return self.servers
        body = {"topic": signal_crypto.topic(self.room_key), "proof": signal_crypto.turn_proof(self.room_key)}
        try:
            async with session.post(
                turn_endpoint_for(signal_url), json=body, timeout=aiohttp.ClientTimeout(total=TURN_FETCH_TIMEOUT)
            ) as response:
                if response.status != 200:
                    log.warning("the rendezvous refused TURN credentials (HTTP %s)", response.status)
                    return []
                answer = await response.json(content_type=None)
        except (aiohttp.ClientError, TimeoutError, ValueError) as exc:
            log.warning("could not ask the rendezvous for TURN credentials (%s)", type(exc).__name__)
            return []
        self.servers = _parse_servers(answer)
        ttl = answer.get("ttl") if isinstance(answer, dict) else None
        self.fresh_until = time.monotonic() + (ttl / 2 if isinstance(ttl, int | float) and self.servers else 0)
        return self.servers


def _parse_servers(answer: Any) -> list[IceServer]:
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
