"""The host's WebSocket (`/ws`): a thin adapter between aiohttp and the runtime.

The first frame must be `auth` with the host token; a wrong or missing token or a foreign
Origin closes the socket with 4401 and nothing else is sent.
"""

from __future__ import annotations

import asyncio
import itertools
import logging
import struct
from collections import deque
from collections.abc import Callable

from aiohttp import WSMsgType, web

from canvasrelay.core.peer import Peer
from canvasrelay.net.tasks import cancelled
from canvasrelay.protocol import MAX_FRAME_BYTES, FrameError
from canvasrelay.protocol.access import Access
from canvasrelay.protocol.base import load_bounded
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
"""Below asyncio's 64 KiB high-water mark: past it a peer's frames queue here, counted in its backlog."""
WRITE_WINDOW_S = 0.016
"""A frame of a 60 Hz screen: what arrives within it would show in the same frame anyway."""

_peer_numbers = itertools.count(1)
_FIN_TEXT = 0x80 | WSMsgType.TEXT
_SHORT_HEADER, _MEDIUM_HEADER, _LONG_HEADER = struct.Struct("!BB"), struct.Struct("!BBH"), struct.Struct("!BBQ")


class SocketGroup:
    """What the host sockets of one server share, since a broadcast hands the same text to each:
    one wake-up per loop turn for all sockets with frames queued (not one each), the WebSocket
    frame of the text being written (encoded once, not once per socket: a server's frames are
    neither masked nor deflated here, so every socket is sent the same bytes), and a write window.

    Frames sent while nothing was written for `WRITE_WINDOW_S` go out at once, for the rest of
    that loop turn (a broadcast reaches every socket in one turn); frames sent within the window
    after that turn are held and each socket gets them in one write when the window ends. Busy
    rooms (fifty people moving things on the board) then cost one system call per socket per
    window rather than one per frame. A frame sent `at_once` (a terminal's live output, which a
    keystroke's echo is) is never held: it goes, after what its socket holds, at once."""

    def __init__(self) -> None:
        self._queued: list[WebSocketTransport] = []
        self._text = ""
        self._frame = b""
        self._opening = False
        self._ends = 0.0
        """When the open window ends; past it, no window is open."""
        self._holding: list[WebSocketTransport] = []

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

    def frame(self, text: str) -> bytes:
        """`text` as one whole, unmasked WebSocket text frame (RFC 6455, 5.2). A frame for several
        peers is sent to each in turn, so keeping the last one is enough."""
        if text is not self._text:
            self._text, self._frame = text, _text_frame(text.encode("utf-8"))
        return self._frame

    def window_open(self) -> bool:
        """Whether a frame sent now waits for the window's end: something was written less than
        `WRITE_WINDOW_S` ago, before this loop turn. If not, the window opens at the next turn."""
        loop = asyncio.get_running_loop()
        if loop.time() < self._ends:
            return True
        if not self._opening:
            self._opening = True
            loop.call_soon(self._window_opens)
        return False

    def _window_opens(self) -> None:
        # No timer: a window nothing is held in ends unnoticed, and costs a quiet room no wake-up.
        self._opening, self._ends = False, asyncio.get_running_loop().time() + WRITE_WINDOW_S

    def holding(self, transport: WebSocketTransport) -> None:
        """`transport` holds frames for the window's end."""
        if not self._holding:
            asyncio.get_running_loop().call_at(self._ends, self._window_ends)
        self._holding.append(transport)

    def _window_ends(self) -> None:
        holding, self._holding = self._holding, []
        for transport in holding:
            transport.release()
        # Writing now opens the next window.
        self._ends = asyncio.get_running_loop().time() + WRITE_WINDOW_S


def _text_frame(payload: bytes) -> bytes:
    size = len(payload)
    if size < 126:
        header = _SHORT_HEADER.pack(_FIN_TEXT, size)
    elif size < 1 << 16:
        header = _MEDIUM_HEADER.pack(_FIN_TEXT, 126, size)
    else:
        header = _LONG_HEADER.pack(_FIN_TEXT, 127, size)
    return header + payload


