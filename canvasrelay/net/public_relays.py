"""The public Nostr relays a room link may name, and the choice among them made at each start.

Public relays come and go and throttle (a client library's default list changed in 29 commits;
announcing on a timer once took a relay down at 4,000 events a second), so no entry here is
trusted to be up: at start, in the background, the host publishes one ephemeral event on each
and reads it back, and the first `WANTED` that do so within `PROBE_TIMEOUT_S` are the ones new
links name. A guest tries every relay its link names. `--relays` replaces this list.
"""

from __future__ import annotations

import asyncio
import os
from dataclasses import dataclass

import aiohttp

from canvasrelay.net.nostr_relay import probe

WANTED = 3
PROBE_TIMEOUT_S = 2.0
ENV = "CANVAS_RELAYS"
"""The relays `canvas serve` uses when `--relays` is not given: a comma-separated list, or empty for none."""


@dataclass(frozen=True)
class PublicRelay:
    url: str
    why: str


DEFAULT_RELAYS = (
    PublicRelay("wss://relay.damus.io", "one of the largest general relays, run by Damus's team since 2022"),
    PublicRelay("wss://nos.lol", "a large general relay with no sign-up, long the default of many clients"),
    PublicRelay("wss://relay.primal.net", "Primal's relay, on its own infrastructure, free to publish to"),
    PublicRelay("wss://relay.snort.social", "Snort's relay, in the default lists of several clients"),
    PublicRelay("wss://nostr.mom", "an independent general relay that accepts ephemeral kinds"),
    PublicRelay("wss://offchain.pub", "an independent general relay, in several clients' defaults"),
)
"""Each in several Nostr clients' default lists and free to publish to; spread over operators,
so that one operator's outage or policy change leaves the others."""


PUBLIC_STUN = ("stun:stun.l.google.com:19302", "stun:stun.cloudflare.com:3478")
"""What `canvas serve` and its guests ask their public address of when the host names no ICE server
and guests come through public relays: two operators, so that one's outage leaves the other. A STUN
server learns the asker's address and when it asked; nothing of the room."""


def urls() -> list[str]:
    return [relay.url for relay in DEFAULT_RELAYS]


def parse_list(text: str) -> list[str]:
    """`wss://a,wss://b` as a list; refuses anything but ws:// and wss:// addresses."""
    found = [part.strip() for part in text.split(",") if part.strip()]
    bad = [url for url in found if not url.startswith(("wss://", "ws://")) or any(c in url for c in " #&")]
    if bad:
        raise ValueError(f"not a relay address (wss://host/…): {', '.join(bad)}")
    return found


def from_env() -> list[str] | None:
    """`CANVAS_RELAYS` when set (empty: no relays), else None: the curated ones."""
    text = os.environ.get(ENV)
    return None if text is None else parse_list(text)


async def choose(urls: list[str], session: aiohttp.ClientSession, wanted: int = WANTED) -> list[str]:
    """The first `wanted` of `urls` to carry an event within the probe's time, fastest first."""

    async def timed(url: str) -> tuple[str, float | None]:
        return url, await probe(url, session, PROBE_TIMEOUT_S)

    probes = [asyncio.ensure_future(timed(url)) for url in dict.fromkeys(urls)]
    chosen: list[str] = []
    try:
        for finished in asyncio.as_completed(probes):
            url, seconds = await finished
            if seconds is not None:
                chosen.append(url)
            if len(chosen) == wanted:
                break
    finally:
        for task in probes:
            task.cancel()
        await asyncio.gather(*probes, return_exceptions=True)
    return chosen
