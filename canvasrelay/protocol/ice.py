"""ICE server lists and the rendezvous URL, as the room link and `--ice-server` give them, for hub and guests."""

from __future__ import annotations

from urllib.parse import unquote, urlsplit

from aiortc import RTCConfiguration, RTCIceServer


def ice_servers(urls: list[str]) -> list[RTCIceServer]:
    """`--ice-server` values: `stun:host:port`, or `turn:user:pass@host:port` with credentials."""
    servers = []
    for url in urls:
        scheme, _, rest = url.partition(":")
        if "@" in rest:
            creds, _, where = rest.rpartition("@")
            user, _, password = creds.partition(":")
            servers.append(RTCIceServer(f"{scheme}:{where}", username=unquote(user), credential=unquote(password)))
        else:
            servers.append(RTCIceServer(url))
    return servers


def rtc_configuration(urls: list[str]) -> RTCConfiguration:
    # An empty list, not None: aiortc's default is a public STUN server, which we must not call unasked.
    return RTCConfiguration(iceServers=ice_servers(urls))


def signal_url_for(base_url: str) -> str:
    parts = urlsplit(base_url)
    scheme = "wss" if parts.scheme == "https" else "ws"
    return f"{scheme}://{parts.netloc}/signal"
