"""Floods against the real hub over the real rendezvous: replayed offers and guests churning in and
out cannot keep a real guest out. Real aiortc guests on loopback, one `canvas serve` in-process."""

from __future__ import annotations

import asyncio
import contextlib
import secrets
import time
from collections import Counter
from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import aiohttp
import pytest

from canvasrelay.client.guest import Guest, HubRefused, RoomLink
from canvasrelay.protocol import signal_crypto
from canvasrelay.protocol.encoding import b64url
from canvasrelay.server.app import CanvasServer, ServeOptions
from canvasrelay.server.guests.hub import Hub

pytestmark = pytest.mark.timeout(180)

JOIN_WITHIN = 5.0
"""What a real guest is promised whatever else arrives on the topic."""


class Peak(dict[Any, Any]):
    """The hub's handshakes, recording the most there ever were at once."""

    peak = 0

    def __setitem__(self, key: Any, value: Any) -> None:
        super().__setitem__(key, value)
        self.peak = max(self.peak, len(self))


class Tally(Counter[str]):
    """The hub's refusals, with an event for when one reason reaches a count."""

    def __init__(self) -> None:
        super().__init__()
        self.waiting: dict[tuple[str, int], asyncio.Event] = {}

    def __setitem__(self, reason: str, count: int) -> None:
        super().__setitem__(reason, count)
        for (wanted, at), event in self.waiting.items():
            if wanted == reason and count >= at:
                event.set()

    async def reaches(self, reason: str, count: int) -> None:
        event = self.waiting.setdefault((reason, count), asyncio.Event())
        if self[reason] >= count:
            event.set()
        await event.wait()


@pytest.fixture
async def served(project: Path) -> AsyncIterator[CanvasServer]:
    server = CanvasServer(ServeOptions(root=project))
    await server.start()
    assert server.hub is not None
    server.hub.admission.handshakes = Peak()
    server.hub.refusals = Tally()
    yield server
    await server.stop()


def hub_of(server: CanvasServer) -> Hub:
    assert server.hub is not None
    return server.hub


async def join_in_time(link: str, name: str) -> Guest:
    async with asyncio.timeout(JOIN_WITHIN):
        guest = await Guest(link, name=name, reconnect=False).connect()
        await guest.expect("access")
    return guest


@dataclass
class Spy:
    """A socket on the room's topic, as the relay (or anyone on it) has, with the room key."""

    ws: aiohttp.ClientWebSocketResponse
    key: bytes
    first: Guest
    """The real guest whose offer it captured."""
    envelope: str


@contextlib.asynccontextmanager
async def spying(server: CanvasServer) -> AsyncIterator[Spy]:
    link = RoomLink.parse(server.room_link)
    key = signal_crypto.signal_key(link.key)
    url = f"{link.signal}?topic={signal_crypto.topic(link.key)}"
    async with aiohttp.ClientSession() as session, session.ws_connect(url) as ws:
        first = await join_in_time(server.room_link, "Ada")
        async with asyncio.timeout(10):
            while signal_crypto.open_envelope(key, envelope := str((await ws.receive()).data)).get("kind") != "offer":
                pass
        yield Spy(ws, key, first, envelope)
    await first.close()


async def test_a_replayed_offer_cannot_keep_real_guests_out(served: CanvasServer) -> None:
    hub = hub_of(served)
    async with spying(served) as spy:

        async def replay() -> None:
            for _ in range(200):
                await spy.ws.send_str(spy.envelope)
                await asyncio.sleep(1 / 20)  # the flood's own pace: 20 copies a second

        flood = asyncio.get_running_loop().create_task(replay())
        joined = [await join_in_time(served.room_link, name) for name in ("Bo", "Cy", "Di")]
        await flood
        # Every copy reached the hub and was turned away without a handshake.
        await asyncio.wait_for(hub.refusals.reaches("a replayed offer", 200), 10)  # type: ignore[attr-defined]
    assert hub.refusals["a replayed offer"] == 200
    assert hub.admission.handshakes.peak <= 1, "only the real guests' handshakes, one at a time"  # type: ignore[attr-defined]
    assert sorted(served.guests.guests[g.guest_id].name for g in joined) == ["Bo", "Cy", "Di"]
    for guest in joined:
        await guest.close()


