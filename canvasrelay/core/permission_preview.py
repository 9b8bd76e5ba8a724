"""What the host sees of a tool call before answering its permission request: the whole command,
the diff (or the new content's first lines) with its size, and the session rule that "Always"
and "Never" would add. Pure: the agents core puts it into the `permission` event it logs.

Real agents often send a permission request that carries only the call's id and title; what it
will do came earlier (`tool_call` updates: rawInput, locations, diff content), so the caller
merges those in first.
"""

from __future__ import annotations

import difflib
import posixpath
import shlex
from collections.abc import Mapping
from typing import Any, Literal

from canvasrelay.core.permission_rules import COMMAND_KEYS, named, rule_for_answer, subject_of
from canvasrelay.protocol.session_events import PermissionPreview, PreviewChange, RuleSketch

MAX_COMMAND_CHARS = 16_000
MAX_DIFF_LINES = 400
MAX_DIFF_CHARS = 32_000
HEAD_LINES = 20
MAX_CHANGES = 8


def preview(tool_call: Mapping[str, Any], root: str) -> PermissionPreview:
    """What the host is shown of one tool call; every piece bounded. `named` is false when the
    agent said neither a path nor a command: "always" and "never" are then refused, and the host
    is told the call is not named."""
    subject = subject_of(tool_call)
    root = posixpath.normpath(root) if root else ""
    rules: dict[Literal["always", "never"], RuleSketch] = {}
    answers: tuple[Literal["always", "never"], ...] = ("always", "never")
    for answer in answers:
        rule = rule_for_answer(subject, answer, root)
        if rule is not None:
            rules[answer] = RuleSketch(permission=rule.permission, pattern=rule.pattern)
    command = _command(tool_call)
    return PermissionPreview(
        kind=subject.kind,
        paths=[_relative(path, root) for path in subject.paths],
        command=_cut(command, MAX_COMMAND_CHARS) if command is not None else None,
        command_chars=len(command) if command is not None else None,
        changes=_changes(tool_call.get("content"), root),
        rules=rules,
        named=named(subject),
    )


def unread_replacements(tool_call: Mapping[str, Any]) -> list[str]:
    """The paths of diffs that carry no old text: a new file, or (Claude's Write tool) a file
    replaced whole, whose text on disk the caller reads so the host sees what is lost."""
    return [block["path"] for block in _diffs(tool_call) if block.get("oldText") is None]


def with_old_texts(tool_call: Mapping[str, Any], on_disk: Mapping[str, str]) -> dict[str, Any]:
    """The call with each of those diffs given the text on disk the caller found (a path it did
    not find stays a new file); a call without content is left as it is."""
    if not isinstance(tool_call.get("content"), list):
        return dict(tool_call)
    content = [
        {**block, "oldText": on_disk[block["path"]]}
        if _is_diff(block) and block.get("oldText") is None and block["path"] in on_disk
        else block
        for block in tool_call["content"]
    ]
    return {**tool_call, "content": content}


def _diffs(tool_call: Mapping[str, Any]) -> list[Mapping[str, Any]]:
    content = tool_call.get("content")
    return [block for block in content if _is_diff(block)][:MAX_CHANGES] if isinstance(content, list) else []


def _is_diff(block: Any) -> bool:
    return (
        isinstance(block, Mapping)
        and block.get("type") == "diff"
        and isinstance(block.get("newText"), str)
        and isinstance(block.get("path"), str)
    )


def _command(tool_call: Mapping[str, Any]) -> str | None:
    """The command as it will run: an argv list is quoted back into one shell line, so the host
    reads exactly the words that become arguments."""
    raw = tool_call.get("rawInput")
    if not isinstance(raw, Mapping):
        return None
    for key in COMMAND_KEYS:
        value = raw.get(key)
        if isinstance(value, str) and value.strip():
            return value
        if isinstance(value, list) and value and all(isinstance(v, str) for v in value):
            return shlex.join(value)
    return None


def _changes(content: Any, root: str) -> list[PreviewChange]:
    changes: list[PreviewChange] = []
    if not isinstance(content, list):
        return changes
    for block in content:
        if not (isinstance(block, Mapping) and block.get("type") == "diff" and isinstance(block.get("newText"), str)):
            continue
        if len(changes) == MAX_CHANGES:
            break
        path = block.get("path")
        path = path if isinstance(path, str) else ""
        old, new = block.get("oldText"), block["newText"]
        size = {
            "path": _relative(path, root),
            "bytes": len(new.encode("utf-8")),
            "lines": new.count("\n") + (0 if new.endswith("\n") or not new else 1),
        }
        if isinstance(old, str) and old:
            lines = difflib.unified_diff(old.splitlines(), new.splitlines(), "before", "after", lineterm="", n=2)
            diff, truncated = _bounded(list(lines)[2:], MAX_DIFF_LINES)
            changes.append(PreviewChange(**size, diff=diff, truncated=truncated))
        else:
            head, truncated = _bounded(new.splitlines(), HEAD_LINES)
            changes.append(PreviewChange(**size, head=head, truncated=truncated))
    return changes


def _bounded(lines: list[str], most: int) -> tuple[str, bool]:
    text = "\n".join(lines[:most])
    return _cut(text, MAX_DIFF_CHARS), len(lines) > most or len(text) > MAX_DIFF_CHARS


def _cut(text: str, most: int) -> str:
    return text if len(text) <= most else text[:most]


def _relative(path: str, root: str) -> str:
    normal = posixpath.normpath(path) if path else path
    if root and normal.startswith(root.rstrip("/") + "/"):
        return posixpath.relpath(normal, root)
    return normal
