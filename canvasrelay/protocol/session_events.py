"""The session event log, typed: every event kind, the ACP session updates canvas shows, and the
thread every screen folds from them (`canvasrelay.core.session_log`).

The agent's updates are kept verbatim (`chunk` events), so the ACP models here allow fields they
do not name, and an update of a kind canvas does not show still passes as `OtherUpdate`. The
events canvas writes itself are closed: a field no model names is refused.

`SESSION_EVENT_KINDS` is the one list of kinds: the API's event schema and the generated
TypeScript are made from these models, so a kind cannot be sent and left out of either.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from functools import cache
from typing import Annotated, Any, Literal, TypeVar, get_args

from pydantic import ConfigDict, Field, TypeAdapter, ValidationError

from canvasrelay.protocol.base import Model

ToolStatus = Literal["pending", "in_progress", "completed", "failed"]
ToolKind = Literal["read", "edit", "delete", "move", "search", "execute", "think", "fetch", "switch_mode", "other"]
SessionStatus = Literal["idle", "running", "waiting"]


class AcpModel(Model):
    """An ACP object as the agent sent it: the fields canvas reads are typed, the rest pass through."""

    model_config = ConfigDict(**{**Model.model_config, "extra": "allow"})


# -- content -----------------------------------------------------------------------------------


class TextBlock(AcpModel):
    type: Literal["text"]
    text: str


class ResourceLinkBlock(AcpModel):
    type: Literal["resource_link"]
    name: str = ""
    uri: str = ""


class OtherBlock(AcpModel):
    """An image, audio or embedded resource: logged, not drawn as text."""

    type: Literal["image", "audio", "resource"]


ContentBlock = Annotated[TextBlock | ResourceLinkBlock | OtherBlock, Field(discriminator="type")]


class ToolContentBlock(AcpModel):
    """Text (or another block) the tool produced: a command's output, a search's results."""

    type: Literal["content"]
    content: ContentBlock


class ToolDiff(AcpModel):
    """An edit: the file's text before (None for a new file) and after."""

    type: Literal["diff"]
    path: str
    old_text: str | None = None
    new_text: str


class ToolTerminal(AcpModel):
    """A terminal the agent asked the client for, embedded in the call."""

    type: Literal["terminal"]
    terminal_id: str


ToolContent = Annotated[ToolContentBlock | ToolDiff | ToolTerminal, Field(discriminator="type")]


class ToolLocation(AcpModel):
    path: str
    line: int | None = None


class PlanEntry(AcpModel):
    content: str
    status: Literal["pending", "in_progress", "completed"] = "pending"
    priority: Literal["high", "medium", "low"] = "medium"


class Cost(AcpModel):
    amount: float
    currency: str


class CommandInput(AcpModel):
    hint: str = ""


class AvailableCommand(AcpModel):
    """A command the agent offers, typed as `/name` in the prompt box."""

    name: str
    description: str = ""
    input: CommandInput | None = None


class ConfigChoice(AcpModel):
    value: str
    name: str | None = None


class ConfigGroup(AcpModel):
    group: str
    name: str | None = None
    options: list[ConfigChoice] = Field(default_factory=list)


class ConfigOption(AcpModel):
    """One of the agent's settings (ACP session config option): a select or a switch."""

    id: str
    name: str | None = None
    type: str = "select"
    current_value: str | bool | None = Field(default=None, union_mode="left_to_right")
    options: list[ConfigChoice | ConfigGroup] = Field(default_factory=list)


# -- the session updates canvas shows -----------------------------------------------------------


class MessageChunk(AcpModel):
    """A piece of the agent's reply, its thinking, or (replayed history) the person's prompt."""

    session_update: Literal["agent_message_chunk", "agent_thought_chunk", "user_message_chunk"]
    content: ContentBlock | None = None


class ToolCallUpdate(AcpModel):
    """A tool call, announced (`tool_call`) or changed (`tool_call_update`): an update sets only
    the fields it carries, and replaces content and locations whole."""

    session_update: Literal["tool_call", "tool_call_update"]
    tool_call_id: str
    title: str | None = None
    kind: ToolKind | None = None
    status: ToolStatus | None = None
    content: list[ToolContent] | None = None
    locations: list[ToolLocation] | None = None
    raw_input: Any = None
    raw_output: Any = None
    """What the tool returned, in the agent's own shape (a string, or e.g. stdout and exit code)."""


