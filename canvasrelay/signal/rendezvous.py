"""The rendezvous (`/signal`): a blind relay of opaque envelopes between the sockets on one topic.

It knows nothing of rooms, keys or peers: a socket names its topic in the query string, and every
text message it sends is forwarded verbatim to the other sockets on that topic. It bounds what one
socket can cost: envelope size, envelopes per second, sockets per topic, topics in all, and what
may wait to be written to it — a socket that does not read is cut off, never waited on.

Alone it is one process. Given a `Bus` (Redis, see `redis_bus`), any number of instances
serve any topic as one: each carries its local sockets' envelopes to the others through the bus.
A host may register a TURN verifier for its topic (`?turn=`), so that holders of its room link can
get relay credentials at `/turn` from any instance (see `turn_credentials`).
"""

from __future__ import annotations

import asyncio
import contextlib
import hmac
import re
import resource
import secrets
import socket as sockets
from collections import Counter, deque
from collections.abc import Callable, Collection
from dataclasses import dataclass
from typing import Protocol, TypeVar
from urllib.parse import urlsplit

from aiohttp import WSMsgType, web

from canvasrelay.core.rate_limit import InboundGate
from canvasrelay.protocol.encoding import b64url
from canvasrelay.protocol.people import MAX_INVITES, MAX_REVOKED
from canvasrelay.protocol.signal_crypto import topic_of_verifier
from canvasrelay.signal.client_address import client_address
from canvasrelay.signal.metrics import RendezvousMetrics
from canvasrelay.signal.turn_credentials import TurnConfig, TurnIssuer

MAX_ENVELOPE_BYTES = 64 * 1024
"""An SDP offer with its candidates is a few KB; anything much larger is abuse."""
RATE_PER_SECOND = 20.0
BURST = 40.0
MAX_SOCKETS_PER_TOPIC = 64
MAX_TOPICS = 10_000
SOCKETS_PER_ADDRESS = MAX_INVITES + MAX_REVOKED + 64
"""Sockets one address may hold in all: a host listens on one topic per invitation (withdrawn ones
too, to say so), and a household or an office behind one address joins rooms…"""
SOCKETS_PER_ADDRESS_ON_TOPIC = 16
"""…and on one topic: a link holder's share of a room's topic, never the whole of it."""
FD_RESERVE = 256
"""File descriptors the rendezvous leaves to the rest of the process (the host's page, the API,
agents, guests' connections): it holds at most the soft limit less this many sockets."""
FIRST_WORD_S = 10.0
"""A socket that sends nothing this long after it opened is closed…"""
IDLE_S = 30.0
"""…and so is one silent this long since its last envelope: a guest's socket lives for one
handshake. A host's (registered with its verifier) stays: it waits for guests."""
OUTBOX_BYTES = 1024 * 1024
"""What may wait to be written to one socket; past it the socket is cut off."""
SEND_BUFFER_BYTES = 256 * 1024
"""The kernel's send buffer per socket: left to itself it grows to megabytes for a peer that never reads."""
HEARTBEAT = 20.0
CLOSE_POLICY = 4408
CLOSE_BAD_TOPIC = 4400
CLOSE_FULL = 4429
CLOSE_IDLE = 4000
CLOSE_GOING_AWAY = 1001

K = TypeVar("K")
_TOPIC = re.compile(r"^[A-Za-z0-9_-]{43}$")

Deliver = Callable[[str, str], None]
"""(topic, envelope) -> hand it to this instance's sockets on that topic."""


class Bus(Protocol):
    """How envelopes reach the sockets on other instances."""

    async def start(
        self, deliver: Deliver, local_topics: Callable[[], Collection[str]], lost: Callable[[int], None]
    ) -> None:
        """Hand what the others send to `deliver`; report envelopes that could not be sent to `lost`."""

    async def close(self) -> None: ...
    async def sync(self, topic: str) -> None:
        """Subscribe to `topic` if it is among the local topics, unsubscribe if not."""

    def publish(self, topic: str, envelope: str) -> bool:
        """Queue `envelope` for the other instances without waiting; False if it was dropped."""

    async def ready(self) -> bool: ...


