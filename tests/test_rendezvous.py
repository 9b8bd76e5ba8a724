"""The rendezvous relays per topic and its bounds hold, in every layout it runs in: a single process
without Redis, both peers on one `canvas signal --redis` instance, and one peer on each of two."""

from __future__ import annotations

import asyncio
import base64
import os
import socket
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass
from urllib.parse import urlsplit

import aiohttp
import pytest
from aiohttp import web

from canvasrelay.signal import rendezvous
from tests.conftest import Cluster

RECEIVE_TIMEOUT = 5.0
IN_FLIGHT = 8
"""Envelopes sent and not yet read: well inside one socket's outbox (rendezvous.OUTBOX_BYTES)."""


def new_topic() -> str:
    """A topic of this test's own: the instances and their Redis serve the whole run, and an
    envelope a test before sent on a shared topic could still be on its way."""
    return base64.urlsafe_b64encode(os.urandom(32)).decode().rstrip("=")


@dataclass
class Layout:
    """Where the first peer (the host, say) and the others (the guests) connect."""

    first: str
    second: str
    drops: Callable[[str], float]
    """How many times the instance behind `second` dropped something, by reason."""


async def _alone() -> AsyncIterator[Layout]:
    relay = rendezvous.Rendezvous()
    app = web.Application()
    rendezvous.add_routes(app, relay)
    runner = web.AppRunner(app)
    await runner.setup()
    await web.TCPSite(runner, "127.0.0.1", 0).start()
    url = f"ws://127.0.0.1:{runner.addresses[0][1]}/signal"

    def drops(reason: str) -> float:
        return relay.metrics.registry.get_sample_value("canvas_signal_drops_total", {"reason": reason}) or 0.0

    yield Layout(url, url, drops)
    await runner.cleanup()


@pytest.fixture(
    params=[
        "alone",
        pytest.param("one instance", marks=pytest.mark.services),
        pytest.param("two instances", marks=pytest.mark.services),
    ]
)
async def layout(request: pytest.FixtureRequest) -> AsyncIterator[Layout]:
    if request.param == "alone":
        async for alone in _alone():
            yield alone
        return
    cluster: Cluster = request.getfixturevalue("cluster")
    second = cluster.a if request.param == "one instance" else cluster.b

    def drops(reason: str) -> float:
        return second.metrics().get(f"canvas_signal_drops_total{{reason={reason}}}", 0.0)

    yield Layout(cluster.a.url, second.url, drops)


@pytest.fixture
async def session() -> AsyncIterator[aiohttp.ClientSession]:
    async with aiohttp.ClientSession() as client:
        yield client


async def test_relays_to_the_others_on_the_topic_only(layout: Layout, session: aiohttp.ClientSession) -> None:
    topic_a, topic_b = new_topic(), new_topic()
    a1 = await session.ws_connect(f"{layout.first}?topic={topic_a}")
    a2 = await session.ws_connect(f"{layout.second}?topic={topic_a}")
    b1 = await session.ws_connect(f"{layout.second}?topic={topic_b}")
    await a1.send_str("opaque-1")
    assert (await a2.receive(timeout=RECEIVE_TIMEOUT)).data == "opaque-1"
    await b1.send_str("opaque-2")
    await a2.send_str("opaque-3")
    assert (await a1.receive(timeout=RECEIVE_TIMEOUT)).data == "opaque-3", "a1 hears a2, never itself nor topic B"
    await a1.send_str("opaque-4")
    assert (await a2.receive(timeout=RECEIVE_TIMEOUT)).data == "opaque-4", "a2 hears only a1: not topic B"
    await b1.send_str("still here")
    for ws in (a1, a2, b1):
        await ws.close()


async def test_bad_topic_is_closed(layout: Layout, session: aiohttp.ClientSession) -> None:
    ws = await session.ws_connect(f"{layout.second}?topic=room-id-in-clear")
    msg = await ws.receive(timeout=RECEIVE_TIMEOUT)
    assert msg.type is aiohttp.WSMsgType.CLOSE and msg.data == rendezvous.CLOSE_BAD_TOPIC


async def test_oversized_envelope_closes_the_socket(layout: Layout, session: aiohttp.ClientSession) -> None:
    ws = await session.ws_connect(f"{layout.second}?topic={new_topic()}")
    await ws.send_str("x" * (rendezvous.MAX_ENVELOPE_BYTES + 1))
    msg = await ws.receive(timeout=RECEIVE_TIMEOUT)
    assert msg.type is aiohttp.WSMsgType.CLOSE and msg.data == aiohttp.WSCloseCode.MESSAGE_TOO_BIG


async def test_a_flooding_socket_is_cut_off(layout: Layout, session: aiohttp.ClientSession) -> None:
    topic = new_topic()
    flooder = await session.ws_connect(f"{layout.first}?topic={topic}")
    listener = await session.ws_connect(f"{layout.second}?topic={topic}")
    for i in range(int(rendezvous.BURST) + 20):
        await flooder.send_str(f"e{i}")
    msg = await flooder.receive(timeout=RECEIVE_TIMEOUT)
    while msg.type is aiohttp.WSMsgType.TEXT:
        msg = await flooder.receive(timeout=RECEIVE_TIMEOUT)
    assert msg.type is aiohttp.WSMsgType.CLOSE and msg.data == rendezvous.CLOSE_POLICY
    relayed = 0
    while (await listener.receive(timeout=RECEIVE_TIMEOUT)).data != f"e{int(rendezvous.BURST) - 1}":
        relayed += 1
    assert relayed == int(rendezvous.BURST) - 1
    await listener.close()


