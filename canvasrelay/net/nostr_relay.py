"""One Nostr relay, over a WebSocket (NIP-01): subscriptions kept across reconnects, events
published with the relay's `OK` awaited, and everything the relay sends treated as untrusted
(bounded, parsed, its events' signatures checked, junk dropped and counted).

A relay is a stranger's server: it may be slow, down, rate-limit (`OK false "rate-limited:"`),
drop events without a word, or pass on whatever anyone publishes on a topic. So nothing here
waits on a relay without a deadline, and what one relay does never holds up another.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import secrets
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field

import aiohttp

from canvasrelay.net.nostr_event import (
    SIGNAL_KIND,
    TO_TAG,
    TOPIC_TAG,
    Event,
    EventError,
    NostrKey,
    parse_event,
    signal_event,
)
from canvasrelay.net.tasks import cancelled

log = logging.getLogger(__name__)

MESSAGE_MAX = 128 * 1024
"""The largest message read from a relay: an event's content is bounded below this."""
PUBLISH_TIMEOUT_S = 5.0
CONNECT_TIMEOUT_S = 5.0
EOSE_WAIT_S = 5.0
"""How long after asking a subscription's events count as stored ones without the relay's `EOSE`:
one that never says it is a relay of another kind, whose events are all taken as live after this."""
RETRY_FIRST_S = 1.0
RETRY_MAX_S = 60.0

OnEvent = Callable[[str, Event], None]
"""`(subscription id, event)`: an event that passed `parse_event` on one of our subscriptions."""


@dataclass(frozen=True)
class Published:
    accepted: bool
    message: str = ""
    """The relay's words (`rate-limited: …`, `blocked: …`), or why canvas heard none."""


