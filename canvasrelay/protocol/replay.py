"""The replay file's parts (adr/0031-the-room-replayable.md): one gzip'd tar holding `manifest.json`,
`room.json` (the board's changes, each session's events, the record, the timeline's marks) and one
asciicast v3 `terminals/<id>.cast` per terminal. The web app reads the same models (generated)."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from canvasrelay.protocol.base import Model
from canvasrelay.protocol.people import AuditEntry
from canvasrelay.protocol.session_events import SessionEvent

REPLAY_FORMAT = "canvas-replay"
REPLAY_VERSION = 1
"""The version this canvas writes and the newest it reads; a file of a later one is refused."""
MANIFEST = "manifest.json"
ROOM = "room.json"
CASTS = "terminals/"

MarkKind = Literal["prompt", "approval", "join", "leave", "board"]


class ReplayPart(Model):
    sha256: str
    bytes: int = Field(ge=0)


class ReplayManifest(Model):
    format: Literal["canvas-replay"]
    version: int = Field(ge=1)
    canvas: str
    """The canvas that made it."""
    made: float
    start: float
    end: float
    parts: dict[str, ReplayPart]
    """Every other file in the archive by name, with its checksum: a file not named here is refused."""


class Mark(Model):
    """A moment worth jumping to, by whom, in words."""

    at: float
    kind: MarkKind
    who: str
    """The person's stable id (`host`, a guest's id, `agent`), for their colour."""
    name: str
    text: str


class ReplayPerson(Model):
    name: str
    color: str = ""


class BoardChange(Model):
    at: float
    by: str
    update: str
    """A Yjs v1 update, base64."""


class TimedEvent(Model):
    at: float
    event: SessionEvent


class ReplaySession(Model):
    id: str
    title: str
    agent: str
    base: list[SessionEvent]
    """The events from before the replay's start (or before the recording), folded first."""
    events: list[TimedEvent]


class ReplayTerminal(Model):
    id: str
    name: str
    cast: str
    """Its part's name: `terminals/<id>.cast`."""


class ReplayRoom(Model):
    project: str
    start: float
    end: float
    board_base: str
    """The whole board at `start` (a Yjs update, base64)."""
    board: list[BoardChange]
    sessions: list[ReplaySession]
    terminals: list[ReplayTerminal]
    record: list[AuditEntry]
    people: dict[str, ReplayPerson]
    marks: list[Mark]
