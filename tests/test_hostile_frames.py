"""Frames meant to break the server, on the host's socket and on a guest's channel: nesting, a
handler that raises, a host too slow to read. Each gets one `error` and the connection stays."""

from __future__ import annotations

import asyncio
import json
import logging
import time
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any, ClassVar, Literal

import aiohttp
import pytest

from canvasrelay.client.guest import Guest, HubRefused
from canvasrelay.core.effects import AnyEffect
from canvasrelay.core.feature import Feature, Route
from canvasrelay.core.peer import Peer
from canvasrelay.protocol import CLIENT_FRAMES, ClientFrame
from canvasrelay.protocol.access import Action
from canvasrelay.server.app import CanvasServer, ServeOptions
from canvasrelay.server.runtime import Adapter
from canvasrelay.server.transports.websocket import (
    CLOSE_TOO_SLOW,
    CLOSE_UNAUTHORIZED,
    MAX_BACKLOG_BYTES,
    WebSocketTransport,
)
from tests.probe_frames import Draw, Ran
from tests.support import HostClient, InProcessServer

DEPTHS = [1000, 5000, 20_000]


class Boom(ClientFrame):
    """A frame whose handler has a bug: it raises."""

    t: Literal["x-boom"] = "x-boom"
    action: ClassVar[Action] = Action.READ


@pytest.fixture
async def served(project: Path) -> AsyncIterator[InProcessServer]:
    for frame in (Boom, Draw):
        CLIENT_FRAMES[frame.model_fields["t"].default] = frame
    server = CanvasServer(ServeOptions(root=project))
    ran: list[str] = []

    def boom(_peer: Peer, _frame: Boom) -> list[AnyEffect]:
        raise RuntimeError("a handler bug")

    draw = Route(lambda peer, _frame: [Ran(f"draw by {peer.name}")])
    server.room.install(Feature("the test's frames", routes={Boom: Route(boom), Draw: draw}))

    async def record(effect: Ran) -> None:
        ran.append(effect.what)

    server.runtime.install(Adapter("the test's record", {Ran: record}))
    server.ran = ran  # type: ignore[attr-defined]
    await server.start()
    yield InProcessServer(server)
    await server.stop()
    for frame in (Boom, Draw):
        CLIENT_FRAMES.pop(frame.model_fields["t"].default, None)


def nested(depth: int, inner: str = "0") -> str:
    return "[" * depth + inner + "]" * depth


def hostile_frames(depth: int) -> list[str]:
    """A bare nest, one inside a valid frame's field, and one inside an awareness state."""
    return [
        nested(depth),
        json.dumps({"t": "ping"})[:-1] + ',"x":' + nested(depth) + "}",
        '{"t":"awareness","state":{"name":"a","color":"#aabbcc","cursor":' + nested(depth, "{}") + "}}",
    ]


async def refused_then_pong(client: HostClient | Guest, raw: str) -> None:
    """`raw` gets one `error`, and a ping right after gets its pong."""
    await client.send(raw)
    error = await client.expect("error")
    assert "too deep" in error["message"] or "too many values" in error["message"], error
    await client.send({"t": "ping"})
    await client.expect("pong")


async def joined_guest(served: InProcessServer) -> Guest:
    guest = await Guest(served.room_link, name="Ada", color="#3366aa").connect()
    await guest.expect("access")
    return guest


@pytest.mark.parametrize("depth", DEPTHS)
async def test_deep_frames_on_the_host_socket_get_an_error_and_the_socket_stays(
    served: InProcessServer, host_client: HostClient, depth: int
) -> None:
    for raw in hostile_frames(depth):
        await refused_then_pong(host_client, raw)


async def test_deep_frames_on_a_guest_channel_get_an_error_and_the_channel_stays(served: InProcessServer) -> None:
    guest = await joined_guest(served)
    for depth in DEPTHS:
        for raw in hostile_frames(depth):
            await refused_then_pong(guest, raw)
    await guest.close()


async def test_a_deep_auth_frame_is_only_unauthorized(served: InProcessServer) -> None:
    async with aiohttp.ClientSession() as session:
        ws = await session.ws_connect(served.ws_url, headers={"Origin": served.base_url})
        await ws.send_str(nested(2000))
        msg = await ws.receive(timeout=10)
        assert msg.type is aiohttp.WSMsgType.CLOSE and ws.close_code == CLOSE_UNAUTHORIZED
    client = await HostClient.connect(served)
    await client.close()