class Verifiers(Protocol):
    """The TURN verifiers that live host sockets registered, per topic."""

    async def add(self, topic: str, verifier: str) -> None: ...
    async def remove(self, topic: str, verifier: str) -> None: ...
    async def holds(self, topic: str, verifier: str) -> bool: ...


class LocalVerifiers:
    def __init__(self) -> None:
        self.counts: Counter[tuple[str, str]] = Counter()

    async def add(self, topic: str, verifier: str) -> None:
        self.counts[topic, verifier] += 1

    async def remove(self, topic: str, verifier: str) -> None:
        self.counts[topic, verifier] -= 1
        if self.counts[topic, verifier] <= 0:
            del self.counts[topic, verifier]

    async def holds(self, topic: str, verifier: str) -> bool:
        return self.counts[topic, verifier] > 0


class _Socket:
    """One signalling socket and what waits to be written to it, written by a task of its own."""

    def __init__(self, ws: web.WebSocketResponse, request: web.Request) -> None:
        self.ws = ws
        self.request = request
        self.hears_sources = False
        """A host's socket: each envelope comes to it with its sender's source tag in front."""
        self.queue: deque[str] = deque()
        self.queued = 0
        self.wake = asyncio.Event()
        self.writer: asyncio.Task[None] | None = None
        self.dead = False

    def start(self) -> None:
        raw = self.request.transport.get_extra_info("socket") if self.request.transport else None
        if raw is not None:
            raw.setsockopt(sockets.SOL_SOCKET, sockets.SO_SNDBUF, SEND_BUFFER_BYTES)
        self.writer = asyncio.get_running_loop().create_task(self._write())

    def offer(self, envelope: str) -> bool:
        """Queue `envelope`; False if this socket already has too much waiting for it."""
        if self.queued + len(envelope) > OUTBOX_BYTES:
            return False
        self.queue.append(envelope)
        self.queued += len(envelope)
        self.wake.set()
        return True

    async def _write(self) -> None:
        with contextlib.suppress(ConnectionError, RuntimeError):
            while True:
                await self.wake.wait()
                self.wake.clear()
                while self.queue:
                    envelope = self.queue.popleft()
                    self.queued -= len(envelope)
                    await self.ws.send_str(envelope)

    async def stop(self) -> None:
        if self.writer is not None:
            self.writer.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self.writer

    def cut(self) -> None:
        """Drop the connection without a closing handshake: the peer is not reading anyway."""
        self.dead = True
        if self.writer is not None:
            self.writer.cancel()
        if self.request.transport is not None:
            self.request.transport.abort()


@dataclass(frozen=True)
class Limits:
    per_address: int = SOCKETS_PER_ADDRESS
    per_address_on_topic: int = SOCKETS_PER_ADDRESS_ON_TOPIC
    sockets: int = 0
    """In all; 0 takes the file-descriptor limit less `FD_RESERVE`."""
    first_word_s: float = FIRST_WORD_S
    idle_s: float = IDLE_S

    def total(self) -> int:
        if self.sockets:
            return self.sockets
        soft, _ = resource.getrlimit(resource.RLIMIT_NOFILE)
        return max(16, soft - FD_RESERVE) if soft != resource.RLIM_INFINITY else 1 << 20


def origin_netloc(url: str) -> str:
    return urlsplit(url).netloc.lower()


