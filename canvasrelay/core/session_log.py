"""Fold an agent session's event log into the thread every screen shows.

Typed events in, a typed thread out, no I/O: the events are the models of
``canvasrelay.protocol.session_events`` (``SessionEvent``), parsed once where they enter (from the
agent, from the store), and the thread is its ``Thread``. The web app ports this module to
TypeScript line by line, and the JSON vectors in ``tests/vectors/session_log/`` pin both ports to
one output (the thread's JSON, camelCase as below). Events carry a strictly increasing ``seq``.

Thread::

    {"status": "idle" | "running" | "waiting", "items": [item, ...], "lastSeq": int, "turnOpen": bool}

``lastSeq`` is -1 for an empty thread. ``turnOpen`` is true from a ``turn`` to its
``turn-end``. ``status`` follows from the log: "waiting" while a permission is unanswered,
else "running" while a turn is open, else "idle" — so a permission an agent asks after its
turn ended waits for its answer and then leaves the session idle. Items, in log order:

    {"type": "user", "seq", "text", "author", "time", "asWritten"}
        a ``turn`` ("asWritten": the guest's own words when "text" names them to the agent, else
        null); consecutive ``user_message_chunk`` updates (an agent replaying history) merge into
        one user item with "author", "time" and "asWritten" null.
    {"type": "message", "seq", "text"}
        consecutive ``agent_message_chunk`` updates, merged.
    {"type": "thought", "seq", "text"}
        consecutive ``agent_thought_chunk`` updates, merged.
    {"type": "tool", "seq", "toolCallId", "title", "kind", "status", "content", "locations", "rawOutput"}
        one per toolCallId (``tool_call`` or ``tool_call_update``, whichever comes first,
        defaults: title "", kind "other", status "pending", content [], locations [],
        rawOutput null); later updates overwrite only the fields they carry (null is not
        carried; content and locations are replaced whole, as ACP says). Tools still pending
        or in_progress at ``turn-end`` become "failed": the turn that ran them is over.
    {"type": "plan", "seq", "entries"}
        a ``plan`` replaces the entries of the latest plan item of the current turn (the
        items after the last user item); otherwise it appends a new plan item.
    {"type": "usage", "seq", "used", "size", "cost"}
        a ``usage_update``, replacing the latest usage item of the current turn, like a plan.
    {"type": "permission", "seq", "requestId", "toolCallId", "title", "options", "preview", "resolution"}
        "preview" is what the host is shown before answering (``permission_preview``), or null;
        "resolution" is null while open, then {"optionId": str | null, "by": str | null,
        "answer": str | null}; optionId null means cancelled, answer is the host's (once,
        always…) when it gave one. A ``turn-end`` closes open permissions with
        {"optionId": null, "by": null, "answer": null}.
    {"type": "turn-end", "seq", "error", "errorDetail", "cancelled", "interrupted", "elapsed"}
        every ``turn-end``: how long the turn took (seconds, or null) and how it ended.
    {"type": "notice", "seq", "text"}
        a ``notice`` event: canvas telling the thread something about the agent (e.g. that
        it could not reload the conversation).

A chunk's text is taken from its content block: "text" blocks give their text,
"resource_link" blocks give "[name](uri)" (the name read as words, never as markdown: `_link`),
other blocks give nothing. Update kinds not listed
above (``OtherUpdate`` and the rest) are ignored (they still advance ``lastSeq``). Events whose
``seq`` is not above ``lastSeq`` are ignored, so replaying an overlap is harmless.

``apply`` updates the thread in place and returns it; ``fold`` starts from ``empty()``.

A session's head (``LogHead``) is what its status needs and nothing of its items, so the server
keeps (and stores) it for every session without the thread. ``advance`` gives the head after one
more event, by the same status rule as the fold (``_next_status``).

``compact`` rewrites a log into fewer events that fold to the same thread: merged chunks become
one, a tool's updates join its earlier event, a plan's replacements join the plan, and events
the fold ignores go; the last event always stays, so ``lastSeq`` does too.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Literal, TypeVar
from urllib.parse import quote

from canvasrelay.protocol.session_events import (
    ChunkEvent,
    ContentBlock,
    LogHead,
    MessageChunk,
    NoticeEvent,
    NoticeItem,
    PermissionEvent,
    PermissionItem,
    PermissionResolvedEvent,
    PlanItem,
    PlanUpdate,
    Resolution,
    ResourceLinkBlock,
    SessionEvent,
    SessionStatus,
    SessionUpdate,
    TextBlock,
    TextItem,
    Thread,
    ThreadItem,
    ToolCallUpdate,
    ToolItem,
    TurnEndEvent,
    TurnEndItem,
    TurnEvent,
    UsageItem,
    UsageUpdate,
    UserItem,
)

_MERGED_CHUNKS: dict[str, Literal["message", "thought"]] = {
    "agent_message_chunk": "message",
    "agent_thought_chunk": "thought",
}
_TOOL_FIELDS = ("title", "kind", "status", "content", "locations", "raw_output")
_UNFINISHED_TOOL = ("pending", "in_progress")
_CANCELLED = Resolution(option_id=None, by=None, answer=None)

Merged = TextItem | UserItem
"""Items whose text later chunks add to."""


def empty() -> Thread:
    return Thread(status="idle", items=[], last_seq=-1, turn_open=False)


def fold(events: Iterable[SessionEvent]) -> Thread:
    thread = empty()
    texts = _Texts()
    for event in events:
        apply(thread, event, texts)
    texts.join()
    return thread


class _Texts:
    """A fold's merged texts as lists of parts, joined once at the end: a long message streamed in
    thousands of chunks is not rebuilt by appending to one growing string."""

    def __init__(self) -> None:
        self.parts: dict[int, tuple[Merged, list[str]]] = {}

    def append(self, item: Merged, text: str) -> None:
        entry = self.parts.get(id(item))
        if entry is None:
            self.parts[id(item)] = (item, [item.text, text])
        else:
            entry[1].append(text)

    def join(self) -> None:
        for item, parts in self.parts.values():
            item.text = "".join(parts)
        self.parts.clear()


def apply(thread: Thread, event: SessionEvent, texts: _Texts | None = None) -> Thread:
    seq = event.seq
    if seq <= thread.last_seq:
        return thread
    thread.last_seq = seq
    match event:
        case ChunkEvent():
            _apply_update(thread.items, seq, event.update, texts)
            return thread
        case NoticeEvent():
            thread.items.append(NoticeItem(type="notice", seq=seq, text=event.text))
            return thread
        case TurnEvent():
            thread.items.append(
                UserItem(
                    type="user",
                    seq=seq,
                    text=event.text,
                    author=event.author,
                    time=event.time,
                    as_written=event.as_written,
                    by_host=event.by_host,
                )
            )
            thread.turn_open = True
        case PermissionEvent():
            thread.items.append(
                PermissionItem(
                    type="permission",
                    seq=seq,
                    request_id=event.request_id,
                    tool_call_id=event.tool_call_id,
                    title=event.title,
                    options=event.options,
                    preview=event.preview,
                    resolution=None,
                )
            )
        case PermissionResolvedEvent():
            _resolve_permission(thread.items, event)
        case TurnEndEvent():
            _end_turn(thread, event)
    thread.status = _next_status(thread.turn_open, _open_permissions(thread.items))
    return thread


def _next_status(turn_open: bool, open_permissions: int) -> SessionStatus:
    """The one status rule, of the fold and the head: waiting while a permission is unanswered,
    else running while a turn is open, else idle."""
    return "waiting" if open_permissions else "running" if turn_open else "idle"


def _open_permissions(items: list[ThreadItem]) -> int:
    return sum(1 for item in items if isinstance(item, PermissionItem) and item.resolution is None)


def _apply_update(items: list[ThreadItem], seq: int, update: SessionUpdate, texts: _Texts | None) -> None:
    last = items[-1] if items else None
    match update:
        case MessageChunk(session_update="user_message_chunk"):
            text = _content_text(update.content)
            if isinstance(last, UserItem) and last.author is None:
                _append_text(last, text, texts)
            else:
                items.append(
                    UserItem(type="user", seq=seq, text=text, author=None, time=None, as_written=None, by_host=False)
                )
        case MessageChunk():
            item_type = _MERGED_CHUNKS[update.session_update]
            text = _content_text(update.content)
            if isinstance(last, TextItem) and last.type == item_type:
                _append_text(last, text, texts)
            else:
                items.append(TextItem(type=item_type, seq=seq, text=text))
        case ToolCallUpdate():
            _apply_tool(items, seq, update)
        case PlanUpdate():
            plan = _current_turn_item(items, PlanItem)
            if plan is None:
                items.append(PlanItem(type="plan", seq=seq, entries=update.entries))
            else:
                plan.entries = update.entries
        case UsageUpdate():
            usage = _current_turn_item(items, UsageItem)
            if usage is None:
                items.append(UsageItem(type="usage", seq=seq, used=update.used, size=update.size, cost=update.cost))
            else:
                usage.used, usage.size, usage.cost = update.used, update.size, update.cost


def _append_text(item: Merged, text: str, texts: _Texts | None) -> None:
    if texts is None:
        item.text += text
    else:
        texts.append(item, text)


def _content_text(block: ContentBlock | None) -> str:
    if isinstance(block, TextBlock):
        return block.text
    if isinstance(block, ResourceLinkBlock):
        return _link(block.name, block.uri)
    return ""


_NAME_MARKS = re.compile(r"[\\\[\]()!`<>*_~]")
_URI_BREAKS = re.compile(r"[ \t\n\r\f\v()<>\\]")
_LINE_BREAKS = re.compile(r"[\r\n]+")


def _link(name: str, uri: str) -> str:
    """A link to `uri` named `name`, as markdown whose name is words: an agent's `![x](…)` in a
    name is not a picture, and no character of the address ends the link early. The web app's
    `resourceLink` writes the same."""
    words = _NAME_MARKS.sub(lambda mark: "\\" + mark[0], _LINE_BREAKS.sub(" ", name))
    return "[" + words + "](" + _URI_BREAKS.sub(lambda mark: quote(mark[0]), uri) + ")"


def _apply_tool(items: list[ThreadItem], seq: int, update: ToolCallUpdate) -> None:
    tool = None
    for item in reversed(items):
        if isinstance(item, ToolItem) and item.tool_call_id == update.tool_call_id:
            tool = item
            break
    if tool is None:
        tool = ToolItem(
            type="tool",
            seq=seq,
            tool_call_id=update.tool_call_id,
            title="",
            kind="other",
            status="pending",
            content=[],
            locations=[],
            raw_output=None,
        )
        items.append(tool)
    for field in _TOOL_FIELDS:
        value = getattr(update, field)
        if value is not None:
            setattr(tool, field, value)


Replaced = TypeVar("Replaced", PlanItem, UsageItem)
"""Items the latest update of their kind in a turn replaces."""


def _current_turn_item(items: list[ThreadItem], item_type: type[Replaced]) -> Replaced | None:
    for item in reversed(items):
        if isinstance(item, item_type):
            return item
        if isinstance(item, UserItem):
            return None
    return None


def _resolve_permission(items: list[ThreadItem], event: PermissionResolvedEvent) -> None:
    for item in items:
        if isinstance(item, PermissionItem) and item.request_id == event.request_id and item.resolution is None:
            item.resolution = Resolution(option_id=event.option_id, by=event.by, answer=event.answer)


def _end_turn(thread: Thread, event: TurnEndEvent) -> None:
    for item in thread.items:
        if isinstance(item, PermissionItem) and item.resolution is None:
            item.resolution = _CANCELLED
        elif isinstance(item, ToolItem) and item.status in _UNFINISHED_TOOL:
            item.status = "failed"
    thread.items.append(
        TurnEndItem(
            type="turn-end",
            seq=event.seq,
            error=event.error or None,
            error_detail=event.error_detail or None,
            cancelled=event.cancelled,
            interrupted=event.interrupted,
            elapsed=event.elapsed,
        )
    )
    thread.turn_open = False


# -- the head --------------------------------------------------------------------------------


def advance(head: LogHead, event: SessionEvent) -> LogHead:
    """The head after one more event: what `fold` would say of status and lastSeq."""
    seq = event.seq
    if seq <= head.last_seq:
        return head
    turn_open, open_ = head.turn_open, head.open
    match event:
        case TurnEvent():
            turn_open = True
        case PermissionEvent():
            open_ = (*open_, event.request_id)
        case PermissionResolvedEvent():
            open_ = tuple(r for r in open_ if r != event.request_id)
        case TurnEndEvent():
            turn_open, open_ = False, ()
    status = _next_status(turn_open, len(open_))
    return head.model_copy(update={"last_seq": seq, "status": status, "open": open_, "turn_open": turn_open})


# -- compaction ------------------------------------------------------------------------------


class _Compacted:
    """The events kept so far, and which of them later events were folded into."""

    def __init__(self) -> None:
        self.events: list[SessionEvent] = []
        self.owned: set[int] = set()
        """Indexes of kept events already copied, so changing them leaves the caller's log alone."""
        self.creators: dict[int, int] = {}
        """id(item) → index of the kept event that made the item."""
        self.texts: dict[int, list[str]] = {}
        """Index of a kept event → its text and the texts merged into it."""
        self.tools: dict[str, int] = {}
        """toolCallId → index of the kept event that carries the tool's fields since the last turn-end."""

    def keep(self, event: SessionEvent) -> int:
        self.events.append(event)
        return len(self.events) - 1

    def own(self, index: int) -> ChunkEvent | TurnEvent:
        event = self.events[index]
        assert isinstance(event, ChunkEvent | TurnEvent), "only turns and chunks take in later events"
        if index not in self.owned:
            # Shallow: what a later event changes is replaced whole, never changed inside.
            update = {"update": event.update.model_copy()} if isinstance(event, ChunkEvent) else None
            event = event.model_copy(update=update)
            self.events[index] = event
            self.owned.add(index)
        return event

    def add_text(self, index: int, text: str) -> None:
        parts = self.texts.get(index)
        if parts is None:
            event = self.events[index]
            first = event.text if isinstance(event, TurnEvent) else _chunk_text(event)
            parts = self.texts[index] = [first]
        parts.append(text)

    def done(self) -> list[SessionEvent]:
        for index, parts in self.texts.items():
            event = self.own(index)
            if isinstance(event, TurnEvent):
                event.text = "".join(parts)
            elif isinstance(event.update, MessageChunk):
                event.update.content = TextBlock(type="text", text="".join(parts))
        return self.events