def from_address(last: int) -> aiohttp.ClientSession:
    """A client at another loopback address (127.0.0.`last`): Linux routes all of 127/8 to itself."""
    return aiohttp.ClientSession(connector=aiohttp.TCPConnector(local_addr=(f"127.0.0.{last}", 0), limit=0))


async def test_sockets_per_topic_are_bounded_per_instance(layout: Layout, session: aiohttp.ClientSession) -> None:
    topic = new_topic()
    share = rendezvous.SOCKETS_PER_ADDRESS_ON_TOPIC
    # Each address may hold only its share of a topic: it takes several to fill one.
    clients = [from_address(10 + n) for n in range(rendezvous.MAX_SOCKETS_PER_TOPIC // share)]
    held = [await client.ws_connect(f"{layout.second}?topic={topic}") for client in clients for _ in range(share)]
    one_more = await session.ws_connect(f"{layout.second}?topic={topic}")
    msg = await one_more.receive(timeout=RECEIVE_TIMEOUT)
    assert msg.type is aiohttp.WSMsgType.CLOSE and msg.data == rendezvous.CLOSE_FULL
    if layout.first != layout.second:
        elsewhere = await session.ws_connect(f"{layout.first}?topic={topic}")
        await elsewhere.send_str("the other instance keeps its own count")
        assert (await held[0].receive(timeout=RECEIVE_TIMEOUT)).data == "the other instance keeps its own count"
        await elsewhere.close()
    for ws in held:
        await ws.close()
    for client in clients:
        await client.close()


async def _never_reads(url: str) -> socket.socket:
    """A WebSocket client that completes the handshake and then never reads a byte."""
    parts = urlsplit(url)
    loop = asyncio.get_running_loop()
    raw = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    raw.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    raw.setblocking(False)
    await loop.sock_connect(raw, (parts.hostname, parts.port))
    key = base64.b64encode(os.urandom(16)).decode()
    request = (
        f"GET {parts.path}?{parts.query} HTTP/1.1\r\nHost: {parts.netloc}\r\nUpgrade: websocket\r\n"
        f"Connection: Upgrade\r\nSec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n\r\n"
    )
    await loop.sock_sendall(raw, request.encode())
    head = b""
    while b"\r\n\r\n" not in head:
        head += await loop.sock_recv(raw, 1)
    assert head.startswith(b"HTTP/1.1 101"), head
    return raw


async def _drain(ws: aiohttp.ClientWebSocketResponse) -> None:
    async for _message in ws:
        pass


async def _reader_keeps_up(
    reading: asyncio.Task[None], progress: asyncio.Event, heard: dict[str, list[int]], sent: int
) -> None:
    """Wait until the reader is fewer than IN_FLIGHT envelopes behind: on a busy machine the senders
    in this process could otherwise outrun it and fill its outbox, and it would be cut off as slow."""
    while sent - sum(map(len, heard.values())) >= IN_FLIGHT and not reading.done():
        progress.clear()
        read_one = asyncio.ensure_future(progress.wait())
        await asyncio.wait({reading, read_one}, return_when=asyncio.FIRST_COMPLETED)
        read_one.cancel()
    if reading.done():
        reading.result()  # the reader's own failure, if it failed


async def test_a_receiver_that_never_reads_does_not_delay_the_others(
    layout: Layout, session: aiohttp.ClientSession
) -> None:
    topic = new_topic()
    stuck = await _never_reads(f"{layout.second}?topic={topic}")
    reader = await session.ws_connect(f"{layout.second}?topic={topic}", max_msg_size=0)
    senders = [await session.ws_connect(f"{layout.first}?topic={topic}") for _ in range(2)]
    # Each sender hears the other and reads it, as any client does: the stuck socket is the only slow one.
    draining = [asyncio.get_running_loop().create_task(_drain(sender)) for sender in senders]
    before = layout.drops("slow-socket")
    envelope = "e" * (60 * 1024)
    # Two bursts are more than the stuck socket's queue and buffers hold: it must be cut off, not waited on.
    count = int(rendezvous.BURST) - 1
    heard: dict[str, list[int]] = {"0": [], "1": []}
    progress = asyncio.Event()

    async def read() -> None:
        for _ in range(count * len(senders)):
            msg = await reader.receive(timeout=RECEIVE_TIMEOUT)
            assert msg.type is aiohttp.WSMsgType.TEXT, "the reader was held up or cut off with the stuck one"
            n, i, _rest = msg.data.split(":", 2)
            heard[n].append(int(i))
            progress.set()

    reading = asyncio.get_running_loop().create_task(read())
    for n, sender in enumerate(senders):
        for i in range(count):
            await _reader_keeps_up(reading, progress, heard, sent=n * count + i)
            await sender.send_str(f"{n}:{i:04d}:{envelope}")
    await reading
    assert heard == {"0": list(range(count)), "1": list(range(count))}, "all of it, in order per sender"
    assert layout.drops("slow-socket") == before + 1
    for task in draining:
        task.cancel()
    stuck.close()
    for ws in (reader, *senders):
        await ws.close()
