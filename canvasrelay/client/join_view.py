"""What `canvas join` shows in a terminal: the sessions' threads as they stream.

Each session's events are folded with `session_log`, the same reducer every screen uses, and
only what changed since the last frame is written: a message grows by its new text, a tool or a
permission gets a line when it appears and when its status changes. Only the current turn can
still change, so the items of earlier turns are let go once written: what the view holds stays
the size of one turn per session, however long it runs. Sans-I/O: `feed` returns the text to
write, so it is tested without a terminal.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from canvasrelay.core import session_log
from canvasrelay.protocol.session_events import (
    PermissionItem,
    PermissionPreview,
    TextItem,
    Thread,
    ThreadItem,
    ToolItem,
    TurnEndItem,
    UserItem,
    readable_events,
)
from canvasrelay.protocol.words import answer_words


@dataclass
class _Shown:
    """How much of one item is on the screen already."""

    text: int = 0
    status: str | None = None


@dataclass
class ThreadView:
    labels: dict[str, str] = field(default_factory=dict)
    threads: dict[str, Thread] = field(default_factory=dict)
    shown: dict[tuple[str, str, int], _Shown] = field(default_factory=dict)
    open_item: tuple[str, str, int] | None = None
    """The message whose text ends the last line written, which new text simply continues."""

    def feed(self, frame: Mapping[str, Any]) -> str:
        """What a frame (as JSON, from the guest library) adds to the threads, as text to write."""
        kind = frame.get("t")
        if kind == "welcome":
            for head in frame.get("sessions") or []:
                self._head(head)
            return ""
        if kind == "agent-meta":
            self._head(frame.get("meta") or {})
            return ""
        if kind == "agent-removed":
            session_id = str(frame.get("sessionId"))
            self.threads.pop(session_id, None)
            self.labels.pop(session_id, None)
            self._forget_shown(session_id, set())
            return ""
        session_id = str(frame.get("sessionId"))
        if kind == "agent-event":
            events = [frame.get("event")]
        elif kind == "agent-history":
            events = frame.get("events") or []
        else:
            return ""
        thread = self.threads.setdefault(session_id, session_log.empty())
        # Where the frame's events enter the view: typed from here on.
        for event in readable_events(events):
            session_log.apply(thread, event)
        items = thread.items
        current = _current_turn(items)
        # A live event changes only the current turn's items: from the last prompt on.
        shown = items[current if kind == "agent-event" else 0 :]
        text = "".join(self._render(session_id, item) for item in _asked_first(shown))
        del items[:current]
        self._forget_shown(session_id, {(session_id, item.type, item.seq) for item in items})
        return text

    def _forget_shown(self, session_id: str, kept: set[tuple[str, str, int]]) -> None:
        for key in [key for key in self.shown if key[0] == session_id and key not in kept]:
            del self.shown[key]

    def line(self, text: str) -> str:
        """A line of something else (a notice), after ending any message that was streaming."""
        return self._break() + text + "\n"

    def _head(self, head: Mapping[str, Any]) -> None:
        if isinstance(head.get("id"), str):
            self.labels[head["id"]] = str(head.get("title") or head.get("agentLabel") or "an agent")

    def _break(self) -> str:
        if self.open_item is None:
            return ""
        self.open_item = None
        return "\n"

    def _render(self, session_id: str, item: ThreadItem) -> str:
        key = (session_id, item.type, item.seq)
        shown = self.shown.get(key)
        label = self.labels.get(session_id, "an agent")
        if isinstance(item, TextItem) and item.type == "message":
            text = item.text
            if shown is not None and len(text) <= shown.text:
                return ""
            if shown is None:
                shown = self.shown[key] = _Shown()
            delta, shown.text = text[shown.text :], len(text)
            if self.open_item == key:
                return delta
            prefix = self._break() + f"[{label}] agent: "
            self.open_item = key
            return prefix + delta
        status = _status(item)
        if shown is not None and shown.status == status:
            return ""
        self.shown[key] = _Shown(status=status)
        if status is None:
            return ""
        return self.line(f"[{label}] {status}")


def _current_turn(items: list[ThreadItem]) -> int:
    """Where the current turn's items begin: at the last prompt."""
    return next((i for i in range(len(items) - 1, -1, -1) if isinstance(items[i], UserItem)), 0)


def _asked_first(items: list[ThreadItem]) -> list[ThreadItem]:
    """The items in order, but a tool that was asked about after the permission line: a replay
    folds a tool to its final status, which must not read as if it ran before it was allowed."""
    asked = {i.tool_call_id: n for n, i in enumerate(items) if isinstance(i, PermissionItem) and i.tool_call_id}
    ordered: list[ThreadItem] = []
    held: dict[int, list[ThreadItem]] = {}
    for n, item in enumerate(items):
        after = asked.get(item.tool_call_id) if isinstance(item, ToolItem) else None
        if after is not None and after > n:
            held.setdefault(after, []).append(item)
            continue
        ordered.append(item)
        ordered += held.pop(n, [])
    return ordered


def _will_do(preview: PermissionPreview | None) -> str:
    """ " — runs `make test`", " — writes notes/todo.txt (12 bytes)", or nothing."""
    if preview is None:
        return ""
    if preview.command:
        return f" — runs {preview.command}"
    if preview.changes:
        return " — writes " + ", ".join(f"{c.path} ({c.bytes:,} bytes)" for c in preview.changes)
    return ""


def _status(item: ThreadItem) -> str | None:
    """One line for an item other than a message, or None for items not shown."""
    if isinstance(item, UserItem):
        return f"{item.author or 'someone'}: {item.text}"
    if isinstance(item, ToolItem):
        return f"tool {item.title or item.tool_call_id}: {item.status}"
    if isinstance(item, PermissionItem):
        if item.resolution is None:
            return f"asks permission: {item.title}{_will_do(item.preview)} (the host answers)"
        return f"permission for {item.title}: {answer_words(item.resolution, item.options)}"
    if isinstance(item, TurnEndItem):
        if item.error:
            return f"turn failed: {item.error}"
        if item.cancelled:
            return "turn cancelled"
        return "turn interrupted" if item.interrupted else None
    return None
