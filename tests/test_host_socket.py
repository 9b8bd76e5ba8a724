"""The host's socket writes a frame sent to every host as one WebSocket frame, encoded once:
each host reads exactly what was sent, at every length (the frame's header grows from 2 to 4 to
10 bytes at 126 and 65,536 bytes), counted in bytes, not characters."""

from __future__ import annotations

import json

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
