"""Agent session frames.

A session is an append-only log of events (see `canvasrelay.core.session_log`), each with a
`seq`; `agent-event` carries one as it is appended, `agent-history` a bounded page of the past,
with the range of seqs it covers. A joining client gets the newest page of each session; it asks
for older ones (`before`) as the reader scrolls up, and for what it missed (`after`) after a gap,
one page per request.
"""

from __future__ import annotations

from typing import Annotated, ClassVar, Literal

from pydantic import ConfigDict, Field, model_validator

from canvasrelay.protocol.access import Action
from canvasrelay.protocol.base import ClientFrame, Model, ServerFrame, client_frame, server_frame
from canvasrelay.protocol.session_events import AvailableCommand, ConfigOption, SessionEvent, SessionStatus

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
    written: str | None = Field(default=None, max_length=MAX_PROMPT_CHARS)
    """Set by the server, which replaces what a client sends here: when it names a guest's prompt to
    the agent (`text` becomes `Ada (guest, edit): …`), the guest's own words."""


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
    """The host names a session ("Demo agent" until then)."""

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
    """One page of a session's events, sent back as `agent-history`: the oldest after `after`,
    or the newest before `before`, or (neither) the newest of all."""

    action: ClassVar[Action] = Action.READ

    t: Literal["agent-history-request"] = "agent-history-request"
    session_id: SessionId
    after: int | None = Field(default=None, ge=0, le=2**53)
    before: int | None = Field(default=None, ge=1, le=2**53)

    @model_validator(mode="after")
    def _one_direction(self) -> AgentHistoryRequest:
        if self.after is not None and self.before is not None:
            raise ValueError("ask for the events after a seq or before one, not both")
        return self


class QueuedPrompt(Model):
    text: str
    author: str
    as_written: str | None = None
    """The guest's own words, when `text` names them to the agent."""
    by_host: bool = False
    """The host sent it: the host's page says "You", a guest's the host's name (`author`)."""


class SessionMeta(Model):
    """What the store keeps beside a session's log, so a restart restores its queue and options."""

    # A name an older canvas kept and this one no longer reads does not keep the session from loading.
    model_config = ConfigDict(**{**Model.model_config, "extra": "ignore"})

    agent_label: str | None = None
    queued: list[QueuedPrompt] = Field(default_factory=list)
    options: list[ConfigOption] = Field(default_factory=list)
    commands: list[AvailableCommand] = Field(default_factory=list)
    named_prompts: bool = True


class SessionHead(Model):
    """What a client needs to show a session before its history arrives."""

    id: str
    agent: str
    agent_label: str
    title: str
    status: SessionStatus
    queued: list[QueuedPrompt] = Field(default_factory=list)
    options: list[ConfigOption] = Field(default_factory=list)
    """The agent's config options, as it last reported them."""
    commands: list[AvailableCommand] = Field(default_factory=list)
    """The commands the agent offers (`/name` in the prompt box), as it last reported them."""
    created: float
    last_seq: int
    """The seq of the session's newest event; 0 when it has none."""
    turn_open: bool = False
    """A turn runs: from its `turn` event to its `turn-end`."""
    open_permissions: list[str] = Field(default_factory=list)
    """The permission requests asked and not answered yet, by request id."""
    named_prompts: bool = True
    """A guest's prompt reaches the agent with its author named (`Ada (guest, edit): …`); the host
    switches it per session (`prompt-attribution`)."""


@server_frame
class AgentMeta(ServerFrame):
    t: Literal["agent-meta"] = "agent-meta"
    meta: SessionHead


@server_frame
class AgentEvent(ServerFrame):
    t: Literal["agent-event"] = "agent-event"
    session_id: str
    event: SessionEvent


@server_frame
class AgentOptions(ServerFrame):
    t: Literal["agent-options"] = "agent-options"
    session_id: str
    options: list[ConfigOption]


@server_frame
class AgentHistory(ServerFrame):
    """A page of a session's events in seq order: every stored event with `after` < seq ≤
    `through` (a log compacted at start-up has gaps in its seqs). `after` 0: nothing is older."""

    t: Literal["agent-history"] = "agent-history"
    session_id: str
    events: list[SessionEvent]
    after: int
    through: int


@server_frame
class AgentCompacted(ServerFrame):
    """The stored events with `after` < seq ≤ `through` (a finished turn) were rewritten into fewer
    that fold to the same thread. A client that holds all or none of them carries on; one holding
    only the newer part drops it (older pages now come compacted); one missing the newer part
    loads the newest page again."""

    t: Literal["agent-compacted"] = "agent-compacted"
    session_id: str
    after: int
    through: int


@server_frame
class AgentRemoved(ServerFrame):
    t: Literal["agent-removed"] = "agent-removed"
    session_id: str