class PlanUpdate(AcpModel):
    session_update: Literal["plan"]
    entries: list[PlanEntry] = Field(default_factory=list)


class UsageUpdate(AcpModel):
    """Tokens in the agent's context (of its window's size) and what the session cost so far."""

    session_update: Literal["usage_update"]
    used: int
    size: int
    cost: Cost | None = None


class AvailableCommandsUpdate(AcpModel):
    session_update: Literal["available_commands_update"]
    available_commands: list[AvailableCommand] = Field(default_factory=list)


class ConfigOptionUpdate(AcpModel):
    session_update: Literal["config_option_update"]
    config_options: list[ConfigOption] = Field(default_factory=list)


class OtherUpdate(AcpModel):
    """An update of a kind the thread does not draw (a mode change, session info…): logged as sent."""

    session_update: str


SessionUpdate = Annotated[
    MessageChunk
    | ToolCallUpdate
    | PlanUpdate
    | UsageUpdate
    | AvailableCommandsUpdate
    | ConfigOptionUpdate
    | OtherUpdate,
    Field(union_mode="left_to_right"),
]


# -- the events ----------------------------------------------------------------------------------


class PermissionOption(AcpModel):
    option_id: str
    name: str = ""
    kind: str = ""


class RuleSketch(Model):
    permission: str
    pattern: str


class PreviewChange(Model):
    path: str
    bytes: int
    lines: int
    diff: str | None = None
    head: str | None = None
    truncated: bool


class PermissionPreview(Model):
    """What the host is shown of a tool call before answering (`core.permission_preview`)."""

    kind: str
    paths: list[str]
    command: str | None
    command_chars: int | None
    changes: list[PreviewChange]
    rules: dict[Literal["always", "never"], RuleSketch]
    named: bool = True
    """False when the agent named neither a path nor a command: "always" and "never" are refused."""


class TurnEvent(Model):
    """A prompt that ran: its text, who sent it and when (seconds since the epoch)."""

    seq: int
    kind: Literal["turn"]
    text: str
    """What the agent got."""
    sha256: str = ""
    author: str | None = None
    time: float | None = None
    as_written: str | None = None
    """The guest's own words, when `text` names them to the agent (`Ada (guest, edit): …`)."""
    by_host: bool = False
    """The host sent it (`author` is then the host's name): the host's page says "You"."""


class ChunkEvent(Model):
    """One ACP session update, as the agent sent it."""

    seq: int
    kind: Literal["chunk"]
    update: SessionUpdate


class PermissionEvent(Model):
    seq: int
    kind: Literal["permission"]
    request_id: str
    tool_call_id: str | None = None
    title: str = ""
    options: list[PermissionOption] = Field(default_factory=list)
    preview: PermissionPreview | None = None


class PermissionResolvedEvent(Model):
    """A permission answered: `option_id` None means cancelled; `by` who answered (a person, the rules)."""

    seq: int
    kind: Literal["permission-resolved"]
    request_id: str
    option_id: str | None = None
    by: str | None = None
    answer: str | None = None


class TurnEndEvent(Model):
    seq: int
    kind: Literal["turn-end"]
    error: str | None = None
    """What failed, in words."""
    error_detail: str | None = None
    """The agent's own message, shown behind "Details"."""
    cancelled: bool = False
    interrupted: bool = False
    elapsed: float | None = None
    """Seconds from the turn's start; None when canvas did not see it start (a restart)."""


class NoticeEvent(Model):
    """Canvas telling the thread something about the agent."""

    seq: int
    kind: Literal["notice"]
    text: str


SessionEvent = Annotated[
    TurnEvent | ChunkEvent | PermissionEvent | PermissionResolvedEvent | TurnEndEvent | NoticeEvent,
    Field(discriminator="kind"),
]
EVENT_MODELS: tuple[type[Model], ...] = (
    TurnEvent,
    ChunkEvent,
    PermissionEvent,
    PermissionResolvedEvent,
    TurnEndEvent,
    NoticeEvent,
)
SESSION_EVENT_KINDS: tuple[str, ...] = tuple(get_args(m.model_fields["kind"].annotation)[0] for m in EVENT_MODELS)


# -- the thread ------------------------------------------------------------------------------------


class UserItem(Model):
    type: Literal["user"]
    seq: int
    text: str
    """What the agent got."""
    author: str | None
    time: float | None
    as_written: str | None
    """The guest's own words, when `text` names them to the agent."""
    by_host: bool


