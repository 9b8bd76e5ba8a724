"""The board's updates, appended to a file of their own beside the store (`.canvas/board.log`).

A board update is small and comes often, and each must be durable before it is sent on. As a
SQLite row it cost a transaction: eleven system calls (locks, the write-ahead log, its index)
and about 300 µs of CPU on this machine when updates come a few a second. Appended here it costs
one `write`, and a write that returned survives a crash of the server process as a commit in
WAL mode does. Compaction writes the board's state to a new file, syncs it and renames it over
the log, so a crash leaves either the old log or the new one.

A record is its length and CRC-32 (little-endian, 4 bytes each), then the update. A torn or
garbled tail, which only a crash of the machine in the middle of a write can leave, is cut off
when the log is opened: it was never sent to anyone.
"""

from __future__ import annotations

import logging
import os
import struct
import zlib
from collections.abc import Iterable
from pathlib import Path

from canvasrelay.server.canvas_dir import FILE_MODE

log = logging.getLogger(__name__)

BOARD_LOG = "board.log"
HEADER = struct.Struct("<II")


def frame_record(data: bytes) -> bytes:
    return HEADER.pack(len(data), zlib.crc32(data)) + data


def whole_records(raw: bytes) -> tuple[list[bytes], int]:
    """The whole records at the start of `raw`, and where they end."""
    records: list[bytes] = []
    at = 0
    while at + HEADER.size <= len(raw):
        length, crc = HEADER.unpack_from(raw, at)
        data = raw[at + HEADER.size : at + HEADER.size + length]
        if len(data) < length or zlib.crc32(data) != crc:
            break
        records.append(data)
        at += HEADER.size + length
    return records, at


def read_updates(path: Path) -> list[bytes]:
    """The checkpoint (if any) first, then every update after it, in order; a torn tail is left out.
    Safe to call while a server appends."""
    return whole_records(path.read_bytes())[0]


def write_log(path: Path, updates: Iterable[bytes]) -> None:
    """Replace the log at `path` by one holding `updates`, all at once: written aside, synced, renamed."""
    aside = path.with_name(path.name + ".new")
    _write_synced(aside, os.O_TRUNC, updates)
    os.replace(aside, path)
    folder = os.open(path.parent, os.O_RDONLY | os.O_CLOEXEC)
    try:
        os.fsync(folder)
    finally:
        os.close(folder)


def _write_synced(path: Path, mode: int, updates: Iterable[bytes]) -> None:
    """Write `updates` as records to `path` (truncated or appended to, by `mode`), synced."""
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | mode | os.O_CLOEXEC, FILE_MODE)
    try:
        _write_all(fd, b"".join(frame_record(data) for data in updates))
        os.fsync(fd)
    finally:
        os.close(fd)


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view) :]


def set_aside(path: Path, records: list[bytes]) -> Path:
    """Keep `records` (updates that could not be applied) in a side file next to the log, appended
    to what an earlier start set aside: the next compaction leaves them out of the log."""
    aside = path.with_name(path.name + ".unusable")
    _write_synced(aside, os.O_APPEND, records)
    return aside


class BoardLog:
    """The log, open for appending. One writer: the server's event loop."""

    def __init__(self, path: Path, end: int) -> None:
        """Open for appending after the `end` bytes of whole records (`open` finds them)."""
        self.path = path
        self._end = end
        self._open_for_appending()

    @classmethod
    def open(cls, path: Path) -> tuple[BoardLog, list[bytes]]:
        """The log, and the updates it holds (read once, for the board to load)."""
        raw = path.read_bytes() if path.exists() else b""
        updates, end = whole_records(raw)
        board_log = cls(path, end)
        if end < len(raw):
            log.warning("the board log ended in a torn record (%d bytes), cut off", len(raw) - end)
            os.ftruncate(board_log._fd, end)
        return board_log, updates

    def _open_for_appending(self) -> None:
        self._fd = os.open(self.path, os.O_WRONLY | os.O_CREAT | os.O_APPEND | os.O_CLOEXEC, FILE_MODE)

    def append(self, data: bytes) -> None:
        """Durable against a crash of this process once it returns. A write that fails is taken
        back whole, so the log never holds half a record before a whole one."""
        record = frame_record(data)
        try:
            _write_all(self._fd, record)
        except OSError:
            os.ftruncate(self._fd, self._end)
            raise
        self._end += len(record)

    def replace(self, state: bytes) -> None:
        """Compaction: the board's state, as one record, in place of everything so far."""
        os.close(self._fd)
        try:
            write_log(self.path, [state])
            self._end = HEADER.size + len(state)
        finally:
            self._open_for_appending()

    def size(self) -> int:
        return self._end

    def close(self) -> None:
        if self._fd >= 0:
            os.close(self._fd)
            self._fd = -1
