"""Short-lived TURN credentials from the rendezvous, asked for before each ICE start by the hub and the guests.

They go first in the ICE list, since aiortc uses only the first TURN server (libwebrtc uses them all).
"""

from __future__ import annotations

import logging
import time
from dataclasses import dataclass, field

import aiohttp

from canvasrelay.protocol import signal_crypto
from canvasrelay.protocol.ice import IceServer, parse_turn_servers, turn_endpoint_for

log = logging.getLogger(__name__)

TURN_FETCH_TIMEOUT = 3.0


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
        self.servers = parse_turn_servers(answer)
        ttl = answer.get("ttl") if isinstance(answer, dict) else None
        self.fresh_until = time.monotonic() + (ttl / 2 if isinstance(ttl, int | float) and self.servers else 0)
        return self.servers