class TextItem(Model):
    type: Literal["message", "thought"]
    seq: int
    text: str


class ToolItem(Model):
    type: Literal["tool"]
    seq: int
    tool_call_id: str
    title: str
    kind: str
    status: str
    content: list[ToolContent]
    locations: list[ToolLocation]
    raw_output: Any


class PlanItem(Model):
    type: Literal["plan"]
    seq: int
    entries: list[PlanEntry]


class UsageItem(Model):
    """The agent's latest usage report in its turn."""

    type: Literal["usage"]
    seq: int
    used: int
    size: int
    cost: Cost | None


class Resolution(Model):
    option_id: str | None
    by: str | None
    answer: str | None


class PermissionItem(Model):
    type: Literal["permission"]
    seq: int
    request_id: str
    tool_call_id: str | None
    title: str
    options: list[PermissionOption]
    preview: PermissionPreview | None
    resolution: Resolution | None


class TurnEndItem(Model):
    """Every turn's end: how long it took, and whether it ended badly."""

    type: Literal["turn-end"]
    seq: int
    error: str | None
    error_detail: str | None = None
    cancelled: bool
    interrupted: bool
    elapsed: float | None


class NoticeItem(Model):
    type: Literal["notice"]
    seq: int
    text: str


ThreadItem = Annotated[
    UserItem | TextItem | ToolItem | PlanItem | UsageItem | PermissionItem | TurnEndItem | NoticeItem,
    Field(discriminator="type"),
]


class Thread(Model):
    """A session's log folded: what every screen shows."""

    status: SessionStatus
    items: list[ThreadItem]
    last_seq: int
    turn_open: bool


class LogHead(Model):
    """A session's head, kept (and stored) beside its log: what its status needs and nothing of its
    items (`session_log.advance`). Frozen: each event makes a new one, so a head handed to the store
    is the head after that event."""

    model_config = ConfigDict(**Model.model_config, frozen=True)

    status: SessionStatus = "idle"
    last_seq: int = 0
    open: tuple[str, ...] = ()
    """The permission requests asked and not answered yet, by request id."""
    turn_open: bool = False


# -- the edges: JSON in, typed events inside -------------------------------------------------------


@cache
def _event_adapter() -> TypeAdapter[SessionEvent]:
    # Built on first use, like the models (`defer_build`): not at import, on start-up's path.
    return TypeAdapter(SessionEvent)


@cache
def _update_adapter() -> TypeAdapter[SessionUpdate]:
    return TypeAdapter(SessionUpdate)


def session_event(data: Mapping[str, Any]) -> SessionEvent:
    """An event from its JSON form (as stored, defaults left out); raises `ValidationError`."""
    return _event_adapter().validate_python(data)


def stored_event(text: str | bytes) -> SessionEvent:
    """An event from the store's JSON text; raises `ValidationError`."""
    return _event_adapter().validate_json(text)


def stored_json(event: SessionEvent | LogHead) -> str:
    """An event (or a head) as the store keeps it: camelCase, only the fields it was given (an
    agent's update as the agent sent it), so what the store held before the models reads the same."""
    return event.model_dump_json(by_alias=True, exclude_unset=True)


def session_event_json(event: SessionEvent) -> bytes:
    """An event in the wire's JSON: every field, camelCase."""
    return _event_adapter().dump_json(event, by_alias=True)


def session_update(data: Mapping[str, Any]) -> SessionUpdate:
    """An ACP session update as the agent sent it; raises `ValidationError` (no `sessionUpdate`)."""
    return _update_adapter().validate_python(data)


def permission_options(request: Mapping[str, Any]) -> list[PermissionOption]:
    """The options an agent's permission request offers (`session/request_permission`)."""
    return [PermissionOption.model_validate(option) for option in request.get("options") or ()]


def config_options(data: Iterable[Any]) -> list[ConfigOption]:
    """The agent's config options it reported, without those no model reads (a malformed one)."""
    return _readable(ConfigOption.model_validate, data)


def readable_events(data: Iterable[Any]) -> list[SessionEvent]:
    """Events from their JSON form (a frame's), without those no model reads."""
    return _readable(session_event, data)


Read = TypeVar("Read")


def _readable(read: Callable[[Any], Read], data: Iterable[Any]) -> list[Read]:
    read_ones = []
    for item in data:
        try:
            read_ones.append(read(item))
        except ValidationError:
            continue
    return read_ones
