"""Fold an agent session's event log into the thread every screen shows.

Plain data in, plain data out, no I/O: the web app ports this module to TypeScript line by
line, and the JSON vectors in ``tests/vectors/session_log/`` pin both ports to one output.

Events and items are typed by the models in ``canvasrelay.protocol.session_events`` (the
events as ``SessionEvent``, the thread as ``Thread``); this fold works on their JSON form, as the
store keeps it and the API serves it. Events carry a strictly increasing ``seq``.

Thread::

    {"status": "idle" | "running" | "waiting", "items": [item, ...], "lastSeq": int, "turnOpen": bool}

``lastSeq`` is -1 for an empty thread. ``turnOpen`` is true from a ``turn`` to its
``turn-end``. ``status`` follows from the log: "waiting" while a permission is unanswered,
else "running" while a turn is open, else "idle" — so a permission an agent asks after its
turn ended waits for its answer and then leaves the session idle. Items, in log order:

    {"type": "user", "seq", "text", "author", "time", "asWritten", "byHost"}
        a ``turn`` ("asWritten": the guest's own words when "text" names them to the agent, else
        null; "byHost": the host sent it); consecutive ``user_message_chunk`` updates (an agent
        replaying history) merge into one user item with "author", "time" and "asWritten" null.
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
"resource_link" blocks give "[name](uri)", other blocks give nothing. Update kinds and
event kinds not listed above are ignored (they still advance ``lastSeq``). Events whose
``seq`` is not above ``lastSeq`` are ignored, so replaying an overlap is harmless.

``apply`` updates the thread in place and returns it; ``fold`` starts from ``empty()``.

A session's head is what its status needs and nothing of its items, so the server keeps (and
stores) it for every session without the thread::

    {"status", "lastSeq", "open": [requestId, ...], "turnOpen"}

``advance`` moves a head by one event, by the same status rule as the fold (``_next_status``).

``compact`` rewrites a log into fewer events that fold to the same thread: merged chunks become
one, a tool's updates join its earlier event, a plan's replacements join the plan, and events
the fold ignores go; the last event always stays, so ``lastSeq`` does too.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

Thread = dict[str, Any]
Event = dict[str, Any]
Item = dict[str, Any]

_MERGED_CHUNKS = {"agent_message_chunk": "message", "agent_thought_chunk": "thought"}
_TOOL_FIELDS = ("title", "kind", "status", "content", "locations", "rawOutput")
_REPLACED_IN_TURN = {"plan": "plan", "usage_update": "usage"}
"""Updates whose latest in a turn replaces the one before, and the item they make."""
_UNFINISHED_TOOL = ("pending", "in_progress")


def empty() -> Thread:
    return {"status": "idle", "items": [], "lastSeq": -1, "turnOpen": False}


def fold(events: Iterable[Event]) -> Thread:
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
        self.parts: dict[int, tuple[Item, list[str]]] = {}

    def append(self, item: Item, text: str) -> None:
        entry = self.parts.get(id(item))
        if entry is None:
            self.parts[id(item)] = (item, [item["text"], text])
        else:
            entry[1].append(text)

    def join(self) -> None:
        for item, parts in self.parts.values():
            item["text"] = "".join(parts)
        self.parts.clear()


def apply(thread: Thread, event: Event, texts: _Texts | None = None) -> Thread:
    seq = event["seq"]
    if seq <= thread["lastSeq"]:
        return thread
    thread["lastSeq"] = seq
    kind = event.get("kind")
    if kind == "turn":
        thread["items"].append(
            {
                "type": "user",
                "seq": seq,
                "text": event.get("text", ""),
                "author": event.get("author"),
                "time": event.get("time"),
                "asWritten": event.get("asWritten"),
                "byHost": bool(event.get("byHost", False)),
            }
        )
        thread["turnOpen"] = True
    elif kind == "chunk":
        _apply_update(thread, seq, event.get("update") or {}, texts)
    elif kind == "permission":
        thread["items"].append(
            {
                "type": "permission",
                "seq": seq,
                "requestId": event["requestId"],
                "toolCallId": event.get("toolCallId"),
                "title": event.get("title", ""),
                "options": event.get("options", []),
                "preview": event.get("preview"),
                "resolution": None,
            }
        )
    elif kind == "permission-resolved":
        _resolve_permission(thread, event)
    elif kind == "turn-end":
        _end_turn(thread, seq, event)
    elif kind == "notice":
        thread["items"].append({"type": "notice", "seq": seq, "text": event.get("text", "")})
    if kind in _STATUS_KINDS:
        thread["status"] = _next_status(thread["turnOpen"], _open_permissions(thread))
    return thread


_STATUS_KINDS = ("turn", "permission", "permission-resolved", "turn-end")


def _next_status(turn_open: bool, open_permissions: int) -> str:
    """The one status rule, of the fold and the head: waiting while a permission is unanswered,
    else running while a turn is open, else idle."""
    return "waiting" if open_permissions else "running" if turn_open else "idle"


def _open_permissions(thread: Thread) -> int:
    return sum(1 for item in thread["items"] if item["type"] == "permission" and item["resolution"] is None)


def _apply_update(thread: Thread, seq: int, update: dict[str, Any], texts: _Texts | None) -> None:
    items: list[Item] = thread["items"]
    last = items[-1] if items else None
    kind = update.get("sessionUpdate")
    if kind in _MERGED_CHUNKS:
        item_type = _MERGED_CHUNKS[kind]
        text = _content_text(update.get("content"))
        if last is not None and last["type"] == item_type:
            _append_text(last, text, texts)
        else:
            items.append({"type": item_type, "seq": seq, "text": text})
    elif kind == "user_message_chunk":
        text = _content_text(update.get("content"))
        if last is not None and last["type"] == "user" and last["author"] is None:
            _append_text(last, text, texts)
        else:
            items.append(
                {
                    "type": "user",
                    "seq": seq,
                    "text": text,
                    "author": None,
                    "time": None,
                    "asWritten": None,
                    "byHost": False,
                }
            )
    elif kind in ("tool_call", "tool_call_update"):
        _apply_tool(items, seq, update)
    elif kind in _REPLACED_IN_TURN:
        fields = _replaced_fields(update)
        latest = _current_turn_item(items, _REPLACED_IN_TURN[kind])
        if latest is None:
            items.append({"type": _REPLACED_IN_TURN[kind], "seq": seq, **fields})
        else:
            latest.update(fields)


def _replaced_fields(update: dict[str, Any]) -> dict[str, Any]:
    if update.get("sessionUpdate") == "plan":
        return {"entries": update.get("entries") or []}
    return {"used": update.get("used", 0), "size": update.get("size", 0), "cost": update.get("cost")}


def _append_text(item: Item, text: str, texts: _Texts | None) -> None:
    if texts is None:
        item["text"] += text
    else:
        texts.append(item, text)


def _content_text(block: Any) -> str:
    if not isinstance(block, dict):
        return ""
    if block.get("type") == "text":
        return block.get("text", "")
    if block.get("type") == "resource_link":
        return "[" + block.get("name", "") + "](" + block.get("uri", "") + ")"
    return ""


def _apply_tool(items: list[Item], seq: int, update: dict[str, Any]) -> None:
    tool_call_id = update.get("toolCallId")
    tool = None
    for item in reversed(items):
        if item["type"] == "tool" and item["toolCallId"] == tool_call_id:
            tool = item
            break
    if tool is None:
        tool = {
            "type": "tool",
            "seq": seq,
            "toolCallId": tool_call_id,
            "title": "",
            "kind": "other",
            "status": "pending",
            "content": [],
            "locations": [],
            "rawOutput": None,
        }
        items.append(tool)
    for field in _TOOL_FIELDS:
        if update.get(field) is not None:
            tool[field] = update[field]


def _current_turn_item(items: list[Item], item_type: str) -> Item | None:
    for item in reversed(items):
        if item["type"] == item_type:
            return item
        if item["type"] == "user":
            return None
    return None


def _resolve_permission(thread: Thread, event: Event) -> None:
    for item in thread["items"]:
        if item["type"] == "permission" and item["requestId"] == event.get("requestId") and item["resolution"] is None:
            item["resolution"] = {
                "optionId": event.get("optionId"),
                "by": event.get("by"),
                "answer": event.get("answer"),
            }


def _end_turn(thread: Thread, seq: int, event: Event) -> None:
    for item in thread["items"]:
        if item["type"] == "permission" and item["resolution"] is None:
            item["resolution"] = {"optionId": None, "by": None, "answer": None}
        elif item["type"] == "tool" and item["status"] in _UNFINISHED_TOOL:
            item["status"] = "failed"
    thread["items"].append(
        {
            "type": "turn-end",
            "seq": seq,
            "error": event.get("error") or None,
            "errorDetail": event.get("errorDetail") or None,
            "cancelled": bool(event.get("cancelled")),
            "interrupted": bool(event.get("interrupted")),
            "elapsed": event.get("elapsed"),
        }
    )
    thread["turnOpen"] = False


# -- the head --------------------------------------------------------------------------------

Head = dict[str, Any]


def empty_head() -> Head:
    return {"status": "idle", "lastSeq": 0, "open": [], "turnOpen": False}


def advance(head: Head, event: Event) -> Head:
    """The head after one more event, in place: what `fold` would say of status and lastSeq."""
    seq = event["seq"]
    if seq <= head["lastSeq"]:
        return head
    head["lastSeq"] = seq
    kind = event.get("kind")
    if kind == "turn":
        head["turnOpen"] = True
    elif kind == "permission":
        head["open"].append(event["requestId"])
    elif kind == "permission-resolved":
        head["open"] = [r for r in head["open"] if r != event.get("requestId")]
    elif kind == "turn-end":
        head["open"] = []
        head["turnOpen"] = False
    head["status"] = _next_status(head["turnOpen"], len(head["open"]))
    return head


# -- compaction ------------------------------------------------------------------------------

_KINDS = ("turn", "chunk", "permission", "permission-resolved", "turn-end", "notice")
_TEXT_CHUNKS = (*_MERGED_CHUNKS, "user_message_chunk")


class _Compacted:
    """The events kept so far, and which of them later events were folded into."""

    def __init__(self) -> None:
        self.events: list[Event] = []
        self.owned: set[int] = set()
        """Indexes of kept events already copied, so changing them leaves the caller's log alone."""
        self.creators: dict[int, int] = {}
        """id(item) → index of the kept event that made the item."""
        self.texts: dict[int, list[str]] = {}
        """Index of a kept event → its text and the texts merged into it."""
        self.tools: dict[Any, int] = {}
        """toolCallId → index of the kept event that carries the tool's fields since the last turn-end."""

    def keep(self, event: Event) -> int:
        self.events.append(event)
        return len(self.events) - 1

    def own(self, index: int) -> Event:
        event = self.events[index]
        if index not in self.owned:
            event = {**event}
            if isinstance(event.get("update"), dict):
                event["update"] = dict(event["update"])
            self.events[index] = event
            self.owned.add(index)
        return event

    def add_text(self, index: int, text: str) -> None:
        parts = self.texts.get(index)
        if parts is None:
            event = self.events[index]
            first = event.get("text", "") if event["kind"] == "turn" else _content_text(event["update"].get("content"))
            parts = self.texts[index] = [first]
        parts.append(text)

    def done(self) -> list[Event]:
        for index, parts in self.texts.items():
            event = self.own(index)
            if event["kind"] == "turn":
                event["text"] = "".join(parts)
            else:
                event["update"]["content"] = {"type": "text", "text": "".join(parts)}
        return self.events


