"""Frames meant to break the server, on the host's socket and on a guest's channel: nesting, a
handler that raises, a host too slow to read. Each gets one `error` and the connection stays."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any, ClassVar, Literal

import aiohttp
import pytest

from canvasrelay.client.guest import Guest
from canvasrelay.core.effects import AnyEffect
from canvasrelay.core.room import Peer
from canvasrelay.protocol import CLIENT_FRAMES, ClientFrame
from canvasrelay.protocol.access import Action
from canvasrelay.server.app import CanvasServer, ServeOptions
from canvasrelay.server.transport_ws import CLOSE_TOO_SLOW, CLOSE_UNAUTHORIZED, MAX_BACKLOG_BYTES, WebSocketTransport
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

    server.room.route(Boom, boom)
    server.room.route(Draw, lambda peer, _frame: [Ran(f"draw by {peer.name}")])

    async def record(effect: Ran) -> None:
        ran.append(effect.what)

    server.runtime.handle(Ran, record)
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


async def joined_guest(served: InProcessServer) -> Guest:
    guest = await Guest(served.room_link, name="Ada", color="#3366aa").connect()
    await guest.expect("access")
    return guest


@pytest.mark.parametrize("depth", DEPTHS)
async def test_deep_frames_on_the_host_socket_get_an_error_and_the_socket_stays(
    served: InProcessServer, host_client: HostClient, depth: int
) -> None:
    for raw in hostile_frames(depth):
        await host_client.send(raw)
        error = await host_client.expect("error")
        assert "too deep" in error["message"] or "too many values" in error["message"], error
        await host_client.send({"t": "ping"})
        await host_client.expect("pong")


async def test_deep_frames_on_a_guest_channel_get_an_error_and_the_channel_stays(served: InProcessServer) -> None:
    guest = await joined_guest(served)
    for depth in DEPTHS:
        for raw in hostile_frames(depth):
            await guest.send(raw)
            error = await guest.expect("error")
            assert "too deep" in error["message"] or "too many values" in error["message"], error
            await guest.send({"t": "ping"})
            await guest.expect("pong")
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
    text = "x" * (1 << 20)
    for _ in range(MAX_BACKLOG_BYTES // len(text) + 200):
        transport.send(text)
    assert len(asyncio.all_tasks()) <= tasks_before + 1
    assert transport.dropping is not None
    await transport.dropping
    with pytest.raises(ConnectionError, match=str(CLOSE_TOO_SLOW)):
        while True:
            await host_client.next_frame()
