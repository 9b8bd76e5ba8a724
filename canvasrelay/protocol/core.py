"""Frames every connection uses: auth, keep-alive, errors and the welcome."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field

from canvasrelay.protocol.base import ClientFrame, Model, ServerFrame, client_frame, server_frame

TOKEN_MAX = 256


@client_frame
class Auth(ClientFrame):
    t: Literal["auth"] = "auth"
    token: str = Field(max_length=TOKEN_MAX)


@client_frame
class Ping(ClientFrame):
    t: Literal["ping"] = "ping"


@server_frame
class Pong(ServerFrame):
    t: Literal["pong"] = "pong"


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


class AgentInfo(Model):
    id: str
    label: str
    available: bool
    reason: str | None = None
    """Why it cannot start, when it cannot."""


@server_frame
class Welcome(ServerFrame):
    t: Literal["welcome"] = "welcome"
    room_id: str
    key: str
    host_public_key: str
    cwd: str
    access: Literal["view", "edit", "trusted", "host"]
    peer_id: str
    agents: list[AgentInfo] = Field(default_factory=list)
    board: str = ""
    """The board's full state: a base64 Yjs update."""
    sessions: list[dict[str, Any]] = Field(default_factory=list)