def compact(events: list[Event]) -> list[Event]:
    """Fewer events with the same fold (see the module's docstring). The input is not changed."""
    live = _not_ignored(events)
    if len(live) < 2:
        return live
    thread = empty()
    texts = _Texts()
    kept = _Compacted()
    for event in live[:-1]:
        kind = event.get("kind")
        if kind not in _KINDS:
            thread["lastSeq"] = event["seq"]
            continue
        items: list[Item] = thread["items"]
        count = len(items)
        update = (event.get("update") or {}) if kind == "chunk" else {}
        target = _target(kept, items, update) if update else None
        apply(thread, event, texts)
        made = items[-1] if len(items) > count else None
        if made is None and update and _fold_into(kept, target, update):
            continue
        index = kept.keep(event)
        if made is not None:
            kept.creators[id(made)] = index
        if kind == "turn-end":
            kept.tools.clear()
        elif update.get("sessionUpdate") in ("tool_call", "tool_call_update"):
            kept.tools[update.get("toolCallId")] = index
    kept.keep(live[-1])
    return kept.done()


def _not_ignored(events: list[Event]) -> list[Event]:
    """The events whose seq is above every one before: the fold ignores the others entirely."""
    live: list[Event] = []
    for event in events:
        if not live or event["seq"] > live[-1]["seq"]:
            live.append(event)
    return live


