"""The rendezvous across instances: envelopes travel on Redis pub/sub, TURN verifiers live in Redis keys.

Each instance subscribes to one exact channel per topic while it has local sockets on it (no
pattern subscriptions), publishes its sockets' envelopes there tagged with its instance id, and
drops its own echo. Delivery is at most once and in order per sender: clients retry what is lost.
The subscriber survives a Redis restart: it logs once, backs off, resubscribes and carries on.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import secrets
from collections import Counter, deque
from collections.abc import Callable, Collection
from typing import Any, TypedDict
from urllib.parse import urlsplit

import redis.asyncio as aioredis
from redis.asyncio.retry import Retry
from redis.backoff import NoBackoff
from redis.exceptions import RedisError

from canvasrelay.protocol.encoding import b64url
from canvasrelay.signal.rendezvous import Deliver

log = logging.getLogger(__name__)

CHANNEL_PREFIX = "canvas:signal:"
CONTROL_PREFIX = "canvas:instance:"
VERIFIER_PREFIX = "canvas:turn:"
HEALTH_CHECK_INTERVAL = 5
COMMAND_TIMEOUT = 2.0
SUBSCRIBE_WAIT = 2.0
"""How long a new socket waits for its topic's subscription before it opens anyway."""
RETRY_MAX = 2.0
"""Reconnecting is one TCP connect: cheap enough to try every two seconds through a long outage."""
VERIFIER_TTL = 90
"""A verifier outlives its host by at most this long when an instance dies without removing it."""
SUBSCRIBE_BATCH = 500
PUBLISH_QUEUE = 10_000
"""Envelopes waiting to go to Redis; past that they are dropped rather than held (Redis is away or slow)."""
PUBLISH_BATCH = 256


def connect(url: str, retries: int) -> aioredis.Redis:
    return aioredis.from_url(
        url,
        health_check_interval=HEALTH_CHECK_INTERVAL,
        socket_connect_timeout=COMMAND_TIMEOUT,
        socket_timeout=COMMAND_TIMEOUT,
        retry=Retry(NoBackoff(), retries),
    )


def describe(url: str) -> str:
    """The Redis URL without its password, fit for a log line."""
    parts = urlsplit(url)
    return f"{parts.scheme}://{parts.hostname or 'localhost'}:{parts.port or 6379}{parts.path}"


def channel(topic: str) -> str:
    return CHANNEL_PREFIX + topic


def _backoff(failures: int) -> float:
    return min(RETRY_MAX, 0.1 * 2**failures)


class PubSubMessage(TypedDict):
    """What redis-py's pub/sub hands over: a `subscribe` confirmation (`data` its count) or a `message`."""

    type: str
    pattern: bytes | None
    channel: bytes
    data: bytes | int


