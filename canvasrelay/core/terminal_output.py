"""A terminal's output, kept for late joiners and for clients behind: pure data structures the terminals feed."""

from __future__ import annotations

from collections import deque
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


@dataclass(slots=True)
class OutputBlock:
    """A stretch of a terminal's output, cut the same for every client that reads it from its start."""

    start: int
    text: str
    frame: str | None = None
    """What the adapter built from it (a frame, encoded), built once for every client it goes to."""


@dataclass(frozen=True, slots=True)
class Piece:
    """What a client behind is sent next: a whole `block` (shared), or `text` of its own."""

    end: int
    block: OutputBlock | None = None
    text: str = ""


SKIP = Piece(-1)
"""The client fell further behind than the log keeps: it skips ahead to a replay of the ring."""


class OutputLog:
    """A terminal's recent output, for the clients that fall behind its live frames.

    Output is cut into blocks of about `block_chars` characters as it comes. A client's place is
    a count of characters since the terminal started; one whose place is a block's start is sent
    that block, so clients behind by whole blocks are sent the same frames and each frame is built
    once. The log keeps about `limit` characters; a client further behind is told to `SKIP`.
    """

    def __init__(self, limit: int = 1024 * 1024, block_chars: int = 64 * 1024) -> None:
        self.limit = limit
        self.block_chars = block_chars
        self._blocks: deque[OutputBlock] = deque()
        self._kept = 0
        self._open: list[str] = []
        self._open_start = 0
        self.end = 0

    @property
    def start(self) -> int:
        """The earliest place the log still holds."""
        return self._blocks[0].start if self._blocks else self._open_start

    def append(self, text: str) -> None:
        self._open.append(text)
        self.end += len(text)
        self._kept += len(text)
        if self.end - self._open_start >= self.block_chars:
            self._blocks.append(OutputBlock(self._open_start, "".join(self._open)))
            self._open.clear()
            self._open_start = self.end
        while self._blocks and self._kept > self.limit:
            self._kept -= len(self._blocks.popleft().text)

    def forget(self) -> None:
        """No client is behind: nothing before now is needed."""
        self._blocks.clear()
        self._open.clear()
        self._kept = 0
        self._open_start = self.end

    def take(self, place: int) -> Piece | None:
        """What a client at `place` is sent next; None when it has it all."""
        if place >= self.end:
            return None
        if place < self.start:
            return SKIP
        for block in self._blocks:
            if block.start <= place < block.start + len(block.text):
                if place == block.start:
                    return Piece(place + len(block.text), block=block)
                return Piece(block.start + len(block.text), text=block.text[place - block.start :])
        return Piece(self.end, text="".join(self._open)[place - self._open_start :])
