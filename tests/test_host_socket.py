"""The host's socket writes a frame sent to every host as one WebSocket frame, encoded once:
each host reads exactly what was sent, at every length (the frame's header grows from 2 to 4 to
10 bytes at 126 and 65,536 bytes), counted in bytes, not characters."""

from __future__ import annotations

import asyncio
import json

import aiohttp
import pytest

from canvasrelay.server.transports import websocket
from canvasrelay.server.transports.websocket import WebSocketTransport
from tests.support import HostClient, InProcessServer

SIZES = [30, 125, 126, 127, 65_535, 65_536, 65_537, 1 << 20]


def text_of(size: int) -> str:
    """A frame whose UTF-8 takes `size` bytes, one of its characters two of them."""
    start = '{"t":"filler","text":"é'
    end = '"}'
    return start + "x" * (size - len(start.encode()) - len(end)) + end


async def test_every_host_reads_each_frame_whole_at_every_length(served: InProcessServer) -> None:
    texts = [text_of(size) for size in SIZES]
    assert [len(text.encode()) for text in texts] == SIZES
    hosts = [await HostClient.connect(served) for _ in range(2)]
    try:
        transports = [served.server.runtime.transports[host.welcome["peerId"]] for host in hosts]
        assert all(isinstance(transport, WebSocketTransport) for transport in transports)
        for text in texts:
            for transport in transports:
                transport.send(text)
        for transport in transports:
            await transport.flush()
        for host in hosts:
            for text in texts:
                assert await host.expect("filler") == json.loads(text)
    finally:
        for host in hosts:
            await host.close()


async def test_frames_sent_in_a_burst_arrive_whole_in_order_and_before_a_close(served: InProcessServer) -> None:
    # A burst is written to each socket together at its window's end: a frame only one host is
    # sent among frames for both, and the close right after, must not reorder or lose any.
    hosts = [await HostClient.connect(served) for _ in range(2)]
    try:
        transports = [served.server.runtime.transports[host.welcome["peerId"]] for host in hosts]
        for index in range(300):
            text = json.dumps({"t": "filler", "n": index})
            for transport in transports if index % 3 else transports[:1]:
                transport.send(text)
        await transports[1].close(1001, "going away")
        for index in range(300):
            assert await hosts[0].expect("filler") == {"t": "filler", "n": index}
        received = []
        while True:
            msg = await hosts[1].ws.receive()
            if msg.type is not aiohttp.WSMsgType.TEXT:
                break
            frame = json.loads(msg.data)
            if frame["t"] == "filler":
                received.append(frame["n"])
        assert received == [index for index in range(300) if index % 3]
        assert msg.type is aiohttp.WSMsgType.CLOSE and msg.data == 1001
    finally:
        for host in hosts:
            await host.close()


async def test_a_frame_sent_at_once_goes_at_once_with_what_was_held_before_it(
    served: InProcessServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    # With a window of a minute, only `at_once` (a terminal's live output) can bring the frame held
    # before it within the wait below.
    monkeypatch.setattr(websocket, "WRITE_WINDOW_S", 60.0)
    host = await HostClient.connect(served)
    try:
        transport = served.server.runtime.transports[host.welcome["peerId"]]
        for index, at_once in enumerate([False, False, False, True]):
            transport.send(json.dumps({"t": "filler", "n": index}), at_once=at_once)
        for index in range(4):
            assert await host.expect("filler") == {"t": "filler", "n": index}
    finally:
        await host.close()


async def test_after_a_quiet_spell_a_whole_loop_turn_writes_at_once_and_the_next_waits() -> None:
    # A broadcast reaches every socket in one loop turn: none of them may wait for the window the
    # first write opened. What is sent in the turns after it is held for the window's end.
    group = websocket.SocketGroup()
    assert [group.window_open() for _ in range(50)] == [False] * 50
    # Callbacks run in the order they were scheduled: once this one has, the next turn has begun.
    loop = asyncio.get_running_loop()
    next_turn = loop.create_future()
    loop.call_soon(next_turn.set_result, None)
    await next_turn
    assert group.window_open()
