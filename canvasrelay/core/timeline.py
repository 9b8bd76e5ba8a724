"""The room at any moment of a replay, sans-I/O: the board as it was (its Yjs updates applied up to
then), each thread as far as it had gone, each terminal's output as a page joining then would have
been replayed it (since its screen last started over, bounded as the live ring is).

Opening keeps the board's state every `KEYFRAME_EVERY` changes, so a jump applies at most that many.
"""

from __future__ import annotations

import base64
from bisect import bisect_right
from dataclasses import dataclass

from pycrdt import Doc, Map

from canvasrelay.core import session_log
from canvasrelay.core.asciicast import RESET, Cast
from canvasrelay.core.terminal_output import Scrollback
from canvasrelay.protocol.board_items import ITEMS
from canvasrelay.protocol.replay import ReplayRoom
from canvasrelay.protocol.session_events import Thread

KEYFRAME_EVERY = 250


@dataclass(frozen=True)
class TerminalAt:
    cols: int
    rows: int
    output: bytes
    """What to feed a fresh terminal of that size to show its screen then."""
    exit_code: int | None


@dataclass(frozen=True)
class Moment:
    at: float
    board: bytes
    """The whole board then, a Yjs update."""
    threads: dict[str, Thread]
    terminals: dict[str, TerminalAt]

    def items(self) -> dict[str, object]:
        """The board's items then, as plain data."""
        doc: Doc = Doc()
        doc.apply_update(self.board)
        return doc.get(ITEMS, type=Map).to_py() or {}


class _Track:
    """One terminal's output since each time its screen started over, with the times it grew."""

    def __init__(self, cast: Cast) -> None:
        self.cast = cast
        self.times: list[float] = []
        self.ends: list[int] = []
        self.starts: list[int] = []
        """Where the screen had last started over, per event."""
        self.sizes: list[tuple[int, int]] = []
        self.exits: list[int | None] = []
        data = bytearray()
        start, size, code = 0, (cast.cols, cast.rows), None
        for event in cast.events:
            if event.code == "o":
                if event.data.startswith(RESET):
                    start, code = len(data), None
                data += event.data.encode("utf-8")
            elif event.code == "r":
                cols, _, rows = event.data.partition("x")
                size = (int(cols), int(rows)) if cols.isdigit() and rows.isdigit() else size
            elif event.code == "x":
                code = int(event.data) if event.data.lstrip("-").isdigit() else None
            self.times.append(event.at)
            self.ends.append(len(data))
            self.starts.append(start)
            self.sizes.append(size)
            self.exits.append(code)
        self.data = bytes(data)

    def at(self, moment: float) -> TerminalAt | None:
        index = bisect_right(self.times, moment) - 1
        if index < 0:
            return None
        ring = Scrollback()
        start, end = self.starts[index], self.ends[index]
        # The ring's own cut, from a little before its capacity, so it cuts where the live one would.
        ring.append(self.data[max(start, end - ring.capacity - ring.slack) : end])
        return TerminalAt(*self.sizes[index], output=ring.snapshot(), exit_code=self.exits[index])


class Timeline:
    def __init__(self, room: ReplayRoom, casts: dict[str, Cast]) -> None:
        self.room = room
        self.marks = room.marks
        self._board_times = [change.at for change in room.board]
        self._updates = [base64.b64decode(change.update) for change in room.board]
        self._keyframes: list[bytes] = []
        doc: Doc = Doc()
        doc.apply_update(base64.b64decode(room.board_base))
        for index, update in enumerate(self._updates):
            if index % KEYFRAME_EVERY == 0:
                self._keyframes.append(doc.get_update())
            doc.apply_update(update)
        if not self._updates:
            self._keyframes.append(doc.get_update())
        self._threads = {s.id: (s.base, [t.at for t in s.events], [t.event for t in s.events]) for s in room.sessions}
        self._tracks = {tid: _Track(cast) for tid, cast in casts.items()}

    @property
    def start(self) -> float:
        return self.room.start

    @property
    def end(self) -> float:
        return self.room.end

    def board_at(self, moment: float) -> bytes:
        count = bisect_right(self._board_times, moment)
        key = min(count // KEYFRAME_EVERY, len(self._keyframes) - 1)
        doc: Doc = Doc()
        doc.apply_update(self._keyframes[key])
        for update in self._updates[key * KEYFRAME_EVERY : count]:
            doc.apply_update(update)
        return doc.get_update()

    def at(self, moment: float) -> Moment:
        threads = {
            sid: session_log.fold([*base, *events[: bisect_right(times, moment)]])
            for sid, (base, times, events) in self._threads.items()
        }
        terminals = {tid: shown for tid, track in self._tracks.items() if (shown := track.at(moment)) is not None}
        return Moment(moment, self.board_at(moment), threads, terminals)
