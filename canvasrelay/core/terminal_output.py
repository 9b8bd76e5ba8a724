"""A terminal's output, kept and coalesced: pure data structures the PTY adapter feeds."""

from __future__ import annotations

from collections import deque
from collections.abc import Callable
from dataclasses import dataclass

SCROLLBACK_BYTES = 2 * 1024 * 1024


class Scrollback:
    """A byte ring of recent output, replayed to a client that joins late.

    Once full it holds between `capacity` and `capacity + slack` bytes: trimming only when
    the slack is used up keeps appends amortised O(len(data)) however small the chunks.
    A cut starts after a newline when one is near, and never inside a UTF-8 sequence.
    """

    def __init__(self, capacity: int = SCROLLBACK_BYTES, slack: int | None = None) -> None:
        self.capacity = capacity
        self.slack = capacity // 8 if slack is None else slack
        self._buf = bytearray()
        self.total = 0

    def append(self, data: bytes) -> None:
        self.total += len(data)
        self._buf += data
        if len(self._buf) > self.capacity + self.slack:
            self._trim()

    def _trim(self) -> None:
        cut = len(self._buf) - self.capacity
        newline = self._buf.find(b"\n", cut, cut + 4096)
        if newline != -1:
            cut = newline + 1
        else:
            while cut < len(self._buf) and self._buf[cut] & 0xC0 == 0x80:
                cut += 1
        del self._buf[:cut]

    def snapshot(self) -> bytes:
        return bytes(self._buf)

    def __len__(self) -> int:
        return len(self._buf)


@dataclass(frozen=True, slots=True)
class Output:
    """What to send a client next. With `reset`, the client clears its terminal first and
    `data` is a full replay of the ring (which may be larger than one message: chunk it)."""

    data: bytes
    reset: bool = False


class OutputQueue:
    """One client's pending terminal output, bounded.

    A client that falls more than `limit` bytes behind skips ahead: its backlog is dropped
    and its next `take` is one replay of the ring. Output pushed while that replay is
    pending is dropped too, because the replay is taken at `take` time and already holds it.
    """

    def __init__(self, replay: Callable[[], bytes], limit: int = 1024 * 1024) -> None:
        self._replay = replay
        self.limit = limit
        self._chunks: deque[bytes] = deque()
        self.pending = 0
        self._reset_due = False
        self.skips = 0

    def push(self, data: bytes) -> None:
        if self._reset_due or not data:
            return
        if self.pending + len(data) > self.limit:
            self._chunks.clear()
            self.pending = 0
            self._reset_due = True
            self.skips += 1
            return
        self._chunks.append(data)
        self.pending += len(data)

    def __bool__(self) -> bool:
        return self._reset_due or bool(self._chunks)

    def take(self, max_bytes: int = 256 * 1024) -> Output | None:
        """The next message for this client, coalescing queued chunks up to `max_bytes`."""
        if self._reset_due:
            self._reset_due = False
            return Output(self._replay(), reset=True)
        if not self._chunks:
            return None
        parts: list[bytes] = []
        size = 0
        while self._chunks and size < max_bytes:
            chunk = self._chunks.popleft()
            room = max_bytes - size
            if len(chunk) > room:
                self._chunks.appendleft(chunk[room:])
                chunk = chunk[:room]
            parts.append(chunk)
            size += len(chunk)
        self.pending -= size
        return Output(b"".join(parts))
