"""Frames for the board (adr/0003-board-schema.md): Yjs updates, the reconnect sync, and awareness.

Updates and state vectors travel as base64 text. Awareness is our own small shape rather than
y-protocols' binary one, so the server can validate every field and stamp who sent it.
"""

from __future__ import annotations

import base64
import binascii
from typing import ClassVar, Literal

from pydantic import Field, field_validator

from canvasrelay.protocol.access import Action
from canvasrelay.protocol.base import MAX_FRAME_BYTES, ClientFrame, Model, ServerFrame, client_frame, server_frame

# base64 of an update must fit in one frame with the JSON around it.
MAX_UPDATE_B64 = MAX_FRAME_BYTES - 1024
MAX_VECTOR_B64 = 64 * 1024
MAX_COORDINATE = 1e7
NAME_MAX = 64
AWARENESS_ID_MAX = 32
"""Item ids in presence; the board's own are 12 characters."""
MAX_SELECTION = 8
"""Presence is rebroadcast to every peer, so it stays a few hundred bytes: a larger selection or
drag is shown by its first items (the board itself still gets every position)."""
MAX_DRAGGING = 8
AWARENESS_REFRESH_S = 10.0
"""Clients send their presence again this often even when it did not change."""
AWARENESS_TIMEOUT_S = 30.0
"""Three missed refreshes and a peer's presence counts as gone."""
AWARENESS_INTERVAL_S = 0.05
"""A peer's presence goes out at most this often, its latest state only, however often it sends
(and the web app sends it no more often)."""
COLOR_PATTERN = r"^#[0-9a-fA-F]{6}$"
BOARD_PART_BYTES = 160 * 1024
"""The board's state travels in parts of this many bytes (base64 adds a third): the welcome holds
the first, and the client asks for the rest, so no frame or backlog ever holds the whole board."""
BOARD_PARTS_PER_ASK = 6
"""Parts sent for one `board-more`: about 1 MiB in flight, never a backlog's worth."""


def _base64(value: str, what: str) -> str:
    try:
        base64.b64decode(value, validate=True)
    except (binascii.Error, ValueError):
        raise ValueError(f"{what} is not valid base64") from None
    return value


@client_frame
class BoardUpdate(ClientFrame):
    """A client's change to the board: a Yjs v1 update."""

    t: Literal["board-update"] = "board-update"
    action: ClassVar[Action] = Action.EDIT_BOARD
    update: str = Field(min_length=1, max_length=MAX_UPDATE_B64)

    @field_validator("update")
    @classmethod
    def _valid_update(cls, value: str) -> str:
        return _base64(value, "update")


@server_frame
class BoardUpdateOut(ServerFrame):
    """Another peer's (or an agent's) change, already applied and stored by the server."""

    t: Literal["board-update"] = "board-update"
    update: str


@client_frame
class BoardSyncRequest(ClientFrame):
    """Sent after every welcome: what this client has, so the server answers with what it lacks."""

    action: ClassVar[Action] = Action.READ

    t: Literal["board-sync"] = "board-sync"
    state_vector: str = Field(max_length=MAX_VECTOR_B64)

    @field_validator("state_vector")
    @classmethod
    def _valid_vector(cls, value: str) -> str:
        return _base64(value, "stateVector")


@server_frame
class BoardSync(ServerFrame):
    """The part of the board the client lacks, and the server's state vector, from which the
    client computes (and sends as a `board-update`) the edits it made while disconnected."""

    t: Literal["board-sync"] = "board-sync"
    update: str
    state_vector: str


@client_frame
class BoardMore(ClientFrame):
    """The next parts of the board's state taken at `version`, from byte `offset`: asked after the
    welcome, and again after each answer's last part, so a join resumes where it stopped."""

    action: ClassVar[Action] = Action.READ

    t: Literal["board-more"] = "board-more"
    version: int = Field(ge=0)
    offset: int = Field(ge=0)


@server_frame
class BoardPart(ServerFrame):
    """Part of the board's state taken at `version` (`size` bytes in all), from byte `offset`.
    A part of another version than the one being put together starts it anew from 0."""

    t: Literal["board-part"] = "board-part"
    version: int
    offset: int
    size: int
    data: str
    """base64 of the bytes from `offset`."""
    ask: bool
    """The last part of this answer: ask for more from where it ends, if the state goes on."""


class Point(Model):
    x: float = Field(ge=-MAX_COORDINATE, le=MAX_COORDINATE)
    y: float = Field(ge=-MAX_COORDINATE, le=MAX_COORDINATE)


class DragPosition(Model):
    """Where an item is while someone drags it; the board itself gets positions at a bounded rate."""

    id: str = Field(max_length=AWARENESS_ID_MAX)
    x: float = Field(ge=-MAX_COORDINATE, le=MAX_COORDINATE)
    y: float = Field(ge=-MAX_COORDINATE, le=MAX_COORDINATE)


class ViewRect(Model):
    """The part of the board a page shows, in board coordinates: what a follower is shown too."""

    x: float = Field(ge=-MAX_COORDINATE, le=MAX_COORDINATE)
    y: float = Field(ge=-MAX_COORDINATE, le=MAX_COORDINATE)
    w: float = Field(gt=0, le=MAX_COORDINATE)
    h: float = Field(gt=0, le=MAX_COORDINATE)


class AwarenessState(Model):
    name: str = Field(max_length=NAME_MAX)
    color: str = Field(pattern=COLOR_PATTERN)
    cursor: Point | None = None
    """In board coordinates; None when the pointer left the board."""
    selection: list[str] = Field(default_factory=list, max_length=MAX_SELECTION)
    dragging: list[DragPosition] = Field(default_factory=list, max_length=MAX_DRAGGING)
    editing: str | None = Field(default=None, max_length=AWARENESS_ID_MAX)
    """The item whose text this client is typing into."""
    view: ViewRect | None = None

    @field_validator("selection")
    @classmethod
    def _short_ids(cls, value: list[str]) -> list[str]:
        if any(len(item) > AWARENESS_ID_MAX for item in value):
            raise ValueError(f"selection ids are at most {AWARENESS_ID_MAX} characters")
        return value


@client_frame
class Awareness(ClientFrame):
    """This client's presence; resent at least every `AWARENESS_REFRESH_MS` to stay alive."""

    action: ClassVar[Action] = Action.READ

    t: Literal["awareness"] = "awareness"
    state: AwarenessState


@server_frame
class AwarenessOut(ServerFrame):
    """Another peer's presence; `state` None means it left or went silent."""

    t: Literal["awareness"] = "awareness"
    peer: str
    state: AwarenessState | None