def _chunk_text(event: SessionEvent) -> str:
    update = event.update if isinstance(event, ChunkEvent) else None
    return _content_text(update.content) if isinstance(update, MessageChunk) else ""


def compact(events: list[SessionEvent]) -> list[SessionEvent]:
    """Fewer events with the same fold (see the module's docstring). The input is not changed."""
    live = _not_ignored(events)
    if len(live) < 2:
        return live
    thread = empty()
    texts = _Texts()
    kept = _Compacted()
    for event in live[:-1]:
        items = thread.items
        count = len(items)
        update = event.update if isinstance(event, ChunkEvent) else None
        target = _target(kept, items, update) if update is not None else None
        apply(thread, event, texts)
        made = items[-1] if len(items) > count else None
        if made is None and update is not None and _fold_into(kept, target, update):
            continue
        index = kept.keep(event)
        if made is not None:
            kept.creators[id(made)] = index
        if isinstance(event, TurnEndEvent):
            kept.tools.clear()
        elif isinstance(update, ToolCallUpdate):
            kept.tools[update.tool_call_id] = index
    kept.keep(live[-1])
    return kept.done()


def _not_ignored(events: list[SessionEvent]) -> list[SessionEvent]:
    """The events whose seq is above every one before: the fold ignores the others entirely."""
    live: list[SessionEvent] = []
    for event in events:
        if not live or event.seq > live[-1].seq:
            live.append(event)
    return live


