"""The room's recording, sans-I/O: what the pages were shown, each entry with its time and source.

The recording is the host's alone (adr/0031-the-room-replayable.md). It keeps the board's updates
by whom, each session's events as they were sent, and each terminal's output as it was shown
(never what anyone typed); the room's record keeps the rest (joins, approvals). An entry is a
kind, a wall time, a source (who changed the board, which session or terminal) and its bytes;
the store adapter frames entries in segment files and this module encodes and decodes them.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass
from enum import IntEnum

from canvasrelay.core.audit import AGENT_PREFIX

_HEAD = struct.Struct("<BdH")


class Kind(IntEnum):
    BOARD_BASE = 1
    """The whole board (a Yjs update): where a segment or a run of canvas starts."""
    BOARD = 2
    """One update to the board; the source is who made it (`host`, a guest's id, `agent:<session>`)."""
    EVENT = 3
    """One session event as stored (its JSON); the source is the session's id."""
    TERM_START = 4
    """A terminal's screen starts over: a new shell, or canvas watching one again after a start."""
    TERM_BASE = 5
    """A terminal's recent output at the start of a segment (what a late joiner is replayed)."""
    TERM_OUT = 6
    """Output as shown (UTF-8 text); the source is the terminal's id."""
    TERM_SIZE = 7
    """The shell's size, `COLSxROWS`."""
    TERM_EXIT = 8
    """The shell ended; its exit code."""
    TERM_NAME = 9
    """What the room calls the terminal now ("Terminal 1", or the host's name for it), UTF-8."""


@dataclass(frozen=True, slots=True)
class Entry:
    kind: Kind
    at: float
    """Seconds since the epoch."""
    source: str
    data: bytes


def encode(entry: Entry) -> bytes:
    source = entry.source.encode("utf-8")
    return _HEAD.pack(entry.kind, entry.at, len(source)) + source + entry.data


def decode(raw: bytes) -> Entry | None:
    """The entry, or None for a kind this canvas does not know (a later canvas's, in the same format)."""
    if len(raw) < _HEAD.size:
        return None
    kind, at, length = _HEAD.unpack_from(raw)
    if kind not in Kind._value2member_map_:
        return None
    start = _HEAD.size
    source = raw[start : start + length].decode("utf-8", "replace")
    return Entry(Kind(kind), at, source, raw[start + length :])


AGENT = "agent"


def agent_author(session_id: str) -> str:
    """An agent session as the author of a board change, as the room's record names it."""
    return f"{AGENT_PREFIX}{session_id}"


def author(peer_id: str | None) -> str:
    """Who a board change is by, as the room's record names people: `host`, a guest's id, an agent's
    session (`agent:` and its id, for its board tools' edits) or `agent` (a session not known)."""
    if peer_id is None:
        return AGENT
    if peer_id.startswith("host-"):
        return "host"
    if peer_id.startswith(AGENT_PREFIX):
        return peer_id
    return peer_id.removeprefix("guest-")


def size_text(cols: int, rows: int) -> bytes:
    return f"{cols}x{rows}".encode()


def parse_size(data: bytes) -> tuple[int, int] | None:
    cols, _, rows = data.decode("ascii", "replace").partition("x")
    return (int(cols), int(rows)) if cols.isdigit() and rows.isdigit() else None