class WebSocketTransport:
    """A frame goes straight to the socket when it is sent, if nothing waits before it and the
    socket's buffer has room: a broadcast costs each peer one write, no copy and no task switch.
    Otherwise it queues; the runtime flushes the queue after each batch of effects, and when the
    socket's buffer is full the writer task takes over, so a slow peer never makes the runtime wait.
    """

    def __init__(self, ws: web.WebSocketResponse, socket: asyncio.BaseTransport | None, group: SocketGroup) -> None:
        self.ws = ws
        self.socket = socket if isinstance(socket, asyncio.WriteTransport) else None
        self.group = group
        self.queue: deque[str] = deque()
        self.backlog = 0
        self._kick_scheduled = False
        self._writing = False
        self._held: list[bytes] = []
        self._held_bytes = 0
        self.dropping: asyncio.Task[None] | None = None
        """The one close of a peer too far behind; whatever is sent after it goes nowhere."""
        self._wake = asyncio.Event()
        self._draining = Draining(lambda: self.backlog)
        self.writer = asyncio.create_task(self._write())

    def send(self, text: str, at_once: bool = False) -> None:
        if self.ws.closed:
            return
        if self.dropping is not None:
            return
        if self._held:
            self._hold(text)
            if at_once:
                self.release()
            return
        if not self.queue and not self._writing and (socket := self._room_to_write()) is not None:
            if not at_once and self.group.window_open():
                self._hold(text)
                self.group.holding(self)
            else:
                socket.write(self.group.frame(text))
            return
        self.backlog += len(text)
        if self.backlog > MAX_BACKLOG_BYTES:
            self.dropping = asyncio.get_running_loop().create_task(self.close(CLOSE_TOO_SLOW, "too slow"))
            return
        self.queue.append(text)
        if not self._kick_scheduled:
            self._kick_scheduled = True
            self.group.queued(self)

    def _hold(self, text: str) -> None:
        frame = self.group.frame(text)
        self._held.append(frame)
        self._held_bytes += len(frame)
        if self._held_bytes >= INLINE_WRITE_LIMIT:
            self.release()

    def release(self) -> None:
        """Write the frames held for the window in one go (none is held past the socket's room:
        a window's frames stop being held at `INLINE_WRITE_LIMIT`)."""
        if not self._held:
            return
        held, self._held, self._held_bytes = self._held, [], 0
        if self.socket is not None and not self.socket.is_closing():
            self.socket.write(b"".join(held))

    def kick(self) -> None:
        self._kick_scheduled = False
        if self.queue:
            self._wake.set()

    def _room_to_write(self) -> asyncio.WriteTransport | None:
        """The socket, if a write now would not take its buffer past `INLINE_WRITE_LIMIT`."""
        socket = self.socket
        if socket is None or socket.is_closing() or socket.get_write_buffer_size() >= INLINE_WRITE_LIMIT:
            return None
        return socket

    async def flush(self) -> None:
        """Write what is queued now, unless the writer task is at it or the socket is backed up."""
        if self._writing:
            return
        while self.queue and (socket := self._room_to_write()) is not None:
            socket.write(self.group.frame(self._take()))

    async def below(self, chars: int) -> None:
        await self._draining.below(chars)

    def _take(self) -> str:
        """The next queued frame, off the backlog."""
        text = self.queue.popleft()
        self.backlog -= len(text)
        self._draining.took()
        return text

    async def _write(self) -> None:
        while True:
            await self._wake.wait()
            self._wake.clear()
            if self._writing:
                continue
            self._writing = True
            try:
                while self.queue:
                    await self.ws.send_frame(self._take().encode("utf-8"), WSMsgType.TEXT)
            except (ConnectionError, RuntimeError):
                return
            finally:
                self._writing = False

    async def close(self, code: int, reason: str) -> None:
        self.release()
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