def _target(kept: _Compacted, items: list[ThreadItem], update: SessionUpdate) -> int | None:
    """The kept event that `update` would change, if it makes no item of its own."""
    match update:
        case MessageChunk():
            return _creator(kept, items[-1] if items else None)
        case ToolCallUpdate():
            return kept.tools.get(update.tool_call_id)
        case PlanUpdate():
            return _creator(kept, _current_turn_item(items, PlanItem))
        case UsageUpdate():
            return _creator(kept, _current_turn_item(items, UsageItem))
    return None


def _creator(kept: _Compacted, item: ThreadItem | None) -> int | None:
    return kept.creators.get(id(item)) if item is not None else None


def _fold_into(kept: _Compacted, target: int | None, update: SessionUpdate) -> bool:
    """Fold a chunk that made no item into the kept event it changed; True if it needs no event of its own."""
    if not isinstance(update, MessageChunk | ToolCallUpdate | PlanUpdate | UsageUpdate):
        return True  # an update the fold ignores
    if target is None:
        return False
    if isinstance(update, MessageChunk):
        kept.add_text(target, _content_text(update.content))
        return True
    event = kept.own(target)
    assert isinstance(event, ChunkEvent)
    if isinstance(update, PlanUpdate | UsageUpdate):
        event.update = update
    elif isinstance(event.update, ToolCallUpdate):
        for field in _TOOL_FIELDS:
            value = getattr(update, field)
            if value is not None:
                setattr(event.update, field, value)
    return True
