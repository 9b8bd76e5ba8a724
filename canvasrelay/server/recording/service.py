"""The recording for the host's surfaces (the API, the host page through it): the timeline's marks,
an export, and a restore of the board as it was. A whole recording is read in a thread (a worker
process kept its interpreter's lock off the live loop, but outlived a stopped server: adr/0031);
what came after a moment is made from memory, in a thread."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

from canvasrelay import __version__
from canvasrelay.core.agent_sessions import StoredSession as SessionRow
from canvasrelay.core.audit import HOST_ID, Audit
from canvasrelay.core.board_edits import Edit
from canvasrelay.core.board_restore import restore
from canvasrelay.core.errors import Refused
from canvasrelay.core.replay_file import write_replay
from canvasrelay.core.replay_window import BOARD_MARK_GAP_S, StoredSession, board_at, following, span, window
from canvasrelay.protocol.replay import ReplayRoom
from canvasrelay.server.board.host import BoardTools
from canvasrelay.server.recording.export import export_replay, room_sources
from canvasrelay.server.recording.segments import RECORDING_DIR, Recorder, read_entries


def timeline_of(canvas_dir: Path, start: float | None, end: float | None) -> ReplayRoom:
    """The replay of start…end without its casts: what `/api/timeline` answers from."""
    room, _ = window(room_sources(canvas_dir), start, end)
    return room


T = TypeVar("T")
NOT_RECORDED = "This room is not recorded: `[recording] enabled = false` in .canvas/config.toml."


class Replays:
    def __init__(
        self,
        canvas_dir: Path,
        recorder: Recorder,
        board: BoardTools,
        audit: Audit,
        sessions: Callable[[], list[SessionRow]],
        terminal_names: Callable[[], dict[str, str]],
    ) -> None:
        self.canvas_dir = canvas_dir
        self.recorder = recorder
        self.board = board
        self.audit = audit
        self.sessions = sessions
        """The store's sessions, rows only: what a session new since a moment is called."""
        self.terminal_names = terminal_names
        """What the room calls each terminal now."""

    def _ready(self) -> None:
        if not self.recorder.enabled:
            raise Refused("conflict", NOT_RECORDED)
        self.recorder.flush()

    async def timeline(self, start: float | None, end: float | None) -> ReplayRoom:
        self._ready()
        return await self._read(timeline_of, start, end)

    async def export(self, start: float | None, end: float | None) -> bytes:
        self._ready()
        return await self._read(export_replay, start, end)

    async def _read(
        self, reading: Callable[[Path, float | None, float | None], T], start: float | None, end: float | None
    ) -> T:
        return await asyncio.to_thread(reading, self.canvas_dir, start, end)

    async def following(self, after: float) -> bytes:
        """The replay file of what the room did after `after`, for the host's open timeline to take
        in: from the recording's tail in memory, and the record's and the sessions' as the room has
        them, so a timeline that follows the room costs the room next to nothing."""
        self._ready()
        back = after - BOARD_MARK_GAP_S
        # The look back at a run of board changes goes no further than the tail in memory does.
        entries = self.recorder.since(max(back, min(after, self.recorder.kept_from)))
        sessions = [StoredSession(row.id, row.title, row.agent, row.created, []) for row in self.sessions()]
        record = [entry for entry in self.audit.entries if entry.at > after]
        names = self.terminal_names()

        def made() -> bytes:
            recent = entries if entries is not None else [e for e in read_entries(self.recorder.folder) if e.at > back]
            sources = room_sources(self.canvas_dir, recent, sessions, record)
            sources.terminal_names.update(names)
            room, casts = following(sources, after)
            return write_replay(room, casts, __version__, time.time())

        return await asyncio.to_thread(made)

    async def restore(self, at: float, item_id: str | None) -> Edit:
        """The board (or one item) as it was at `at`, as a new change by the host."""
        self._ready()
        entries = await asyncio.to_thread(read_entries, self.canvas_dir / RECORDING_DIR)
        whole = span(entries)
        if whole is None or at < whole[0]:
            raise Refused("conflict", "The recording does not reach back to that moment.")
        edit = await self.board.edit_by(HOST_ID, restore, board_at(entries, at), item_id)
        then = time.strftime("%H:%M:%S", time.localtime(at))
        what = "restored an item of the board" if item_id else "restored the board"
        self.audit.note(HOST_ID, "the host", what, f"as it was at {then}")
        return edit
