"""Frames every connection uses: auth, keep-alive, errors and the welcome."""

from __future__ import annotations

from typing import ClassVar, Literal

from pydantic import Field

from canvasrelay.protocol.access import Action
from canvasrelay.protocol.agents import SessionHead
from canvasrelay.protocol.base import ClientFrame, Model, ServerFrame, client_frame, server_frame
from canvasrelay.protocol.guests import ApprovalRequest

TOKEN_MAX = 256


@client_frame
class Auth(ClientFrame):
    action: ClassVar[Action] = Action.READ
    t: Literal["auth"] = "auth"
    token: str = Field(max_length=TOKEN_MAX)


@client_frame
class Ping(ClientFrame):
    action: ClassVar[Action] = Action.READ
    t: Literal["ping"] = "ping"


@server_frame
class Pong(ServerFrame):
    t: Literal["pong"] = "pong"


ErrorKind = Literal["invalid", "not-found", "conflict"]
"""What went wrong, for programs (the API's status codes): the frame was wrong, it names
something that does not exist, or it clashes with the state it met."""


@server_frame
class Restarting(ServerFrame):
    """To every peer as the server stops: the host is restarting, so keep reconnecting. What was
    running was interrupted, as the sessions' logs say (their turn-end follows this frame)."""

    t: Literal["restarting"] = "restarting"


@server_frame
class ErrorFrame(ServerFrame):
    t: Literal["error"] = "error"
    message: str
    ref: str | None = None
    """The `t` of the frame that was refused, when it was known."""
    kind: ErrorKind = "invalid"


class AgentInfo(Model):
    id: str
    label: str
    available: bool
    reason: str | None = None
    """Why it cannot start, when it cannot."""
    state: Literal["ready", "not-installed", "needs-key", "cannot-confine"] = "ready"
    install: str | None = None
    """The command that installs it, when it is not installed."""
    setup: str | None = None
    """How to give it a key or log it in, when it needs one."""
    confined: bool = False
    confinement: str = ""
    """Whether it runs confined to the room's view of the project, in words."""


@server_frame
class Welcome(ServerFrame):
    t: Literal["welcome"] = "welcome"
    room_id: str
    host_public_key: str
    project: str
    """The project folder's name: what guests are shown."""
    cwd: str | None = None
    """The project folder's absolute path on the host's machine: for the host only."""
    access: Literal["view", "edit", "trusted", "host"]
    peer_id: str
    agents: list[AgentInfo] = Field(default_factory=list)
    board: str = ""
    """The board's state, a base64 Yjs update: whole, or its first part when `board_size` is larger."""
    board_size: int = 0
    """The state's bytes; when `board` holds fewer, the rest comes as `board-part`s (ask with `board-more`)."""
    board_version: int = 0
    board_warning: str | None = None
    """To hosts: why the stored board is past its bound (stored by another version or bound), or
    what of the store could not be loaded."""
    sessions: list[SessionHead] = Field(default_factory=list)
    approvals: list[ApprovalRequest] = Field(default_factory=list)
    """To hosts: the guests' requests still waiting for an answer, so a reloaded page shows them."""
    heads_after: str | None = None
    """When set, `sessions` and `approvals` are their first page: ask `heads-more` with this for the next."""


HEADS_CURSOR_MAX = 200


@client_frame
class HeadsMore(ClientFrame):
    """The next page of the sessions and approvals a welcome lists, after `after` (the welcome's
    `heads_after`, then each part's): asked one page at a time, so no page meets a backlog."""

    action: ClassVar[Action] = Action.READ
    t: Literal["heads-more"] = "heads-more"
    after: str = Field(min_length=1, max_length=HEADS_CURSOR_MAX)


@server_frame
class HeadsPart(ServerFrame):
    """A page of the welcome's sessions and approvals; `after` set means more follow (ask with it).
    A part repeats nothing a client holds wrongly: items are replaced by id, as live frames do."""

    t: Literal["heads-part"] = "heads-part"
    sessions: list[SessionHead] = Field(default_factory=list)
    approvals: list[ApprovalRequest] = Field(default_factory=list)
    after: str | None = None