async def test_an_offer_sealed_anew_holds_one_handshake_at_most(served: CanvasServer) -> None:
    # Someone with the room key re-seals a captured offer with fresh nonces: each copy is "new",
    # but they all come from one source (the same DTLS fingerprint), which gets one slot.
    hub = hub_of(served)
    async with spying(served) as spy:
        offer = signal_crypto.open_envelope(spy.key, spy.envelope)
        for _ in range(30):
            fresh = {**offer, "nonce": b64url(secrets.token_bytes(signal_crypto.GUEST_NONCE_BYTES))}
            del fresh["ts"]
            await spy.ws.send_str(signal_crypto.seal(spy.key, fresh))
            await asyncio.sleep(1 / 20)
        real = await join_in_time(served.room_link, "Bo")
        await asyncio.wait_for(
            hub.refusals.reaches("a handshake from the same source is under way", 29),  # type: ignore[attr-defined]
            10,
        )
    assert hub.admission.handshakes.peak <= 2  # type: ignore[attr-defined]
    await real.close()


CHURNS = 80


@pytest.mark.paced
async def test_one_identity_churning_cannot_lock_the_room(served: CanvasServer) -> None:
    hub = hub_of(served)
    churner = Guest(served.room_link, name="Churn")
    identity = {"identity": churner.identity}
    outcomes: list[str] = []

    async def once() -> None:
        # From an address of its own: the rendezvous bounds what one address holds on a topic.
        guest = Guest(served.room_link, name="Churn", reconnect=False, local_address="127.0.0.2", **identity)
        try:
            await guest.connect()
            outcomes.append("joined")
        except HubRefused as exc:
            outcomes.append(str(exc))
        except aiohttp.WSServerHandshakeError as exc:
            outcomes.append(f"the rendezvous refused it ({exc.status}): too many sockets from its address")
        except (TimeoutError, ConnectionError) as exc:
            outcomes.append(type(exc).__name__)
        finally:
            await guest.close()

    async def churn() -> None:
        start = time.monotonic()
        attempts = []
        for i in range(CHURNS):
            # Joins (each leaving at once) spread over 24 s, whatever each one takes: past the
            # identity's burst of 6 and its 0.5 a second, most are refused.
            await asyncio.sleep(max(0.0, start + i * 0.3 - time.monotonic()))
            attempts.append(asyncio.get_running_loop().create_task(once()))
        await asyncio.gather(*attempts)

    churning = asyncio.get_running_loop().create_task(churn())
    real_joins = 0
    while not churning.done():
        guest = await join_in_time(served.room_link, f"Real {real_joins}")
        real_joins += 1
        await guest.close()
        await asyncio.wait({churning}, timeout=3.0)
    await churning
    print(f"churn: {Counter(outcomes)}; real guests joined {real_joins} times, each within {JOIN_WITHIN} s")
    assert len(outcomes) == CHURNS and real_joins >= 5
    assert "joined" in outcomes and hub.refusals["joining too often"] > 0
    # Past its address's share of offers (3 a second) a churner's offer goes unanswered: it times out.
    allowed = ("joined", "too often", "too many sockets", "TimeoutError")
    assert all(any(word in o for word in allowed) for o in outcomes), set(outcomes)
    assert len(hub.live) <= 1 + real_joins


def losses(hub: Hub) -> asyncio.Queue[str]:
    """The guests whose channel the hub saw drop, as it sees each drop."""
    lost: asyncio.Queue[str] = asyncio.Queue()
    seen = hub._lost

    def _lost(guest_id: str, pc: Any) -> None:
        seen(guest_id, pc)
        lost.put_nowait(guest_id)

    hub._lost = _lost  # type: ignore[method-assign]
    return lost


async def test_guests_in_their_grace_give_way_to_a_new_guest(served: CanvasServer) -> None:
    hub = hub_of(served)
    hub.admission.max_guests = 4  # a small room, so filling it takes a few joins rather than 64
    lost = losses(hub)
    gone = []
    for i in range(6):
        guest = await join_in_time(served.room_link, f"Gone {i}")
        await guest.drop()  # without a word: it keeps its place for its resume grace
        async with asyncio.timeout(JOIN_WITHIN):
            while await lost.get() != guest.guest_id:
                pass
        gone.append(guest.guest_id)
    assert len(hub.live) == 4 and all(g.pc is None for g in hub.live.values())
    assert list(hub.live) == gone[2:], "the oldest grace gave way first"
    staying = [await join_in_time(served.room_link, f"Stay {i}") for i in range(4)]
    assert {g.guest_id for g in staying} == set(hub.live)
    with pytest.raises(HubRefused, match="full"):
        await Guest(served.room_link, name="One too many", reconnect=False).connect()
    for guest in staying:
        await guest.close()
