"""A guest's side of the runtime: a numbered, bounded stream of frames over a data channel.

`GuestStream` is the `Transport` the runtime sends to. It outlives one data channel: it numbers
every frame (`seq`), keeps a bounded ring of what it sent so a reconnecting guest resumes after
its last `seq`, and writes to whichever channel is attached. Frames waiting for the channel are
coalesced into one message (`[firstSeq, frame, frame…]`); a message above the 256 KiB data-channel
cap travels as `chunk` pieces. When a guest falls too far behind, the stream gives up on it
(`on_overflow`): the hub then sends a `gap` and the full state instead of a growing backlog.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import time
from collections import deque
from collections.abc import Awaitable, Callable, Iterator
from typing import Any, Protocol

MAX_MESSAGE_BYTES = 256 * 1024
"""Chromium's largest data-channel message."""
CHUNK_CHARS = 60_000
"""A chunk's characters; even if each took 4 bytes of UTF-8, a chunk stays under the cap."""
COALESCE_BYTES = 64 * 1024
"""Small frames are packed into messages up to this size: one SCTP send instead of many."""
HIGH_WATER = 1 << 20
"""Stop writing while this much sits in the channel's send buffer, so the backlog stays countable here."""
MAX_PENDING_BYTES = 8 << 20
"""A guest further behind than this skips ahead to the full state."""
RING_BYTES = 4 << 20
RING_FRAMES = 8192
MAX_INBOUND_BYTES = 1 << 20
INBOUND_RATE = 100.0
"""Frames per second a guest may send on average…"""
INBOUND_BURST = 200.0
"""…and at once. Beyond that its frames are dropped, so a flood cannot slow the others."""


class Channel(Protocol):
    """What the stream needs of an aiortc `RTCDataChannel`."""

    @property
    def bufferedAmount(self) -> int: ...

    def send(self, data: str) -> None: ...


def chunks(text: str, message_id: int) -> Iterator[str]:
    """One message as chunk frames when it is above the cap, else the message itself."""
    if len(text.encode("utf-8")) <= MAX_MESSAGE_BYTES:
        yield text
        return
    for start in range(0, len(text), CHUNK_CHARS):
        piece = text[start : start + CHUNK_CHARS]
        more = start + CHUNK_CHARS < len(text)
        yield json.dumps(
            {"t": "chunk", "id": message_id, "more": more, "data": piece}, ensure_ascii=False, separators=(",", ":")
        )


class Reassembler:
    """Joins `chunk` pieces back into messages; refuses a message above `limit`."""

    def __init__(self, limit: int = MAX_INBOUND_BYTES) -> None:
        self.limit = limit
        self.parts: list[str] = []
        self.size = 0

    def feed(self, message: str) -> str | None:
        """The whole message once complete; raises ValueError when a chunk is malformed or too large."""
        if not message.startswith('{"t":"chunk"'):
            if self.parts:
                raise ValueError("a chunked message was interrupted")
            return message
        piece = json.loads(message)
        data, more = piece.get("data"), piece.get("more")
        if not isinstance(data, str) or not isinstance(more, bool):
            self.parts, self.size = [], 0
            raise ValueError("malformed chunk")
        self.size += len(data)
        if self.size > self.limit:
            self.parts, self.size = [], 0
            raise ValueError(f"chunked frame too large (limit {self.limit} bytes)")
        self.parts.append(data)
        if more:
            return None
        whole = "".join(self.parts)
        self.parts, self.size = [], 0
        return whole


