"""Agent session frames.

A session is an append-only log of events (see `canvasrelay.session_log`), each with a `seq`;
`agent-event` carries one as it is appended, `agent-history` a bounded page of the past. A
client that holds events up to some `seq` asks for the rest with `agent-history-request`.
"""

from __future__ import annotations

from typing import Annotated, Any, ClassVar, Literal

from pydantic import Field

from canvasrelay.protocol.access import Action
from canvasrelay.protocol.base import ClientFrame, Model, ServerFrame, client_frame, server_frame

SESSION_ID_PATTERN = r"^[A-Za-z0-9_-]{1,64}$"
MAX_PROMPT_CHARS = 100_000
MAX_NAME_CHARS = 100
MAX_CONFIG_CHARS = 200
SessionId = Annotated[str, Field(pattern=SESSION_ID_PATTERN)]
HostAnswer = Literal["once", "reject", "always", "never", "session"]
"""once/reject: this call only; always: allow this kind and pattern for the session; never: deny
them for the session; session: allow this kind, any pattern, for the session."""


@client_frame
class AgentCreate(ClientFrame):
    """Start a session with one of the agents on offer (`welcome.agents`), under a client-chosen id."""

    t: Literal["agent-create"] = "agent-create"
    action: ClassVar[Action] = Action.RUN_ON_HOST
    id: SessionId
    agent: str = Field(max_length=MAX_NAME_CHARS)
    title: str = Field(default="", max_length=MAX_NAME_CHARS)


@client_frame
class AgentPrompt(ClientFrame):
    t: Literal["agent-prompt"] = "agent-prompt"
    action: ClassVar[Action] = Action.RUN_ON_HOST
    session_id: SessionId
    text: str = Field(min_length=1, max_length=MAX_PROMPT_CHARS)
    author: str = Field(default="", max_length=MAX_NAME_CHARS)


@client_frame
class AgentCancel(ClientFrame):
    t: Literal["agent-cancel"] = "agent-cancel"
    action: ClassVar[Action] = Action.RUN_ON_HOST
    session_id: SessionId


@client_frame
class AgentConfig(ClientFrame):
    t: Literal["agent-config"] = "agent-config"
    action: ClassVar[Action] = Action.RUN_ON_HOST
    session_id: SessionId
    config_id: str = Field(min_length=1, max_length=MAX_CONFIG_CHARS)
    value: str | bool = Field(union_mode="left_to_right")


@client_frame
class AgentRename(ClientFrame):
    """The host names a session ("Demo agent 1" until then)."""

    t: Literal["agent-rename"] = "agent-rename"
    action: ClassVar[Action] = Action.ADMIN
    session_id: SessionId
    title: str = Field(min_length=1, max_length=MAX_NAME_CHARS)


@client_frame
class AgentPermission(ClientFrame):
    """The host's answer to a permission request: `answer` (once/reject/always/never/session)
    or the agent's own `optionId`; neither means cancelled."""

    t: Literal["agent-permission"] = "agent-permission"
    action: ClassVar[Action] = Action.ANSWER_PERMISSION
    session_id: SessionId
    request_id: str = Field(min_length=1, max_length=MAX_CONFIG_CHARS)
    option_id: str | None = Field(default=None, max_length=MAX_CONFIG_CHARS)
    answer: HostAnswer | None = None
    by: str = Field(default="", max_length=MAX_NAME_CHARS)


@client_frame
class AgentHistoryRequest(ClientFrame):
    """Events of a session after `after` (a `seq`), sent back as `agent-history` pages."""

    action: ClassVar[Action] = Action.READ

    t: Literal["agent-history-request"] = "agent-history-request"
    session_id: SessionId
    after: int = Field(default=0, ge=0, le=2**53)


class QueuedPrompt(Model):
    text: str
    author: str


class SessionHead(Model):
    """What a client needs to show a session before its history arrives."""

    id: str
    agent: str
    agent_label: str
    title: str
    status: Literal["idle", "running", "waiting"]
    queued: list[QueuedPrompt] = Field(default_factory=list)
    options: list[dict[str, Any]] = Field(default_factory=list)
    """The agent's config options (ACP JSON), as it last reported them."""
    created: float
    last_seq: int
    """The seq of the session's newest event; 0 when it has none."""


@server_frame
class AgentMeta(ServerFrame):
    t: Literal["agent-meta"] = "agent-meta"
    meta: SessionHead


@server_frame
class AgentEvent(ServerFrame):
    t: Literal["agent-event"] = "agent-event"
    session_id: str
    event: dict[str, Any]


@server_frame
class AgentOptions(ServerFrame):
    t: Literal["agent-options"] = "agent-options"
    session_id: str
    options: list[dict[str, Any]]


@server_frame
class AgentHistory(ServerFrame):
    """A page of a session's events in seq order; `more` says another page follows."""

    t: Literal["agent-history"] = "agent-history"
    session_id: str
    events: list[dict[str, Any]]
    more: bool = False


@server_frame
class AgentRemoved(ServerFrame):
    t: Literal["agent-removed"] = "agent-removed"
    session_id: str
