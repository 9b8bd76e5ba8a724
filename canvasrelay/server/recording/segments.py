"""The room's recording on disk: `.canvas/recording/`, a folder of segment files, oldest deleted first.

A segment holds framed entries (`core/recording`), each as the board log frames its updates (length,
CRC-32, bytes), so a torn tail is left out when read. Entries wait in memory for the end of the
event loop's turn and go out in one `write`: the live room pays no system call per update for its
recording. A segment that reached its size is closed and the next begins with the board's whole
state and each terminal's recent output, so the recording can start at any segment once older ones
are deleted (by age and by the folder's whole size, from `[recording]` in `.canvas/config.toml`).
The recording never holds the room up: a write that fails is said once in the log and dropped.
"""

from __future__ import annotations

import asyncio
import logging
import math
import os
import time
from collections import deque
from collections.abc import Callable
from pathlib import Path

from canvasrelay.core.recording import Entry, Kind, decode, encode
from canvasrelay.server.board.log import frame_record, whole_records
from canvasrelay.server.canvas_dir import DIR_MODE, FILE_MODE
from canvasrelay.server.config import RecordingLimits

log = logging.getLogger(__name__)

RECORDING_DIR = "recording"
SUFFIX = ".rec"
FLUSH_BYTES = 1 << 20
"""A buffer this large is written at once rather than at the end of the loop's turn."""
MB = 1024 * 1024
TAIL_BYTES = 8 * MB
"""The newest entries kept in memory too: the host's open timeline takes in what is new from
them, without reading the segments again (and so without holding the live room up)."""
TAIL_ENTRIES = 50_000


def segment_files(folder: Path) -> list[Path]:
    """The segments, oldest first (their names are their numbers)."""
    if not folder.is_dir():
        return []
    return sorted(p for p in folder.iterdir() if p.suffix == SUFFIX and p.stem.isdigit())


def read_entries(folder: Path) -> list[Entry]:
    """Every entry the recording holds, in order; safe beside a running server (a torn tail is left out)."""
    entries: list[Entry] = []
    for path in segment_files(folder):
        try:
            raw = path.read_bytes()
        except FileNotFoundError:
            continue  # deleted by retention while we listed
        for record in whole_records(raw)[0]:
            entry = decode(record)
            if entry is not None:
                entries.append(entry)
    return entries


def recording_bytes(folder: Path) -> int:
    return sum(p.stat().st_size for p in segment_files(folder))


class Recorder:
    """Appends the room's entries to the newest segment. One writer: the server's event loop."""

    def __init__(self, folder: Path, limits: RecordingLimits, clock: Callable[[], float] = time.time) -> None:
        self.folder = folder
        self.limits = limits
        self.clock = clock
        self.baselines: Callable[[], list[Entry]] = list
        """What a segment begins with: the board's state, each terminal's recent output and size."""
        self._buffer: list[bytes] = []
        self._buffered = 0
        self._scheduled = False
        self._fd = -1
        self._size = 0
        self._base_size = 0
        """The baselines' bytes at the segment's start: a segment's size counts what came after them."""
        self._failed = False
        self._tail: deque[Entry] = deque()
        self._tail_bytes = 0
        self._tail_from = math.inf
        """Every entry of this run after this moment is in the tail."""

    @property
    def enabled(self) -> bool:
        return self.limits.enabled

    def start(self) -> None:
        """A new segment for this run of canvas, begun with the baselines."""
        if not self.enabled:
            return
        self.folder.mkdir(mode=DIR_MODE, exist_ok=True)
        os.chmod(self.folder, DIR_MODE)
        self._tail_from = self.clock()
        self._open_next()

    def add(self, kind: Kind, source: str, data: bytes) -> None:
        if self._fd < 0:
            return
        self._queue(Entry(kind, self.clock(), source, data))
        if self._buffered >= FLUSH_BYTES:
            self.flush()
        elif not self._scheduled:
            self._scheduled = True
            try:
                asyncio.get_running_loop().call_soon(self.flush)
            except RuntimeError:
                self.flush()

    def _queue(self, entry: Entry) -> None:
        record = frame_record(encode(entry))
        self._buffer.append(record)
        self._buffered += len(record)
        self._tail.append(entry)
        self._tail_bytes += len(entry.data)
        while self._tail_bytes > TAIL_BYTES or len(self._tail) > TAIL_ENTRIES:
            dropped = self._tail.popleft()
            self._tail_bytes -= len(dropped.data)
            self._tail_from = dropped.at

    @property
    def kept_from(self) -> float:
        """The tail in memory holds every entry of this run after this moment."""
        return self._tail_from

    def since(self, after: float) -> list[Entry] | None:
        """The entries after `after`, from memory; None when the tail does not reach back so far."""
        if after < self._tail_from:
            return None
        found: list[Entry] = []
        for entry in reversed(self._tail):
            if entry.at <= after:
                break
            found.append(entry)
        found.reverse()
        return found

    def flush(self) -> None:
        self._scheduled = False
        self._write()
        if self._size - self._base_size >= self.limits.segment_mb * MB:
            self._open_next()

    def _write(self) -> None:
        if not self._buffer or self._fd < 0:
            return
        data = b"".join(self._buffer)
        self._buffer.clear()
        self._buffered = 0
        try:
            view = memoryview(data)
            while view:
                view = view[os.write(self._fd, view) :]
            self._size += len(data)
            self._failed = False
        except OSError as exc:
            if not self._failed:
                log.warning("the room's recording could not be written (%s): its newest entries are lost", exc)
            self._failed = True

    def _open_next(self) -> None:
        self._close_segment()
        existing = segment_files(self.folder)
        number = int(existing[-1].stem) + 1 if existing else 1
        path = self.folder / f"{number:08d}{SUFFIX}"
        self._fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_APPEND | os.O_CLOEXEC, FILE_MODE)
        self._size = 0
        for entry in self.baselines():
            self._queue(entry)
        self._prune(keep=path)
        self._write()
        self._base_size = self._size

    def _prune(self, keep: Path) -> None:
        """Delete segments past their age, then the oldest until the folder fits its size."""
        # A segment's age is its file's: when it was last written.
        cutoff = time.time() - self.limits.keep_hours * 3600
        older = [p for p in segment_files(self.folder) if p != keep]
        sizes = {p: p.stat().st_size for p in older}
        total = sum(sizes.values()) + self._size + self._buffered
        for path in older:
            if path.stat().st_mtime >= cutoff and total <= self.limits.max_mb * MB:
                break
            total -= sizes[path]
            path.unlink(missing_ok=True)

    def _close_segment(self) -> None:
        if self._fd >= 0:
            os.close(self._fd)
            self._fd = -1

    def close(self) -> None:
        self.flush()
        self._close_segment()
