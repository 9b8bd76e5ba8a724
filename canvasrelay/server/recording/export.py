"""The replay of a room's `.canvas/`, read from its files: the recording, the sessions' logs in the
store, the record, the guests' names and colours and the terminals' names. Nothing secret is read
(not the room's keys, the host's token, the guests' keys, nor any file of the project)."""

from __future__ import annotations

import json
import time
from pathlib import Path

from canvasrelay import __version__
from canvasrelay.core.recording import Entry
from canvasrelay.core.replay_file import write_replay
from canvasrelay.core.replay_window import RoomSources, StoredSession, window
from canvasrelay.protocol.people import AuditEntry
from canvasrelay.protocol.replay import ReplayPerson
from canvasrelay.server.guests.people_store import GUEST_ROWS, GUESTS, read_audit
from canvasrelay.server.recording.segments import RECORDING_DIR, read_entries
from canvasrelay.server.store import DB_FILE, stored_logs
from canvasrelay.server.terminals.host import RECORD


def room_sources(
    canvas_dir: Path,
    entries: list[Entry] | None = None,
    sessions: list[StoredSession] | None = None,
    record: list[AuditEntry] | None = None,
) -> RoomSources:
    """What a replay is made from; the recording, the sessions and the record are read from the files
    unless given (the live room has the newest of them in memory)."""
    if sessions is None:
        sessions = [
            StoredSession(row.id, row.title, row.agent, row.created, events)
            for row, events in stored_logs(canvas_dir / DB_FILE)
        ]
    return RoomSources(
        project=canvas_dir.parent.name,
        entries=read_entries(canvas_dir / RECORDING_DIR) if entries is None else entries,
        sessions=sessions,
        record=read_audit(canvas_dir) if record is None else record,
        people=_people(canvas_dir),
        terminal_names=_terminal_names(canvas_dir),
    )


def export_replay(canvas_dir: Path, start: float | None = None, end: float | None = None) -> bytes:
    """The replay file of `start`…`end` (the whole recording when not given)."""
    room, casts = window(room_sources(canvas_dir), start, end)
    return write_replay(room, casts, __version__, time.time())


def _people(canvas_dir: Path) -> dict[str, ReplayPerson]:
    try:
        identities = GUEST_ROWS.validate_json((canvas_dir / GUESTS).read_bytes())
    except (OSError, ValueError):
        return {}
    return {i.guest_id: ReplayPerson(name=i.name, color=i.color) for i in identities}


def _terminal_names(canvas_dir: Path) -> dict[str, str]:
    try:
        rows = json.loads((canvas_dir / RECORD).read_text(encoding="utf-8"))
        return {
            row["id"]: row["name"]
            for row in rows
            if isinstance(row.get("id"), str) and isinstance(row.get("name"), str)
        }
    except (OSError, ValueError, TypeError, AttributeError):
        return {}