class RedisBus:
    def __init__(self, url: str) -> None:
        # Commands get one retry: after a Redis restart each pooled connection fails once, and a publish
        # lost that way would cost a guest a whole handshake. The subscriber gets none: its loop starts over.
        self.redis = connect(url, retries=1)
        self.subscriber = connect(url, retries=0)
        self.instance = b64url(secrets.token_bytes(9))
        self.verifiers = RedisVerifiers(self.redis, self.instance)
        self._deliver: Deliver | None = None
        self._local_topics: Callable[[], Collection[str]] = frozenset
        self._pubsub: Any = None
        self._subscribed: set[str] = set()
        self._confirmed: dict[str, asyncio.Event] = {}
        self._lock = asyncio.Lock()
        self._up = asyncio.Event()
        self._echo = f"{self.instance} ".encode()
        self._outbox: deque[tuple[str, str]] = deque()
        self._wake = asyncio.Event()
        self._lost: Callable[[int], None] = lambda _count: None
        self._tasks: list[asyncio.Task[None]] = []

    async def start(
        self, deliver: Deliver, local_topics: Callable[[], Collection[str]], lost: Callable[[int], None]
    ) -> None:
        self._deliver = deliver
        self._local_topics = local_topics
        self._lost = lost
        loop = asyncio.get_running_loop()
        self._tasks = [loop.create_task(self._listen()), loop.create_task(self._publish())]
        self.verifiers.start()

    async def close(self) -> None:
        await self.verifiers.close()
        for task in self._tasks:
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task
        await self.redis.aclose()
        await self.subscriber.aclose()

    async def ready(self) -> bool:
        if not self._up.is_set():
            return False
        try:
            return bool(await self.redis.ping())
        except (RedisError, OSError):
            return False

    async def wait_up(self, timeout: float) -> bool:
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(self._up.wait(), timeout)
        return self._up.is_set()

    def publish(self, topic: str, envelope: str) -> bool:
        """Queue `envelope` for the other instances; False (dropped) while Redis is away or far behind."""
        if not self._up.is_set() or len(self._outbox) >= PUBLISH_QUEUE:
            return False
        self._outbox.append((topic, envelope))
        self._wake.set()
        return True

    async def _publish(self) -> None:
        """One writer, in order, many envelopes a round trip: a sender never waits on Redis."""
        while True:
            await self._wake.wait()
            self._wake.clear()
            while self._outbox:
                batch = [self._outbox.popleft() for _ in range(min(len(self._outbox), PUBLISH_BATCH))]
                try:
                    async with self.redis.pipeline(transaction=False) as pipe:
                        for topic, envelope in batch:
                            pipe.publish(channel(topic), f"{self.instance} {envelope}")
                        await pipe.execute()
                except (RedisError, OSError):
                    self._lost(len(batch))

    async def sync(self, topic: str) -> None:
        name = channel(topic)
        async with self._lock:
            wanted = topic in self._local_topics()
            pubsub = self._pubsub
            if pubsub is None or wanted == (name in self._subscribed):
                return  # when Redis is away, the listener subscribes to all that is wanted once it is back
            confirmed = self._confirmed.setdefault(name, asyncio.Event())
            confirmed.clear()
            try:
                if wanted:
                    self._subscribed.add(name)
                    await pubsub.subscribe(name)
                else:
                    self._subscribed.discard(name)
                    del self._confirmed[name]
                    await pubsub.unsubscribe(name)
            except (RedisError, OSError):
                return  # the listener sees the same failure and starts over
        if wanted:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(confirmed.wait(), SUBSCRIBE_WAIT)

    async def _listen(self) -> None:
        failures = 0
        control = CONTROL_PREFIX + self.instance
        while True:
            pubsub = self.subscriber.pubsub()
            try:
                async with self._lock:
                    # The control channel keeps the connection subscribed while no topic is.
                    await pubsub.subscribe(control)
                    self._subscribed = {channel(topic) for topic in self._local_topics()}
                    self._confirmed = {name: asyncio.Event() for name in self._subscribed}
                    names = sorted(self._subscribed)
                    for at in range(0, len(names), SUBSCRIBE_BATCH):
                        await pubsub.subscribe(*names[at : at + SUBSCRIBE_BATCH])
                    self._pubsub = pubsub
                while True:
                    message = await pubsub.get_message(timeout=HEALTH_CHECK_INTERVAL)
                    if message is None:
                        continue
                    if message["type"] == "subscribe" and message["channel"] == control.encode():
                        self._up.set()
                        if failures:
                            log.warning("Redis is reachable again; carrying on")
                            # A restarted Redis lost the verifiers: the others must see ours at once.
                            self.verifiers.refresh_now()
                        failures = 0
                    self._on_message(message)
            except (RedisError, OSError) as exc:
                if failures == 0:
                    log.warning("Redis is unreachable (%s); retrying with backoff", type(exc).__name__)
                failures += 1
            finally:
                self._up.clear()
                self._pubsub = None
                with contextlib.suppress(RedisError, OSError):
                    await pubsub.aclose()
            await asyncio.sleep(_backoff(failures))

    def _on_message(self, message: PubSubMessage) -> None:
        name = message["channel"].decode()
        if message["type"] == "subscribe":
            event = self._confirmed.get(name)
            if event is not None:
                event.set()
            return
        if message["type"] != "message" or not name.startswith(CHANNEL_PREFIX) or self._deliver is None:
            return
        data = message["data"]
        if isinstance(data, bytes) and not data.startswith(self._echo):
            self._deliver(name.removeprefix(CHANNEL_PREFIX), data.decode("utf-8", "replace").partition(" ")[2])


class RedisVerifiers:
    """A Redis set per (topic, verifier) of the instances whose sockets registered it, refreshed while they live."""

    def __init__(self, client: aioredis.Redis, instance: str) -> None:
        self.redis = client
        self.instance = instance
        self.local: Counter[tuple[str, str]] = Counter()
        self._refresher: asyncio.Task[None] | None = None
        self._due = asyncio.Event()

    def start(self) -> None:
        self._refresher = asyncio.get_running_loop().create_task(self._refresh())

    async def close(self) -> None:
        if self._refresher is not None:
            self._refresher.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._refresher

    async def add(self, topic: str, verifier: str) -> None:
        self.local[topic, verifier] += 1
        if self.local[topic, verifier] == 1:
            await self._store([(topic, verifier)])

    async def remove(self, topic: str, verifier: str) -> None:
        self.local[topic, verifier] -= 1
        if self.local[topic, verifier] > 0:
            return
        del self.local[topic, verifier]
        with contextlib.suppress(RedisError, OSError):
            await self.redis.srem(_key(topic, verifier), self.instance)

    async def holds(self, topic: str, verifier: str) -> bool:
        if self.local[topic, verifier] > 0:
            return True
        try:
            return bool(await self.redis.exists(_key(topic, verifier)))
        except (RedisError, OSError):
            return False

    async def _store(self, pairs: list[tuple[str, str]]) -> None:
        if not pairs:
            return
        with contextlib.suppress(RedisError, OSError):
            async with self.redis.pipeline(transaction=False) as pipe:
                for topic, verifier in pairs:
                    pipe.sadd(_key(topic, verifier), self.instance)
                    pipe.expire(_key(topic, verifier), VERIFIER_TTL)
                await pipe.execute()

    def refresh_now(self) -> None:
        self._due.set()

    async def _refresh(self) -> None:
        while True:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._due.wait(), VERIFIER_TTL / 3)
            self._due.clear()
            await self._store(list(self.local))


def _key(topic: str, verifier: str) -> str:
    return f"{VERIFIER_PREFIX}{topic}:{verifier}"
