"""A guest's side of the runtime: a numbered, bounded stream of frames over a data channel.

`GuestStream` is the `Transport` the runtime sends to. It outlives one data channel: it numbers
every frame (`seq`), keeps a bounded ring of what it sent so a reconnecting guest resumes after
its last `seq`, and writes to whichever channel is attached. Frames waiting for the channel are
coalesced into one message (`[firstSeq, frame, frame…]`); a message above the 256 KiB data-channel
cap travels as `chunk` pieces. A message of 2 KiB or more travels deflated, as a binary message; a
frame that large travels alone, deflated once for every guest it goes to (`deflate_once`). When a
guest falls too far behind, the stream gives up on it (`on_overflow`): the hub then sends a `gap`
and the full state instead of a growing backlog.
"""

from __future__ import annotations

import asyncio
from collections import deque
from collections.abc import Awaitable, Callable

from canvasrelay.net.channel import Channel
from canvasrelay.protocol.framing import chunks, compressed_message
from canvasrelay.server.transports.deflate_once import COMPRESS_MIN_CHARS, SHARED, DeflateOnce
from canvasrelay.server.transports.draining import Draining

COALESCE_BYTES = 64 * 1024
"""Small frames are packed into messages up to this size: one SCTP send instead of many."""
HIGH_WATER = 1 << 20
"""Stop writing while this much sits in the channel's send buffer, so the backlog stays countable here."""
MAX_PENDING_BYTES = 8 << 20
"""A guest further behind than this skips ahead to the full state."""
RING_BYTES = 4 << 20
RING_FRAMES = 8192


class GuestStream:
    def __init__(
        self, on_overflow: Callable[[GuestStream], None], first_seq: int = 1, deflater: DeflateOnce = SHARED
    ) -> None:
        self.on_overflow = on_overflow
        self.deflater = deflater
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
        self._written = asyncio.Event()
        """Set while nothing waits to be written to the channel."""
        self._messages = 0
        self._writer: asyncio.Task[None] | None = None
        self._draining = Draining(lambda: self.pending_bytes)

    @property
    def last_seq(self) -> int:
        return self.next_seq - 1

    @property
    def backlog(self) -> int:
        """Characters sent and not yet written to a channel, under the name the WebSocket transport uses."""
        return self.pending_bytes

    def send(self, text: str, at_once: bool = False) -> None:
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
        self._written.clear()
        if self.pending_bytes > MAX_PENDING_BYTES:
            self.overflowed = True
            self.pending.clear()
            self.pending_bytes = 0
            self._draining.took()
            self.on_overflow(self)
            return
        self._wake.set()

    async def flush(self) -> None:
        """Nothing to do: the writer task sends as soon as the channel has room."""

    async def below(self, chars: int) -> None:
        await self._draining.below(chars)

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

    async def written(self) -> None:
        """Until everything sent so far has left for the channel (for a last word before it closes)."""
        if self.channel is not None and self.pending:
            await self._written.wait()

    async def close(self, code: int, reason: str) -> None:
        if self.closer is not None:
            await self.closer(code, reason)
        self.detach()

    async def _write(self, channel: Channel) -> None:
        while True:
            await self._wake.wait()
            self._wake.clear()
            while self.pending:
                while channel.buffered > HIGH_WATER:
                    self._drained.clear()
                    await self._drained.wait()
                first = self.pending[0][0]
                texts: list[str] = []
                size = 0
                while self.pending and (not texts or size + len(self.pending[0][1]) < COALESCE_BYTES):
                    if texts and max(len(texts[0]), len(self.pending[0][1])) >= COMPRESS_MIN_CHARS:
                        # A large frame travels alone, so it is deflated once for every guest.
                        break
                    _, text = self.pending.popleft()
                    texts.append(text)
                    size += len(text)
                self.pending_bytes -= size
                self._draining.took()
                deflated = self.deflater.deflated(texts)
                if deflated is not None:
                    channel.send(compressed_message(first, deflated))
                    continue
                self._messages += 1
                for message in chunks(f"[{first},{','.join(texts)}]", self._messages):
                    channel.send(message)
            self._written.set()