class GuestStream:
    def __init__(self, on_overflow: Callable[[GuestStream], None], first_seq: int = 1) -> None:
        self.on_overflow = on_overflow
        self.next_seq = first_seq
        self.ring: deque[tuple[int, str]] = deque()
        self.ring_bytes = 0
        self.pending: deque[tuple[int, str]] = deque()
        self.pending_bytes = 0
        self.overflowed = False
        self.channel: Channel | None = None
        self.closer: Callable[[int, str], Awaitable[None]] | None = None
        self._wake = asyncio.Event()
        self._drained = asyncio.Event()
        self._messages = 0
        self._writer: asyncio.Task[None] | None = None

    @property
    def last_seq(self) -> int:
        return self.next_seq - 1

    @property
    def backlog(self) -> int:
        """Characters sent and not yet written to a channel, under the name the WebSocket transport uses."""
        return self.pending_bytes

    def send(self, text: str) -> None:
        if self.overflowed:
            return
        seq = self.next_seq
        self.next_seq += 1
        self.ring.append((seq, text))
        self.ring_bytes += len(text)
        while self.ring and (self.ring_bytes > RING_BYTES or len(self.ring) > RING_FRAMES):
            self.ring_bytes -= len(self.ring.popleft()[1])
        self.pending.append((seq, text))
        self.pending_bytes += len(text)
        if self.pending_bytes > MAX_PENDING_BYTES:
            self.overflowed = True
            self.pending.clear()
            self.pending_bytes = 0
            self.on_overflow(self)
            return
        self._wake.set()

    async def flush(self) -> None:
        """Nothing to do: the writer task sends as soon as the channel has room."""

    def can_resume_after(self, seq: int) -> bool:
        if seq == self.last_seq:
            return True
        return bool(self.ring) and self.ring[0][0] <= seq + 1 <= self.last_seq

    def attach(self, channel: Channel, after: int | None = None) -> None:
        """Write to `channel` from now on; with `after`, first replay what the guest missed."""
        self.detach()
        if after is not None:
            self.pending = deque(item for item in self.ring if item[0] > after)
            self.pending_bytes = sum(len(text) for _, text in self.pending)
        self.channel = channel
        self._writer = asyncio.get_running_loop().create_task(self._write(channel))
        self._wake.set()

    def detach(self) -> None:
        self.channel = None
        if self._writer is not None:
            self._writer.cancel()
            self._writer = None

    def buffer_low(self) -> None:
        self._drained.set()

    async def close(self, code: int, reason: str) -> None:
        if self.closer is not None:
            await self.closer(code, reason)
        self.detach()

    async def _write(self, channel: Channel) -> None:
        while True:
            await self._wake.wait()
            self._wake.clear()
            while self.pending:
                while channel.bufferedAmount > HIGH_WATER:
                    self._drained.clear()
                    await self._drained.wait()
                first = self.pending[0][0]
                texts: list[str] = []
                size = 0
                while self.pending and (not texts or size + len(self.pending[0][1]) < COALESCE_BYTES):
                    _, text = self.pending.popleft()
                    texts.append(text)
                    size += len(text)
                self.pending_bytes -= size
                self._messages += 1
                for message in chunks(f"[{first},{','.join(texts)}]", self._messages):
                    channel.send(message)


class InboundGate:
    """A token bucket per guest: frames beyond its rate are dropped, with one warning per second."""

    def __init__(self, rate: float = INBOUND_RATE, burst: float = INBOUND_BURST) -> None:
        self.rate = rate
        self.burst = burst
        self.tokens = burst
        self.stamp = time.monotonic()
        self.warned = 0.0

    def admit(self) -> bool:
        now = time.monotonic()
        self.tokens = min(self.burst, self.tokens + (now - self.stamp) * self.rate)
        self.stamp = now
        if self.tokens >= 1.0:
            self.tokens -= 1.0
            return True
        return False

    def should_warn(self) -> bool:
        now = time.monotonic()
        if now - self.warned < 1.0:
            return False
        self.warned = now
        return True


def parse_stream_message(message: str) -> tuple[int | None, list[Any]]:
    """A hub message as (seq of its first frame, frames); unnumbered messages give (None, [frame])."""
    data = json.loads(message)
    if isinstance(data, list):
        if not data or not isinstance(data[0], int):
            raise ValueError("stream message without a seq")
        return data[0], data[1:]
    return None, [data]


async def cancel(task: asyncio.Task[Any] | None) -> None:
    if task is not None:
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await task
