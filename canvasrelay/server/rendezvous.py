"""The rendezvous (`/signal`): a blind relay of opaque envelopes between the sockets on one topic.

It knows nothing of rooms, keys or peers: a socket names its topic in the query string, and every
text message it sends is forwarded verbatim to the other sockets on that topic. It keeps no state
beyond the open sockets, and bounds what one socket can cost: envelope size, envelopes per second,
sockets per topic, topics in all.
"""

from __future__ import annotations

import asyncio
import re

from aiohttp import WSMsgType, web

from canvasrelay.core.rate_limit import InboundGate

MAX_ENVELOPE_BYTES = 64 * 1024
"""An SDP offer with its candidates is a few KB; anything much larger is abuse."""
RATE_PER_SECOND = 20.0
BURST = 40.0
MAX_SOCKETS_PER_TOPIC = 64
MAX_TOPICS = 10_000
HEARTBEAT = 20.0
CLOSE_POLICY = 4408
CLOSE_BAD_TOPIC = 4400
CLOSE_FULL = 4429
CLOSE_GOING_AWAY = 1001

_TOPIC = re.compile(r"^[A-Za-z0-9_-]{43}$")


class Rendezvous:
    def __init__(self) -> None:
        self.topics: dict[str, set[web.WebSocketResponse]] = {}

    async def close_all(self, _app: web.Application | None = None) -> None:
        """The server stops: every socket is told (going away) rather than left for the server to cut."""
        sockets = [ws for peers in self.topics.values() for ws in peers]
        await asyncio.gather(*(ws.close(code=CLOSE_GOING_AWAY, message=b"stopping") for ws in sockets))

    async def handler(self, request: web.Request) -> web.WebSocketResponse:
        ws = web.WebSocketResponse(heartbeat=HEARTBEAT, max_msg_size=MAX_ENVELOPE_BYTES)
        await ws.prepare(request)
        name = request.query.get("topic", "")
        if not _TOPIC.match(name):
            await ws.close(code=CLOSE_BAD_TOPIC, message=b"bad topic")
            return ws
        peers = self.topics.get(name)
        full = len(peers) >= MAX_SOCKETS_PER_TOPIC if peers is not None else len(self.topics) >= MAX_TOPICS
        if full:
            await ws.close(code=CLOSE_FULL, message=b"topic full")
            return ws
        peers = self.topics.setdefault(name, set())
        peers.add(ws)
        bucket = InboundGate(RATE_PER_SECOND, BURST)
        try:
            async for msg in ws:
                if msg.type is not WSMsgType.TEXT:
                    continue
                if not bucket.admit():
                    # A flooding socket is cut off rather than slowed, so it cannot crowd the topic.
                    await ws.close(code=CLOSE_POLICY, message=b"too many envelopes")
                    break
                for other in list(peers):
                    if other is not ws and not other.closed:
                        await other.send_str(msg.data)
        finally:
            peers.discard(ws)
            if not peers:
                self.topics.pop(name, None)
        return ws


def add_routes(app: web.Application, rendezvous: Rendezvous | None = None) -> Rendezvous:
    rendezvous = rendezvous or Rendezvous()
    app.router.add_get("/signal", rendezvous.handler)
    app.on_shutdown.append(rendezvous.close_all)
    return rendezvous
