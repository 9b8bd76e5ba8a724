"""No stranger, link holder or other web page can clog the rendezvous: sockets are bounded per
address and per address on a topic, the room id alone names no topic, a flood from one link holder
spends its own share, and TURN credentials go only to a room a live host registered."""

from __future__ import annotations

import asyncio
import base64
import hashlib
import os
import resource
import time
from collections.abc import Iterator
from pathlib import Path

import aiohttp
import pytest
from aiohttp import web
from aiohttp.test_utils import make_mocked_request

from canvasrelay.client.guest import Guest, RoomLink
from canvasrelay.protocol import signal_crypto
from canvasrelay.signal import rendezvous
from canvasrelay.signal.client_address import client_address
from canvasrelay.signal.turn_credentials import TurnConfig
from tests.support import HostClient, InProcessServer, ServerProcess
from tests.test_agents_serve import create, events_until

FILE_LIMIT = 1024


def from_address(last: int) -> aiohttp.ClientSession:
    """A client at another loopback address (127.0.0.`last`): Linux routes all of 127/8 to itself."""
    return aiohttp.ClientSession(connector=aiohttp.TCPConnector(local_addr=(f"127.0.0.{last}", 0), limit=0))


def signal_url(link: str) -> str:
    return RoomLink.parse(link).signal


@pytest.fixture
def limited_server(project: Path) -> Iterator[ServerProcess]:
    """`canvas serve` on a machine that lets a process open 1,024 files and no more (macOS's default is 256)."""
    proc = ServerProcess(project, file_limit=FILE_LIMIT).start()
    yield proc
    proc.stop()


@pytest.mark.skipif(
    resource.getrlimit(resource.RLIMIT_NOFILE)[1] < 4 * FILE_LIMIT, reason="needs a file limit of 4,096"
)
async def test_sockets_from_one_address_are_bounded_and_the_host_keeps_working(
    limited_server: ServerProcess,
) -> None:
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    topics = [base64.urlsafe_b64encode(hashlib.sha256(bytes([n])).digest()).decode().rstrip("=") for n in range(80)]
    url = signal_url(limited_server.room_link)
    session = from_address(2)
    opened: list[aiohttp.ClientWebSocketResponse] = []
    refused: list[int] = []
    cut: list[str] = []

    async def one(topic: str) -> None:
        try:
            opened.append(await session.ws_connect(f"{url}?topic={topic}"))
        except aiohttp.WSServerHandshakeError as exc:
            refused.append(exc.status)
        except aiohttp.ClientConnectionError as exc:
            # A burst past what the server keeps descriptors for is answered 503 before it is read,
            # and closed: the client may see the reset before the answer.
            cut.append(str(exc))

    try:
        await asyncio.gather(*(one(topics[n % len(topics)]) for n in range(1100)))
        assert len(opened) == rendezvous.SOCKETS_PER_ADDRESS
        assert len(refused) + len(cut) == 1100 - len(opened)
        assert set(refused) <= {429, 503}
        # The host's page, the API and an agent still get their descriptors.
        host = await HostClient.connect(limited_server)
        async with aiohttp.ClientSession() as api, api.get(f"{limited_server.base_url}/api/health") as response:
            assert response.status == 200
        session_id = await create(host)
        await host.send({"t": "agent-prompt", "sessionId": session_id, "text": "hello"})
        try:
            await events_until(host, session_id, "turn-end")
        except TimeoutError:
            pytest.fail("the agent did not answer; the server said:\n" + "".join(limited_server.output[-40:]))
        await host.close()
    finally:
        for ws in opened:
            await ws.close()
        await session.close()
        resource.setrlimit(resource.RLIMIT_NOFILE, (soft, hard))
    assert "Too many open files" not in "".join(limited_server.output)


async def test_the_room_id_alone_names_no_topic_and_a_guest_joins(served: InProcessServer) -> None:
    link = RoomLink.parse(served.room_link)
    # What the room id alone gave before: a hash of it. 63 idle sockets there, from one address.
    by_id = base64.urlsafe_b64encode(hashlib.sha256(b"canvas/topic/v1:" + link.room_id.encode()).digest())
    squatters = from_address(2)
    held = []
    for _ in range(63):
        try:
            held.append(await squatters.ws_connect(f"{link.signal}?topic={by_id.decode().rstrip('=')}"))
        except aiohttp.WSServerHandshakeError:
            break
    assert len(held) == rendezvous.SOCKETS_PER_ADDRESS_ON_TOPIC
    # And a link holder's own share of the real topic, held idle.
    holder = from_address(3)
    for _ in range(rendezvous.SOCKETS_PER_ADDRESS_ON_TOPIC):
        held.append(await holder.ws_connect(f"{link.signal}?topic={signal_crypto.topic(link.key)}"))
    with pytest.raises(aiohttp.WSServerHandshakeError) as refused:
        await holder.ws_connect(f"{link.signal}?topic={signal_crypto.topic(link.key)}")
    assert refused.value.status == 429
    started = time.monotonic()
    guest = await Guest(served.room_link, name="Ada").connect()
    assert time.monotonic() - started < 3.0
    await guest.close()
    for ws in held:
        await ws.close()
    await squatters.close()
    await holder.close()