async def test_a_handler_that_raises_is_an_error_and_later_frames_still_run(
    served: InProcessServer, host_client: HostClient
) -> None:
    server: Any = served.server
    await host_client.send({"t": "room-set-access", "access": "edit"})
    await host_client.expect("guests", defaultAccess="edit")
    guest = await joined_guest(served)
    for client in (host_client, guest):
        await client.send({"t": "x-boom"})
        error = await client.expect("error", ref="x-boom")
        assert error["message"] == "the host failed to handle this x-boom frame"
        await client.send({"t": "x-draw"})
        await client.send({"t": "ping"})
        await client.expect("pong")
    assert server.ran == ["draw by host", "draw by Ada"]
    await guest.close()


async def test_a_host_too_slow_to_read_is_closed_once(served: InProcessServer, host_client: HostClient) -> None:
    transport = served.server.runtime.transports[host_client.welcome["peerId"]]
    assert isinstance(transport, WebSocketTransport)
    tasks_before = len(asyncio.all_tasks())
    # What the socket has room for is written at once and read first; the rest queues until the close.
    text = json.dumps({"t": "filler", "text": "x" * (1 << 20)})
    for _ in range(MAX_BACKLOG_BYTES // len(text) + 200):
        transport.send(text)
    assert len(asyncio.all_tasks()) <= tasks_before + 1
    assert transport.dropping is not None
    await transport.dropping
    with pytest.raises(ConnectionError, match=str(CLOSE_TOO_SLOW)):
        while True:
            await host_client.next_frame()


async def test_dropped_mcp_streams_and_a_nul_in_a_header_are_no_tracebacks(
    served: InProcessServer, caplog: pytest.LogCaptureFixture
) -> None:
    server: Any = served.server
    url = f"{served.base_url}/mcp/board"
    headers = {"Authorization": f"Bearer {server.board_mcp.secret_for('s1')}", "Accept": "text/event-stream"}
    # The event-stream library the MCP server uses starts one watcher task per loop, and keeps it.
    tasks_before = len(asyncio.all_tasks()) + 1
    async with aiohttp.ClientSession() as session:
        for _ in range(5):
            # An agent's MCP client opens its event stream and goes away without a word.
            response = await session.get(url, headers=headers)
            assert response.status == 200 and response.headers["Content-Type"].startswith("text/event-stream")
            response.close()
    reader, writer = await asyncio.open_connection("127.0.0.1", server.port)
    writer.write(b"GET /api/health HTTP/1.1\r\nHost: x\r\nX-Probe: a\x00b\r\n\r\n")
    assert (await reader.readline()).startswith(b"HTTP/1.0 400")
    writer.close()
    async with asyncio.timeout(15):
        # Each stream's handler notices its client left and ends (within a second or so).
        while len(asyncio.all_tasks()) > tasks_before:
            await asyncio.sleep(0.05)
    assert not [r for r in caplog.records if r.exc_info or r.levelno >= logging.ERROR]
    assert [r.getMessage() for r in caplog.records if r.name == "aiohttp.server"] == [
        "refused a malformed HTTP request (400: Invalid header value char)"
    ]


async def test_presence_sent_fast_or_fat_costs_the_others_the_same(served: InProcessServer) -> None:
    sender, watcher = await joined_guest(served), await joined_guest(served)
    relayed: list[float] = []
    watcher.listeners.append(
        lambda f: (
            relayed.append(f["state"]["cursor"]["x"])
            if f.get("t") == "awareness" and f.get("state") and f["peer"] != watcher.welcome["peerId"]
            else None
        )
    )
    fat = {"name": "a", "color": "#aabbcc", "selection": ["x" * 32] * 200, "cursor": {"x": -1, "y": 0}}
    start = time.monotonic()
    for i in range(100):
        await sender.send(
            {"t": "awareness", "state": fat if i % 2 else {**fat, "selection": [], "cursor": {"x": i, "y": 0}}}
        )
        await asyncio.sleep(max(0.0, start + (i + 1) / 100 - time.monotonic()))
    elapsed = time.monotonic() - start
    await sender.send({"t": "ping"})
    await sender.expect("pong")
    refused = [f for f in sender.seen if f["t"] == "error" and f.get("ref") == "awareness"]
    assert len(refused) == 50 and "selection" in refused[0]["message"]
    await watcher.send({"t": "ping"})
    await watcher.expect("pong")
    async with asyncio.timeout(5):
        while not relayed or relayed[-1] != 98:
            await watcher.next_frame()
    # At most one state per 50 ms reached the other guest, the latest one last, none of the fat ones.
    assert len(relayed) <= elapsed / 0.05 + 2 and -1 not in relayed, relayed
    await sender.close()
    await watcher.close()


ENCODINGS = ["utf-16-le", "utf-16-be", "utf-16", "utf-32"]
"""`json.loads` reads each of these from bytes by itself; the server reads only UTF-8."""


def deep_in(encoding: str, depth: int = 3000) -> bytes:
    return nested(depth).encode(encoding)


async def refused_as_not_utf8_or_too_deep(client: HostClient | Guest) -> None:
    error = await client.expect("error")
    assert "too deep" in error["message"] or "not JSON" in error["message"] or "UTF-8" in error["message"], error
    await client.send({"t": "ping"})
    await client.expect("pong")


@pytest.mark.parametrize("encoding", ENCODINGS)
async def test_deep_frames_in_utf16_and_utf32_on_the_host_socket_get_an_error(
    served: InProcessServer, host_client: HostClient, encoding: str
) -> None:
    await host_client.ws.send_bytes(deep_in(encoding))
    await refused_as_not_utf8_or_too_deep(host_client)


async def test_deep_frames_in_utf16_and_utf32_on_a_guest_channel_get_an_error(served: InProcessServer) -> None:
    guest = await joined_guest(served)
    assert guest.channel is not None
    for encoding in ENCODINGS:
        guest.channel.send(deep_in(encoding))
        await refused_as_not_utf8_or_too_deep(guest)
    await guest.close()


class FirstFrameIn(Guest):
    encoding = "utf-16"

    def join_frame(self, challenge: bytes, offer: str, answer: str) -> str | bytes:
        # Deep enough for the parser's recursion limit, small enough for the join's 4 KiB in UTF-16.
        return deep_in(self.encoding, 1000)


@pytest.mark.parametrize("encoding", ENCODINGS)
async def test_a_guest_whose_first_frame_is_deep_utf16_is_refused_and_its_connection_closed(
    served: InProcessServer, encoding: str
) -> None:
    hub: Any = served.server.hub
    guest = FirstFrameIn(served.room_link, name="Mallory", reconnect=False)
    guest.encoding = encoding
    with pytest.raises(HubRefused, match=r"not JSON|too deep|UTF-8|too large"):
        await guest.connect()
    await guest.close()
    # The hub lets its refusal leave, then closes: its handshake ends with the peer connection.
    async with asyncio.timeout(5):
        while hub.admission.handshakes:
            await asyncio.sleep(0.01)
    assert not hub._answering and not hub.live
    # The room still takes an honest guest.
    honest = await joined_guest(served)
    await honest.close()


@pytest.mark.parametrize("encoding", ENCODINGS)
async def test_deep_bodies_in_utf16_and_utf32_on_the_api_are_a_400(served: InProcessServer, encoding: str) -> None:
    headers = {"Authorization": f"Bearer {served.token}", "Content-Type": "application/json"}
    async with aiohttp.ClientSession() as session:
        async with session.post(f"{served.base_url}/api/sessions", data=deep_in(encoding), headers=headers) as response:
            assert response.status == 400, await response.text()
            assert "not JSON" in (await response.json())["error"]["message"]
        health = await session.get(f"{served.base_url}/api/health")
        assert health.status == 200


@pytest.mark.parametrize("header", [b"Bearer \xff\xfe", b"Bearer \xed\xa0\x80", "Bearer caf\u00e9".encode("latin-1")])
async def test_a_malformed_credential_is_a_401(served: InProcessServer, header: bytes) -> None:
    reader, writer = await asyncio.open_connection("127.0.0.1", served.server.port)
    writer.write(
        b"GET /api/sessions HTTP/1.1\r\nHost: x\r\nConnection: close\r\nAuthorization: " + header + b"\r\n\r\n"
    )
    await writer.drain()
    status_line = await reader.readline()
    writer.close()
    assert status_line.split()[1] == b"401", status_line


async def test_a_lone_surrogate_in_the_socket_token_is_only_unauthorized(served: InProcessServer) -> None:
    async with aiohttp.ClientSession() as session:
        ws = await session.ws_connect(served.ws_url, headers={"Origin": served.base_url})
        await ws.send_str('{"t":"auth","token":"\\ud800"}')
        msg = await ws.receive(timeout=10)
        assert msg.type is aiohttp.WSMsgType.CLOSE and ws.close_code == CLOSE_UNAUTHORIZED
