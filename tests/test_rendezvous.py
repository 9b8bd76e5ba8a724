"""The rendezvous alone: it relays per topic, and its bounds hold."""

from __future__ import annotations

from collections.abc import AsyncIterator

import aiohttp
import pytest
from aiohttp import web

from canvasrelay.server import rendezvous

TOPIC_A = "A" * 43
TOPIC_B = "B" * 43


@pytest.fixture
async def url() -> AsyncIterator[str]:
    app = web.Application()
    rendezvous.add_routes(app)
    runner = web.AppRunner(app)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0)
    await site.start()
    yield f"ws://127.0.0.1:{runner.addresses[0][1]}/signal"
    await runner.cleanup()


@pytest.fixture
async def session() -> AsyncIterator[aiohttp.ClientSession]:
    async with aiohttp.ClientSession() as client:
        yield client


async def test_relays_to_the_others_on_the_topic_only(url: str, session: aiohttp.ClientSession) -> None:
    a1 = await session.ws_connect(f"{url}?topic={TOPIC_A}")
    a2 = await session.ws_connect(f"{url}?topic={TOPIC_A}")
    b1 = await session.ws_connect(f"{url}?topic={TOPIC_B}")
    await a1.send_str("opaque-1")
    assert (await a2.receive(timeout=5)).data == "opaque-1"
    await b1.send_str("opaque-2")
    await a2.send_str("opaque-3")
    assert (await a1.receive(timeout=5)).data == "opaque-3", "a1 hears a2, never itself nor topic B"
    await b1.send_str("still here")
    for ws in (a1, a2, b1):
        await ws.close()


async def test_bad_topic_is_closed(url: str, session: aiohttp.ClientSession) -> None:
    ws = await session.ws_connect(f"{url}?topic=room-id-in-clear")
    msg = await ws.receive(timeout=5)
    assert msg.type is aiohttp.WSMsgType.CLOSE and msg.data == rendezvous.CLOSE_BAD_TOPIC


async def test_oversized_envelope_closes_the_socket(url: str, session: aiohttp.ClientSession) -> None:
    ws = await session.ws_connect(f"{url}?topic={TOPIC_A}")
    await ws.send_str("x" * (rendezvous.MAX_ENVELOPE_BYTES + 1))
    msg = await ws.receive(timeout=5)
    assert msg.type is aiohttp.WSMsgType.CLOSE and msg.data == aiohttp.WSCloseCode.MESSAGE_TOO_BIG


async def test_a_flooding_socket_is_cut_off(url: str, session: aiohttp.ClientSession) -> None:
    flooder = await session.ws_connect(f"{url}?topic={TOPIC_A}")
    listener = await session.ws_connect(f"{url}?topic={TOPIC_A}")
    for i in range(int(rendezvous.BURST) + 20):
        await flooder.send_str(f"e{i}")
    msg = await flooder.receive(timeout=5)
    while msg.type is aiohttp.WSMsgType.TEXT:
        msg = await flooder.receive(timeout=5)
    assert msg.type is aiohttp.WSMsgType.CLOSE and msg.data == rendezvous.CLOSE_POLICY
    relayed = 0
    while (await listener.receive(timeout=5)).data != f"e{int(rendezvous.BURST) - 1}":
        relayed += 1
    assert relayed == int(rendezvous.BURST) - 1
    await listener.close()


async def test_sockets_per_topic_are_bounded(
    url: str, session: aiohttp.ClientSession, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(rendezvous, "MAX_SOCKETS_PER_TOPIC", 2)
    first = await session.ws_connect(f"{url}?topic={TOPIC_A}")
    second = await session.ws_connect(f"{url}?topic={TOPIC_A}")
    third = await session.ws_connect(f"{url}?topic={TOPIC_A}")
    msg = await third.receive(timeout=5)
    assert msg.type is aiohttp.WSMsgType.CLOSE and msg.data == rendezvous.CLOSE_FULL
    await first.close()
    await second.close()