async def test_a_silent_socket_is_closed(project: Path) -> None:
    relay = rendezvous.Rendezvous(limits=rendezvous.Limits(first_word_s=0.2, idle_s=0.5))
    app = web.Application()
    rendezvous.add_routes(app, relay)
    runner = web.AppRunner(app)
    await runner.setup()
    await web.TCPSite(runner, "127.0.0.1", 0).start()
    url = f"ws://127.0.0.1:{runner.addresses[0][1]}/signal?topic={'A' * 43}"
    async with aiohttp.ClientSession() as session:
        silent = await session.ws_connect(url)
        msg = await silent.receive(timeout=5)
        assert msg.type is aiohttp.WSMsgType.CLOSE and msg.data == rendezvous.CLOSE_IDLE
        talker = await session.ws_connect(url)
        await talker.send_str("an-envelope")
        msg = await talker.receive(timeout=5)
        assert msg.type is aiohttp.WSMsgType.CLOSE and msg.data == rendezvous.CLOSE_IDLE
    await runner.cleanup()


async def test_a_flood_of_offers_and_questions_from_one_link_holder_keeps_no_guest_out(
    served: InProcessServer,
) -> None:
    link = RoomLink.parse(served.room_link)
    key = signal_crypto.signal_key(link.key)
    topic = signal_crypto.topic(link.key)
    flooder = from_address(2)
    stop = asyncio.Event()

    async def flood(kind: str) -> None:
        # Each socket sends below the rendezvous's own rate, so it is the hub's share that must hold.
        while not stop.is_set():
            try:
                ws = await flooder.ws_connect(f"{link.signal}?topic={topic}")
            except aiohttp.WSServerHandshakeError:
                await asyncio.sleep(0.05)
                continue
            for n in range(30):
                message = {"kind": kind, "from": f"flood{n}"}
                if kind == "offer":
                    nonce = base64.urlsafe_b64encode(os.urandom(32)).decode().rstrip("=")
                    message |= {"sdp": fresh_sdp(), "nonce": nonce}
                await ws.send_str(signal_crypto.seal(key, message))
                await asyncio.sleep(0.06)
            await ws.close()

    floods = [asyncio.create_task(flood(kind)) for kind in ("offer", "offer", "offer", "about", "about")]
    await asyncio.sleep(1.0)
    guests = await asyncio.gather(*(Guest(served.room_link, name=f"Real {n}").connect() for n in range(8)))
    stop.set()
    await asyncio.gather(*floods)
    assert all(guest.state == "connected" for guest in guests)
    hub = served.server.hub
    assert sum(n for reason, n in hub.refusals.items() if "from one sender" in reason) > 0, hub.refusals
    for guest in guests:
        await guest.close()
    await flooder.close()


def fresh_sdp() -> str:
    """An offer no handshake can come of, with a fingerprint of its own (a fresh offer each time)."""
    fingerprint = ":".join(f"{byte:02X}" for byte in os.urandom(32))
    return f"v=0\r\no=- 1 1 IN IP4 0.0.0.0\r\ns=-\r\nt=0 0\r\na=fingerprint:sha-256 {fingerprint}\r\n"


async def test_turn_credentials_only_for_a_registered_room() -> None:
    relay = rendezvous.Rendezvous(turn=TurnConfig(secret=b"s" * 32, urls=("turn:127.0.0.1:3478",), lifetime=600))
    app = web.Application()
    rendezvous.add_routes(app, relay)
    runner = web.AppRunner(app)
    await runner.setup()
    await web.TCPSite(runner, "127.0.0.1", 0).start()
    base = f"127.0.0.1:{runner.addresses[0][1]}"
    room_key = base64.urlsafe_b64encode(bytes(range(32))).decode().rstrip("=")
    proof = signal_crypto.turn_proof(room_key)
    verifier = signal_crypto.turn_verifier(proof)
    topic = signal_crypto.topic(room_key)
    async with aiohttp.ClientSession() as session:

        async def ask(body: dict[str, str]) -> int:
            async with session.post(f"http://{base}/turn", json=body) as response:
                return response.status

        # A stranger with no registered room gets nothing.
        assert await ask({"topic": topic, "proof": proof}) == 403
        # Nor by registering its verifier on a topic that is not the one it derives.
        squatter = await session.ws_connect(f"ws://{base}/signal?topic={'A' * 43}&turn={verifier}")
        msg = await squatter.receive(timeout=5)
        assert msg.type is aiohttp.WSMsgType.CLOSE and msg.data == rendezvous.CLOSE_BAD_TOPIC
        assert await ask({"topic": "A" * 43, "proof": proof}) == 403
        # A live host registered for its own topic: its link holders get credentials.
        host = await session.ws_connect(f"ws://{base}/signal?topic={topic}&turn={verifier}")
        assert await ask({"topic": topic, "proof": proof}) == 200
        await host.close()
    await runner.cleanup()


@pytest.mark.parametrize(
    ("peer", "trusted"),
    [("127.0.0.1", True), ("10.1.2.3", True), ("192.168.0.9", True), ("93.184.216.34", False)],
)
def test_x_forwarded_for_counts_only_from_a_balancer(peer: str, trusted: bool) -> None:
    request = make_mocked_request(
        "GET", "/signal", headers={"X-Forwarded-For": "6.6.6.6, 198.51.100.4"}, transport=_Peer(peer)
    )
    assert client_address(request, forwarded_for=True) == ("198.51.100.4" if trusted else peer)
    assert client_address(request, forwarded_for=False) == peer


class _Peer:
    """A transport as aiohttp's request reads its peer's address from."""

    def __init__(self, address: str) -> None:
        self.address = address

    def get_extra_info(self, name: str, default: object = None) -> object:
        return (self.address, 40000) if name == "peername" else default