class Rendezvous:
    def __init__(
        self,
        bus: Bus | None = None,
        verifiers: Verifiers | None = None,
        turn: TurnConfig | None = None,
        forwarded_for: bool = False,
        origins: Collection[str] = (),
        limits: Limits | None = None,
    ) -> None:
        self.topics: dict[str, set[_Socket]] = {}
        self.forwarded_for = forwarded_for
        self.origins = {origin_netloc(origin) for origin in origins}
        """Where pages that may open a socket come from, besides this server's own origin."""
        self.limits = limits or Limits()
        self._tag_key = secrets.token_bytes(32)
        self.max_sockets = self.limits.total()
        self.sockets = 0
        self.per_address: Counter[str] = Counter()
        self.per_address_topic: Counter[tuple[str, str]] = Counter()
        self.bus = bus
        self.verifiers: Verifiers = verifiers or LocalVerifiers()
        self.metrics = RendezvousMetrics()
        self.metrics.redis_ready.set(0 if bus else 1)
        self.turn = TurnIssuer(turn, self.verifiers.holds, self.metrics, forwarded_for)

    async def start(self) -> None:
        if self.bus is not None:
            lost = self.metrics.drops.labels("redis").inc
            await self.bus.start(self.deliver_remote, lambda: self.topics.keys(), lost)

    async def close(self) -> None:
        if self.bus is not None:
            await self.bus.close()

    async def ready(self) -> bool:
        up = self.bus is None or await self.bus.ready()
        self.metrics.redis_ready.set(1 if up else 0)
        return up

    async def close_all(self, _app: web.Application | None = None) -> None:
        """The server stops: every socket is told (going away) rather than left for the server to cut."""
        open_sockets = [socket.ws for peers in self.topics.values() for socket in peers]
        await asyncio.gather(*(ws.close(code=CLOSE_GOING_AWAY, message=b"stopping") for ws in open_sockets))

    def _refusal(self, request: web.Request, address: str, name: str) -> web.Response | None:
        """An HTTP answer (and the connection closed) for a socket refused before it opens."""
        origin = request.headers.get("Origin")
        # `canvas join` sends none; a browser always does, and a page from elsewhere gets nothing.
        if origin is not None and origin_netloc(origin) not in self.origins | {request.host.lower()}:
            return _closing(403, "this page's origin may not use this rendezvous")
        if self.sockets >= self.max_sockets:
            return _closing(503, "the rendezvous is full")
        if self.per_address[address] >= self.limits.per_address:
            return _closing(429, "too many sockets from your address")
        if self.per_address_topic[address, name] >= self.limits.per_address_on_topic:
            return _closing(429, "too many sockets from your address on this topic")
        return None

    async def handler(self, request: web.Request) -> web.StreamResponse:
        address = client_address(request, self.forwarded_for)
        name = request.query.get("topic", "")
        refusal = self._refusal(request, address, name)
        if refusal is not None:
            self.metrics.drops.labels("refused").inc()
            return refusal
        ws = web.WebSocketResponse(heartbeat=HEARTBEAT, max_msg_size=MAX_ENVELOPE_BYTES)
        verifier = request.query.get("turn")
        # A verifier is registered only for the topic it derives: a host's for its own room's.
        registers = verifier is not None and _TOPIC.match(verifier) and topic_of_verifier(verifier) == name
        if not _TOPIC.match(name) or (verifier is not None and not registers):
            await ws.prepare(request)
            await ws.close(code=CLOSE_BAD_TOPIC, message=b"bad topic")
            return ws
        peers = self.topics.get(name)
        full = len(peers) >= MAX_SOCKETS_PER_TOPIC if peers is not None else len(self.topics) >= MAX_TOPICS
        if full:
            await ws.prepare(request)
            await ws.close(code=CLOSE_FULL, message=b"topic full")
            return ws
        peers = self.topics.setdefault(name, set())
        socket = _Socket(ws, request)
        socket.hears_sources = verifier is not None
        peers.add(socket)
        self._hold(address, name, 1)
        self._count()
        try:
            if self.bus is not None and len(peers) == 1:
                # Subscribed before the socket opens: what others send once it is open reaches it.
                await self.bus.sync(name)
            if verifier is not None:
                await self.verifiers.add(name, verifier)
            await ws.prepare(request)
            socket.start()
            await self._relay(name, socket, self._tag(address), waits=verifier is not None)
        finally:
            await socket.stop()
            peers.discard(socket)
            self._hold(address, name, -1)
            if verifier is not None:
                await self.verifiers.remove(name, verifier)
            if not peers and self.topics.get(name) is peers:
                del self.topics[name]
                if self.bus is not None:
                    await self.bus.sync(name)
            self._count()
        return ws

    def _hold(self, address: str, name: str, change: int) -> None:
        self.sockets += change
        _count_in(self.per_address, address, change)
        _count_in(self.per_address_topic, (address, name), change)

    def _tag(self, address: str) -> str:
        """Who sent an envelope, as a host may count it: the same for every socket from one
        address, and telling nothing of the address."""
        return b64url(hmac.digest(self._tag_key, address.encode("utf-8", "replace"), "sha256")[:9])

    async def _relay(self, name: str, socket: _Socket, tag: str, waits: bool) -> None:
        """Relay what `socket` sends; a socket that is not a host's and falls silent is closed."""
        bucket = InboundGate(RATE_PER_SECOND, BURST)
        silence = self.limits.first_word_s
        while True:
            try:
                msg = await socket.ws.receive(timeout=None if waits else silence)
            except TimeoutError:
                self.metrics.drops.labels("idle").inc()
                await socket.stop()
                await socket.ws.close(code=CLOSE_IDLE, message=b"idle")
                return
            if msg.type in (WSMsgType.CLOSE, WSMsgType.CLOSING, WSMsgType.CLOSED, WSMsgType.ERROR):
                return
            if msg.type is not WSMsgType.TEXT:
                continue
            silence = self.limits.idle_s
            if not bucket.admit():
                # A flooding socket is cut off rather than slowed, so it cannot crowd the topic.
                self.metrics.drops.labels("rate").inc()
                await socket.stop()
                await socket.ws.close(code=CLOSE_POLICY, message=b"too many envelopes")
                return
            tagged = f"{tag} {msg.data}"
            self._deliver(name, tagged, "local", sender=socket)
            if self.bus is not None:
                if self.bus.publish(name, tagged):
                    self.metrics.published.inc()
                else:
                    self.metrics.drops.labels("redis").inc()
            # Let the writers run between envelopes, or a burst overruns even a reader that keeps up.
            await asyncio.sleep(0)

    def deliver_remote(self, topic: str, tagged: str) -> None:
        self._deliver(topic, tagged if " " in tagged else f" {tagged}", "redis", sender=None)

    def _deliver(self, topic: str, tagged: str, source: str, sender: _Socket | None) -> None:
        """Hand `tagged` ("<source tag> <envelope>") to the topic's other sockets: whole to a host's,
        the envelope alone to the rest (an envelope is base64url: it holds no space)."""
        envelope = tagged.partition(" ")[2]
        for other in list(self.topics.get(topic, ())):
            if other is sender or other.dead or other.ws.closed:
                continue
            if other.offer(tagged if other.hears_sources else envelope):
                self.metrics.relayed.labels(source).inc()
            else:
                self.metrics.drops.labels("slow-socket").inc()
                other.cut()

    def _count(self) -> None:
        self.metrics.topics.set(len(self.topics))
        self.metrics.sockets.set(sum(len(peers) for peers in self.topics.values()))


