"""The host's WebSocket (`/ws`): a thin adapter between aiohttp and the runtime.

The first frame must be `auth` with the host token; a wrong or missing token or a foreign
Origin closes the socket with 4401 and nothing else is sent.
"""

from __future__ import annotations

import asyncio
import itertools
import logging
from collections import deque
from collections.abc import Callable

from aiohttp import WSMsgType, web

from canvasrelay.core.peer import Peer
from canvasrelay.protocol import MAX_FRAME_BYTES, FrameError
from canvasrelay.protocol.access import Access
from canvasrelay.protocol.base import load_bounded
from canvasrelay.server.background import cancelled
from canvasrelay.server.runtime import GOING_AWAY, Runtime
from canvasrelay.server.transports.draining import Draining

log = logging.getLogger(__name__)

CLOSE_UNAUTHORIZED = 4401
CLOSE_TOO_SLOW = 4408
AUTH_TIMEOUT = 10.0
HEARTBEAT = 20.0
MAX_BACKLOG_BYTES = 16 << 20
"""A host that reads slower than this is dropped; it reconnects and gets the full state again."""
MAX_MESSAGE_BYTES = 16 * MAX_FRAME_BYTES
"""aiohttp closes above this; between MAX_FRAME_BYTES and this a frame gets an `error` instead."""

INLINE_WRITE_LIMIT = 32 << 10
"""Below asyncio's 64 KiB high-water mark, so an inline write never waits for the peer to drain."""

_peer_numbers = itertools.count(1)


class SocketGroup:
    """What the host sockets of one server share, since a broadcast hands the same text to each:
    one wake-up per loop turn for all sockets with frames queued (not one each), and the UTF-8
    of the frame being written (encoded once, not once per socket)."""

    def __init__(self) -> None:
        self._queued: list[WebSocketTransport] = []
        self._text = ""
        self._data = b""

    def queued(self, transport: WebSocketTransport) -> None:
        """`transport` has frames: if nothing writes them this turn (a runtime batch does, inline),
        its writer task will, at the next turn."""
        if not self._queued:
            asyncio.get_running_loop().call_soon(self._kick)
        self._queued.append(transport)

    def _kick(self) -> None:
        queued, self._queued = self._queued, []
        for transport in queued:
            transport.kick()

    def utf8(self, text: str) -> bytes:
        if text is not self._text:
            self._text, self._data = text, text.encode("utf-8")
        return self._data


class WebSocketTransport:
    """Frames queue here; the runtime flushes them inline after each batch of effects.

    Writing inline spares a task switch per frame per peer (the hub's main cost in a fan-out).
    When the socket's buffer is full the writer task takes over, so a slow peer never makes the
    runtime wait; what is still unsent a moment later is written by that task too.
    """

    def __init__(self, ws: web.WebSocketResponse, socket: asyncio.BaseTransport | None, group: SocketGroup) -> None:
        self.ws = ws
        self.socket = socket
        self.group = group
        self.queue: deque[str] = deque()
        self.backlog = 0
        self._kick_scheduled = False
        self._writing = False
        self.dropping: asyncio.Task[None] | None = None
        """The one close of a peer too far behind; whatever is sent after it goes nowhere."""
        self._wake = asyncio.Event()
        self._draining = Draining(lambda: self.backlog)
        self.writer = asyncio.create_task(self._write())

    def send(self, text: str) -> None:
        if self.ws.closed:
            return
        if self.dropping is not None:
            return
        self.backlog += len(text)
        if self.backlog > MAX_BACKLOG_BYTES:
            self.dropping = asyncio.get_running_loop().create_task(self.close(CLOSE_TOO_SLOW, "too slow"))
            return
        self.queue.append(text)
        if not self._kick_scheduled:
            self._kick_scheduled = True
            self.group.queued(self)

    def kick(self) -> None:
        self._kick_scheduled = False
        if self.queue:
            self._wake.set()

    def _room_to_write(self) -> bool:
        socket = self.socket
        return isinstance(socket, asyncio.WriteTransport) and socket.get_write_buffer_size() < INLINE_WRITE_LIMIT

    async def flush(self) -> None:
        """Write what is queued now, unless the writer task is at it or the socket is backed up."""
        if self._writing:
            return
        self._writing = True
        try:
            while self.queue and self._room_to_write():
                await self._send_next()
        except (ConnectionError, RuntimeError):
            self.queue.clear()
        finally:
            self._writing = False

    async def below(self, chars: int) -> None:
        await self._draining.below(chars)

    async def _send_next(self) -> None:
        text = self.queue.popleft()
        self.backlog -= len(text)
        self._draining.took()
        await self.ws.send_frame(self.group.utf8(text), WSMsgType.TEXT)

    async def _write(self) -> None:
        while True:
            await self._wake.wait()
            self._wake.clear()
            if self._writing:
                continue
            self._writing = True
            try:
                while self.queue:
                    await self._send_next()
            except (ConnectionError, RuntimeError):
                return
            finally:
                self._writing = False

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
        frame = load_bounded(msg.data)
    except FrameError:
        return False
    token = frame.get("token") if isinstance(frame, dict) and frame.get("t") == "auth" else None
    return isinstance(token, str) and token_matches(token)


def host_socket(runtime: Runtime, token_matches: Callable[[str], bool], own_origins: set[str]):
    group = SocketGroup()

    async def handler(request: web.Request) -> web.WebSocketResponse:
        # No per-message deflate: it would compress every broadcast once per peer, on a local link.
        ws = web.WebSocketResponse(heartbeat=HEARTBEAT, max_msg_size=MAX_MESSAGE_BYTES, compress=False)
        await ws.prepare(request)
        origin = request.headers.get("Origin")
        if (origin is not None and origin not in own_origins) or not await _authenticate(ws, token_matches):
            await ws.close(code=CLOSE_UNAUTHORIZED, message=b"unauthorized")
            return ws
        if runtime.closing:
            await ws.close(code=GOING_AWAY, message=b"server stopping")
            return ws
        peer = Peer(id=f"host-{next(_peer_numbers)}", access=Access.HOST, name="host")
        transport = WebSocketTransport(ws, request.transport, group)
        await runtime.connect(peer, transport)
        try:
            async for msg in ws:
                if msg.type in (WSMsgType.TEXT, WSMsgType.BINARY):
                    await runtime.receive(peer.id, msg.data)
        finally:
            await runtime.disconnect(peer.id)
            await cancelled(transport.writer)
        return ws

    return handler
