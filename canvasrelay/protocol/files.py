"""Shared-file frames (read-only): open a file and follow it, watch the shared tree.

Paths are relative and `/`-separated; the server judges every one against the shared set
(adr/0002-the-shared-set.md), so the limit here only bounds the frame.
"""

from __future__ import annotations

from typing import Annotated, ClassVar, Literal

from pydantic import Field

from canvasrelay.protocol.access import Action
from canvasrelay.protocol.base import ClientFrame, Model, ServerFrame, client_frame, server_frame

MAX_PATH_CHARS = 4096
"""Longer than the shared set accepts, so an over-long path is answered `denied`, not refused as a frame."""


@client_frame
class FileOpen(ClientFrame):
    """Send `file` now and on every change until `file-close`. Opening a file someone already
    has open is only viewing it; opening another one is browsing."""

    t: Literal["file-open"] = "file-open"
    action: ClassVar[Action] = Action.BROWSE_FILES
    path: str = Field(max_length=MAX_PATH_CHARS)


@client_frame
class FileClose(ClientFrame):
    action: ClassVar[Action] = Action.READ
    t: Literal["file-close"] = "file-close"
    path: str = Field(max_length=MAX_PATH_CHARS)


@client_frame
class TreeWatch(ClientFrame):
    """Send `tree` now and whenever the shared set changes."""

    t: Literal["tree-watch"] = "tree-watch"
    action: ClassVar[Action] = Action.BROWSE_FILES


class TextFile(Model):
    kind: Literal["text"] = "text"
    text: str
    size: int


class BinaryFile(Model):
    kind: Literal["binary"] = "binary"
    size: int


class TooLargeFile(Model):
    kind: Literal["too-large"] = "too-large"
    size: int


class MissingFile(Model):
    """In the shared set but not on disk (yet): an agent may be about to write it."""

    kind: Literal["missing"] = "missing"


class DeniedFile(Model):
    kind: Literal["denied"] = "denied"
    reason: str


FileContent = Annotated[TextFile | BinaryFile | TooLargeFile | MissingFile | DeniedFile, Field(discriminator="kind")]


@server_frame
class File(ServerFrame):
    t: Literal["file"] = "file"
    path: str
    file: FileContent


@server_frame
class Tree(ServerFrame):
    t: Literal["tree"] = "tree"
    paths: list[str]