def _count_in(counter: Counter[K], key: K, change: int) -> None:
    """Counters keep no zeros: an address that left holds no memory."""
    counter[key] += change
    if counter[key] <= 0:
        del counter[key]


def _closing(status: int, reason: str) -> web.Response:
    response = web.Response(status=status, text=reason + "\n")
    # Answered and closed: a refused socket must not keep its connection (and its descriptor).
    response.force_close()
    return response


def add_routes(app: web.Application, rendezvous: Rendezvous | None = None) -> Rendezvous:
    """`/signal` and `/turn`; the rendezvous starts and stops with the app."""
    rendezvous = rendezvous or Rendezvous()
    app.router.add_get("/signal", rendezvous.handler)
    app.router.add_route("POST", "/turn", rendezvous.turn.handler)
    app.router.add_route("OPTIONS", "/turn", rendezvous.turn.handler)

    async def start(_app: web.Application) -> None:
        await rendezvous.start()

    async def close(_app: web.Application) -> None:
        await rendezvous.close()

    app.on_startup.append(start)
    app.on_shutdown.append(rendezvous.close_all)
    app.on_cleanup.append(close)
    return rendezvous


def add_ops_routes(app: web.Application, rendezvous: Rendezvous) -> None:
    """`/healthz` (the process answers), `/readyz` (and its Redis too) and `/metrics`, for a load balancer."""

    async def healthz(_request: web.Request) -> web.Response:
        return web.Response(text="ok\n")

    async def readyz(_request: web.Request) -> web.Response:
        if await rendezvous.ready():
            return web.Response(text="ready\n")
        return web.Response(status=503, text="not ready: Redis is unreachable\n")

    async def metrics(_request: web.Request) -> web.Response:
        await rendezvous.ready()
        body, content_type = rendezvous.metrics.exposition()
        return web.Response(body=body, headers={"Content-Type": content_type})

    app.router.add_get("/healthz", healthz)
    app.router.add_get("/readyz", readyz)
    app.router.add_get("/metrics", metrics)