@dataclass
class RelayLink:
    """One relay's WebSocket, reopened with backoff when it drops, until `close`."""

    url: str
    session: aiohttp.ClientSession
    on_event: OnEvent
    subscriptions: dict[str, dict[str, object]] = field(default_factory=dict)
    dropped: Counter[str] = field(default_factory=Counter)
    """What was thrown away, by reason: junk from the relay, or from strangers on a topic."""
    _ws: aiohttp.ClientWebSocketResponse | None = None
    _task: asyncio.Task[None] | None = None
    _waiting: dict[str, asyncio.Future[Published]] = field(default_factory=dict)
    _up: asyncio.Event = field(default_factory=asyncio.Event)
    _down_since: float = field(default_factory=time.monotonic)
    _stored_until: dict[str, float] = field(default_factory=dict)
    """Subscriptions whose relay has not yet said `EOSE`: what it sends them till then it held
    already (another run's offers and answers, which a relay may keep a while and send despite
    `limit 0`), and a subscription here is for what comes from now on."""

    def start(self) -> RelayLink:
        self._task = asyncio.get_running_loop().create_task(self._run())
        return self

    @property
    def connected(self) -> bool:
        return self._up.is_set()

    def down_for(self, now: float | None = None) -> float:
        """How long the link has been down (0 while it is up): since it started, or since it dropped."""
        return 0.0 if self.connected else (time.monotonic() if now is None else now) - self._down_since

    async def until_connected(self, timeout: float) -> bool:
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(self._up.wait(), timeout)
        return self._up.is_set()

    async def subscribe(self, sub_id: str, query: dict[str, object]) -> None:
        """Ask for events matching `query` now and after every reconnect."""
        self.subscriptions[sub_id] = query
        await self._ask(sub_id, query)

    async def unsubscribe(self, sub_id: str) -> None:
        self._stored_until.pop(sub_id, None)
        if self.subscriptions.pop(sub_id, None) is not None:
            await self._send(["CLOSE", sub_id])

    async def publish(self, event: dict[str, object], timeout: float = PUBLISH_TIMEOUT_S) -> Published:
        """Send `event` and wait for the relay's `OK` (or say why there was none)."""
        event_id = str(event["id"])
        answer = asyncio.get_running_loop().create_future()
        self._waiting[event_id] = answer
        try:
            if not await self._send(["EVENT", event]):
                return Published(False, "not connected")
            return await asyncio.wait_for(answer, timeout)
        except TimeoutError:
            return Published(False, f"no answer within {timeout:g} s")
        finally:
            self._waiting.pop(event_id, None)

    async def close(self) -> None:
        await cancelled(self._task)
        if self._ws is not None:
            await self._ws.close()

    async def _send(self, message: list[object]) -> bool:
        ws = self._ws
        if ws is None or ws.closed:
            return False
        try:
            await ws.send_str(json.dumps(message, separators=(",", ":")))
        except (aiohttp.ClientError, ConnectionError, RuntimeError):
            return False
        return True

    async def _ask(self, sub_id: str, query: dict[str, object]) -> None:
        self._stored_until[sub_id] = time.monotonic() + EOSE_WAIT_S
        await self._send(["REQ", sub_id, query])

    def _stored(self, sub_id: str) -> bool:
        until = self._stored_until.get(sub_id)
        if until is not None and time.monotonic() >= until:
            del self._stored_until[sub_id]
            return False
        return until is not None

    async def _run(self) -> None:
        wait = RETRY_FIRST_S
        while True:
            try:
                async with self.session.ws_connect(
                    self.url,
                    timeout=aiohttp.ClientWSTimeout(ws_receive=None, ws_close=CONNECT_TIMEOUT_S),
                    max_msg_size=MESSAGE_MAX,
                    heartbeat=30.0,
                ) as ws:
                    self._ws = ws
                    for sub_id, query in self.subscriptions.items():
                        await self._ask(sub_id, query)
                    self._up.set()
                    wait = RETRY_FIRST_S
                    async for message in ws:
                        if message.type is aiohttp.WSMsgType.TEXT:
                            self._receive(message.data)
                        elif message.type is aiohttp.WSMsgType.ERROR:
                            break
            except (aiohttp.ClientError, OSError, TimeoutError) as exc:
                log.info("relay %s unreachable (%s); trying again in %g s", self.url, type(exc).__name__, wait)
            if self._up.is_set():
                self._down_since = time.monotonic()
            self._up.clear()
            self._ws = None
            await asyncio.sleep(wait)
            wait = min(RETRY_MAX_S, wait * 2)

    def _receive(self, text: str) -> None:
        try:
            message = json.loads(text)
        except (ValueError, RecursionError):
            self.dropped["not JSON"] += 1
            return
        if not (isinstance(message, list) and message and isinstance(message[0], str)):
            self.dropped["not a relay message"] += 1
            return
        verb = message[0]
        if len(message) > 1 and not isinstance(message[1], str):
            # A subscription id or event id that is no string (a list cannot even be looked up).
            self.dropped["not a relay message"] += 1
            return
        if verb == "EVENT" and len(message) == 3 and message[1] in self.subscriptions:
            try:
                event = parse_event(message[2])
            except EventError as exc:
                self.dropped[str(exc)] += 1
                return
            if self._stored(message[1]):
                self.dropped["held from before the subscription"] += 1
                return
            self.on_event(message[1], event)
        elif verb == "EOSE" and len(message) >= 2:
            self._stored_until.pop(message[1], None)
        elif verb == "OK" and len(message) >= 3 and isinstance(message[1], str):
            answer = self._waiting.get(message[1])
            if answer is not None and not answer.done():
                words = message[3] if len(message) > 3 and isinstance(message[3], str) else ""
                answer.set_result(Published(message[2] is True, words[:200]))
        elif verb == "CLOSED" and len(message) >= 2 and message[1] in self.subscriptions:
            # The relay ended one of ours (rate-limited, say): it comes back with the next connection.
            log.info("relay %s closed a subscription: %s", self.url, str(message[2:])[:200])
        elif verb not in ("EOSE", "NOTICE", "EVENT", "OK", "CLOSED", "AUTH"):
            self.dropped["unknown relay message"] += 1


async def probe(url: str, session: aiohttp.ClientSession, timeout: float) -> float | None:
    """Seconds for `url` to take one ephemeral event and hand it back to a subscriber; None
    when it does not within `timeout` (down, slow, refusing, or dropping events)."""
    loop = asyncio.get_running_loop()
    started = loop.time()
    key = NostrKey.fresh()
    topic = secrets.token_hex(16)
    heard = loop.create_future()

    def on_event(_sub: str, event: Event) -> None:
        if event.pubkey == key.public and not heard.done():
            heard.set_result(None)

    link = RelayLink(url, session, on_event).start()
    try:
        async with asyncio.timeout(timeout):
            if not await link.until_connected(timeout):
                return None
            await link.subscribe("probe", topic_query(topic))
            published = await link.publish(signal_event(key, "canvas relay probe", topic=topic), timeout)
            if not published.accepted:
                return None
            await heard
    except TimeoutError:
        return None
    finally:
        await link.close()
    return loop.time() - started


def topic_query(topic: str, since: int | None = None) -> dict[str, object]:
    """The subscription for one topic's signalling events, from now on (`limit 0`: no stored ones)."""
    query: dict[str, object] = {"kinds": [SIGNAL_KIND], f"#{TOPIC_TAG}": [topic], "limit": 0}
    return query | ({"since": since} if since is not None else {})


def to_query(pubkey: str) -> dict[str, object]:
    """The subscription for the answers addressed to one page's key."""
    return {"kinds": [SIGNAL_KIND], f"#{TO_TAG}": [pubkey], "limit": 0}
