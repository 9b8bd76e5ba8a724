"""Fold an agent session's event log into the thread every screen shows.

Plain data in, plain data out, no I/O: the web app ports this module to TypeScript line by
line, and the JSON vectors in ``tests/vectors/session_log/`` pin both ports to one output.

Events (appended by the server, each with a strictly increasing ``seq``)::

    {"seq", "kind": "turn", "text", "sha256", "author", "time"}   (sha256: of text, as in its approval)
    {"seq", "kind": "chunk", "update": <ACP session update, verbatim>}
    {"seq", "kind": "permission", "requestId", "toolCallId", "title", "options", "preview"?}
    {"seq", "kind": "permission-resolved", "requestId", "optionId": str | null, "by", "answer"?}
    {"seq", "kind": "turn-end", "error"?: str | null, "cancelled"?: bool, "interrupted"?: bool}
    {"seq", "kind": "notice", "text"}

Thread::

    {"status": "idle" | "running" | "waiting", "items": [item, ...], "lastSeq": int, "turnOpen": bool}

``lastSeq`` is -1 for an empty thread. ``turnOpen`` is true from a ``turn`` to its
``turn-end``. ``status`` follows from the log: "waiting" while a permission is unanswered,
else "running" while a turn is open, else "idle" — so a permission an agent asks after its
turn ended waits for its answer and then leaves the session idle. Items, in log order:

    {"type": "user", "seq", "text", "author", "time"}
        a ``turn``; consecutive ``user_message_chunk`` updates (an agent replaying history)
        merge into one user item with "author": null and "time": null.
    {"type": "message", "seq", "text"}
        consecutive ``agent_message_chunk`` updates, merged.
    {"type": "thought", "seq", "text"}
        consecutive ``agent_thought_chunk`` updates, merged.
    {"type": "tool", "seq", "toolCallId", "title", "kind", "status", "content", "locations"}
        one per toolCallId (``tool_call`` or ``tool_call_update``, whichever comes first,
        defaults: title "", kind "other", status "pending", content [], locations []);
        later updates overwrite only the fields they carry (content and locations are
        replaced whole, as ACP says). Tools still pending or in_progress at ``turn-end``
        become "failed": the turn that ran them is over.
    {"type": "plan", "seq", "entries"}
        a ``plan`` replaces the entries of the latest plan item of the current turn (the
        items after the last user item); otherwise it appends a new plan item.
    {"type": "permission", "seq", "requestId", "toolCallId", "title", "options", "preview", "resolution"}
        "preview" is what the host is shown before answering (``permission_preview``), or null;
        "resolution" is null while open, then {"optionId": str | null, "by": str | null,
        "answer": str | null}; optionId null means cancelled, answer is the host's (once,
        always…) when it gave one. A ``turn-end`` closes open permissions with
        {"optionId": null, "by": null, "answer": null}.
    {"type": "turn-end", "seq", "error", "cancelled", "interrupted"}
        only for a turn that did not end normally (an error, a cancel, or an interruption
        such as a server restart); a normal ``turn-end`` adds no item.
    {"type": "notice", "seq", "text"}
        a ``notice`` event: canvas telling the thread something about the agent (e.g. that
        it could not reload the conversation).

A chunk's text is taken from its content block: "text" blocks give their text,
"resource_link" blocks give "[name](uri)", other blocks give nothing. Update kinds and
event kinds not listed above are ignored (they still advance ``lastSeq``). Events whose
``seq`` is not above ``lastSeq`` are ignored, so replaying an overlap is harmless.

``apply`` updates the thread in place and returns it; ``fold`` starts from ``empty()``.
"""

from __future__ import annotations

from typing import Any

Thread = dict[str, Any]
Event = dict[str, Any]
Item = dict[str, Any]

_MERGED_CHUNKS = {"agent_message_chunk": "message", "agent_thought_chunk": "thought"}
_TOOL_FIELDS = ("title", "kind", "status", "content", "locations")
_UNFINISHED_TOOL = ("pending", "in_progress")


def empty() -> Thread:
    return {"status": "idle", "items": [], "lastSeq": -1, "turnOpen": False}


def fold(events: list[Event]) -> Thread:
    thread = empty()
    for event in events:
        apply(thread, event)
    return thread


def apply(thread: Thread, event: Event) -> Thread:
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
            }
        )
        thread["turnOpen"] = True
        _derive_status(thread)
    elif kind == "chunk":
        _apply_update(thread, seq, event.get("update") or {})
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
        _derive_status(thread)
    elif kind == "permission-resolved":
        _resolve_permission(thread, event)
    elif kind == "turn-end":
        _end_turn(thread, seq, event)
    elif kind == "notice":
        thread["items"].append({"type": "notice", "seq": seq, "text": event.get("text", "")})
    return thread


def _derive_status(thread: Thread) -> None:
    waiting = any(item["type"] == "permission" and item["resolution"] is None for item in thread["items"])
    thread["status"] = "waiting" if waiting else "running" if thread["turnOpen"] else "idle"


def _apply_update(thread: Thread, seq: int, update: dict[str, Any]) -> None:
    items: list[Item] = thread["items"]
    last = items[-1] if items else None
    kind = update.get("sessionUpdate")
    if kind in _MERGED_CHUNKS:
        item_type = _MERGED_CHUNKS[kind]
        text = _content_text(update.get("content"))
        if last is not None and last["type"] == item_type:
            last["text"] += text
        else:
            items.append({"type": item_type, "seq": seq, "text": text})
    elif kind == "user_message_chunk":
        text = _content_text(update.get("content"))
        if last is not None and last["type"] == "user" and last["author"] is None:
            last["text"] += text
        else:
            items.append({"type": "user", "seq": seq, "text": text, "author": None, "time": None})
    elif kind in ("tool_call", "tool_call_update"):
        _apply_tool(items, seq, update)
    elif kind == "plan":
        plan = _current_turn_plan(items)
        entries = update.get("entries", [])
        if plan is None:
            items.append({"type": "plan", "seq": seq, "entries": entries})
        else:
            plan["entries"] = entries


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
        }
        items.append(tool)
    for field in _TOOL_FIELDS:
        if update.get(field) is not None:
            tool[field] = update[field]


def _current_turn_plan(items: list[Item]) -> Item | None:
    for item in reversed(items):
        if item["type"] == "plan":
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
    _derive_status(thread)


def _end_turn(thread: Thread, seq: int, event: Event) -> None:
    for item in thread["items"]:
        if item["type"] == "permission" and item["resolution"] is None:
            item["resolution"] = {"optionId": None, "by": None, "answer": None}
        elif item["type"] == "tool" and item["status"] in _UNFINISHED_TOOL:
            item["status"] = "failed"
    error = event.get("error")
    cancelled = bool(event.get("cancelled"))
    interrupted = bool(event.get("interrupted"))
    if error or cancelled or interrupted:
        thread["items"].append(
            {
                "type": "turn-end",
                "seq": seq,
                "error": error or None,
                "cancelled": cancelled,
                "interrupted": interrupted,
            }
        )
    thread["turnOpen"] = False
    thread["status"] = "idle"
