"""The host's WebSocket (`/ws`): a thin adapter between aiohttp and the runtime.

The first frame must be `auth` with the host token; a wrong or missing token or a foreign
Origin closes the socket with 4401 and nothing else is sent.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import json
import logging
from collections.abc import Callable

from aiohttp import WSMsgType, web

from canvasrelay.policy import Access
from canvasrelay.protocol import MAX_FRAME_BYTES
from canvasrelay.room import Peer
from canvasrelay.runtime import Runtime

log = logging.getLogger(__name__)

CLOSE_UNAUTHORIZED = 4401
CLOSE_TOO_SLOW = 4408
AUTH_TIMEOUT = 10.0
HEARTBEAT = 20.0
MAX_BACKLOG_BYTES = 16 << 20
"""A host that reads slower than this is dropped; it reconnects and gets the full state again."""
MAX_MESSAGE_BYTES = 16 * MAX_FRAME_BYTES
"""aiohttp closes above this; between MAX_FRAME_BYTES and this a frame gets an `error` instead."""

_peer_numbers = itertools.count(1)


class WebSocketTransport:
    def __init__(self, ws: web.WebSocketResponse) -> None:
        self.ws = ws
        self.queue: asyncio.Queue[str] = asyncio.Queue()
        self.backlog = 0
        self.writer = asyncio.create_task(self._write())

    def send(self, text: str) -> None:
        if self.ws.closed:
            return
        self.backlog += len(text)
        if self.backlog > MAX_BACKLOG_BYTES:
            asyncio.get_running_loop().create_task(self.close(CLOSE_TOO_SLOW, "too slow"))
            return
        self.queue.put_nowait(text)

    async def _write(self) -> None:
        while True:
            text = await self.queue.get()
            self.backlog -= len(text)
            try:
                await self.ws.send_str(text)
            except (ConnectionError, RuntimeError):
                return

    async def close(self, code: int, reason: str) -> None:
        self.writer.cancel()
        await self.ws.close(code=code, message=reason.encode("utf-8"))


async def _authenticate(ws: web.WebSocketResponse, token_matches: Callable[[str], bool]) -> bool:
    try:
        msg = await ws.receive(timeout=AUTH_TIMEOUT)
    except TimeoutError:
        return False
    if msg.type is not WSMsgType.TEXT or len(msg.data) > 4096:
        return False
    try:
        frame = json.loads(msg.data)
    except ValueError:
        return False
    token = frame.get("token") if isinstance(frame, dict) and frame.get("t") == "auth" else None
    return isinstance(token, str) and token_matches(token)


def host_socket(runtime: Runtime, token_matches: Callable[[str], bool], own_origins: set[str]):
    async def handler(request: web.Request) -> web.WebSocketResponse:
        ws = web.WebSocketResponse(heartbeat=HEARTBEAT, max_msg_size=MAX_MESSAGE_BYTES)
        await ws.prepare(request)
        origin = request.headers.get("Origin")
        if (origin is not None and origin not in own_origins) or not await _authenticate(ws, token_matches):
            await ws.close(code=CLOSE_UNAUTHORIZED, message=b"unauthorized")
            return ws
        peer = Peer(id=f"host-{next(_peer_numbers)}", access=Access.HOST, name="host")
        transport = WebSocketTransport(ws)
        await runtime.connect(peer, transport)
        try:
            async for msg in ws:
                if msg.type in (WSMsgType.TEXT, WSMsgType.BINARY):
                    await runtime.receive(peer.id, msg.data)
        finally:
            await runtime.disconnect(peer.id)
            transport.writer.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await transport.writer
        return ws

    return handler
