"""The API's request and response bodies. The OpenAPI document is generated from these.

Bodies are camelCase on the wire. Request bodies are strict (a string is not a number) and
refuse unknown fields, so what the document promises is exactly what is accepted.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field
from pydantic.alias_generators import to_camel

from canvasrelay.core.permission_rules import Rule
from canvasrelay.protocol.agents import SessionMeta
from canvasrelay.protocol.core import AgentInfo
from canvasrelay.protocol.guests import AccessLevel, GuestInfo
from canvasrelay.protocol.replay import Mark
from canvasrelay.protocol.session_events import SessionEvent

ID_MAX = 128
PAGE_MAX = 500


class ApiModel(BaseModel):
    model_config = ConfigDict(
        alias_generator=to_camel,
        validate_by_name=True,
        validate_by_alias=True,
        serialize_by_alias=True,
        extra="forbid",
        # Each model's validator is built when first used, a few ms, not all at start-up.
        defer_build=True,
    )


class RequestModel(ApiModel):
    """Only the camelCase names a client is told about are accepted."""

    model_config = ConfigDict(strict=True, validate_by_name=False)


class QueryModel(ApiModel):
    """Query strings are text, so their numbers are parsed (not strict)."""

    model_config = ConfigDict(validate_by_name=False)


# -- errors ---------------------------------------------------------------------------------


class FieldError(ApiModel):
    field: str
    message: str


class ErrorBody(ApiModel):
    name: str = Field(description="Machine name: bad_request, unauthorized, not_found, conflict, validation_error…")
    message: str
    code: int = Field(description="The HTTP status.")
    details: list[FieldError] | None = Field(default=None, description="For validation errors: each field.")


class ErrorOut(ApiModel):
    error: ErrorBody


# -- health, guests, board ------------------------------------------------------------------


class HealthOut(ApiModel):
    version: str
    uptime_seconds: float
    sessions: int
    guests: int = Field(description="Guests connected now.")
    webrtc: str = Field(description="The WebRTC library that carries the guests' data channels, in words.")


class GuestsOut(ApiModel):
    default_access: AccessLevel
    guests: list[GuestInfo]


class GuestAccessIn(RequestModel):
    access: AccessLevel | None = Field(description="null returns the guest to the room's default.")


class BoardItem(ApiModel):
    model_config = ConfigDict(extra="allow")

    id: str
    kind: str | None
    x: float
    y: float
    w: float
    h: float
    z: float
    color: str | None = None
    text: str | None = None


class BoardItemsOut(ApiModel):
    items: list[BoardItem]


# -- sessions -------------------------------------------------------------------------------


class PageQuery(QueryModel):
    limit: int = Field(default=50, ge=1, le=PAGE_MAX)
    cursor: int = Field(default=0, ge=0, le=2**53, description="From a previous page's nextCursor.")


class EventsQuery(QueryModel):
    after: int = Field(default=0, ge=0, le=2**53, description="Events with a seq above this.")
    limit: int = Field(default=200, ge=1, le=PAGE_MAX)


class SessionOut(ApiModel):
    id: str
    agent: str
    title: str
    status: str = Field(description="idle, running or waiting (for a permission).")
    created: float
    last_seq: int
    meta: SessionMeta = Field(description="What canvas keeps beside the session's log: its queue, the agent's options.")


class SessionsOut(ApiModel):
    sessions: list[SessionOut]
    next_cursor: int | None


class SessionEventsOut(ApiModel):
    session: SessionOut
    events: list[SessionEvent] = Field(description="The session's log: turn, chunk, permission… each with seq.")
    next_after: int | None = Field(description="Pass as `after` for the next page; null when this is the end.")


class RuleOut(ApiModel):
    id: int
    rule: Rule


class AgentRuleOut(ApiModel):
    title: str = Field(description="The tool call the host answered with the agent's own option.")
    kind: str = Field(description="The agent's option kind: allow_always or reject_always.")
    text: str = Field(description="In words: the agent's own rule, the call it came from, and how far it reaches.")


class RulesOut(ApiModel):
    session: list[RuleOut] = Field(description="The session's own rules (removable).")
    user: list[Rule]
    project: list[Rule]
    agent: list[AgentRuleOut] = Field(
        default_factory=list,
        description="What the agent itself remembers (its own always options); not canvas's rules, and "
        "as wide as the agent makes them.",
    )
    unnamed_kinds: list[str] = Field(
        default_factory=list,
        description="Tool kinds this agent asks about without a path or command: only a `*` rule matches them.",
    )


class RemovedOut(ApiModel):
    removed: int


class AgentsOut(ApiModel):
    agents: list[AgentInfo]


# -- the timeline ---------------------------------------------------------------------------


MOMENT_MAX = 1e11
"""Seconds since the epoch, well past any recording (the year 5138), and within what a clock can show."""


class SpanQuery(QueryModel):
    from_: float | None = Field(default=None, alias="from", ge=0, le=MOMENT_MAX, description="Seconds since the epoch.")
    to: float | None = Field(default=None, ge=0, le=MOMENT_MAX, description="Seconds since the epoch.")
    after: float | None = Field(
        default=None,
        ge=0,
        le=MOMENT_MAX,
        description="Only what the room did after this moment (seconds since the epoch): a timeline that ends there.",
    )


class TimelineOut(ApiModel):
    start: float
    end: float
    marks: list[Mark]


class RestoreIn(RequestModel):
    at: float = Field(ge=0, le=MOMENT_MAX, description="The moment, in seconds since the epoch.")
    item: str | None = Field(
        default=None, max_length=ID_MAX, description="One item's id; the whole board when left out."
    )


class RestoreOut(ApiModel):
    changed: bool
    """False when the board was already as it was then."""
    removed: list[str]