def _target(kept: _Compacted, items: list[Item], update: dict[str, Any]) -> int | None:
    """The kept event that `update` would change, if it makes no item of its own."""
    kind = update.get("sessionUpdate")
    if kind in _TEXT_CHUNKS:
        return kept.creators.get(id(items[-1])) if items else None
    if kind in ("tool_call", "tool_call_update"):
        return kept.tools.get(update.get("toolCallId"))
    if kind in _REPLACED_IN_TURN:
        latest = _current_turn_item(items, _REPLACED_IN_TURN[kind])
        return kept.creators.get(id(latest)) if latest is not None else None
    return None


def _fold_into(kept: _Compacted, target: int | None, update: dict[str, Any]) -> bool:
    """Fold a chunk that made no item into the kept event it changed; True if it needs no event of its own."""
    kind = update.get("sessionUpdate")
    if kind not in (*_TEXT_CHUNKS, "tool_call", "tool_call_update", *_REPLACED_IN_TURN):
        return True  # an update the fold ignores
    if target is None:
        return False
    if kind in _TEXT_CHUNKS:
        kept.add_text(target, _content_text(update.get("content")))
    elif kind in _REPLACED_IN_TURN:
        kept.own(target)["update"] = update
    else:
        fields = kept.own(target)["update"]
        for field in _TOOL_FIELDS:
            if update.get(field) is not None:
                fields[field] = update[field]
    return True
