"""Permission rules: what canvas answers for an agent's tool call before (or instead of) the host.

A rule is `{permission, pattern, action, reason?}`: `permission` is an ACP tool kind (or `*`),
`pattern` a glob on the call's path (or, for `execute`, its command), `action` allow, deny or
ask. Rules come in layers, searched in order with the last match winning:

    default (ask everything) < user (~/.config/canvas/permissions.toml)
                             < project (<dir>/.canvas/config.toml) < session (the host's answers)

Both files hold the same shape, an array of tables:

    [[permissions]]
    permission = "read"
    pattern = "**"
    action = "allow"

`decide` is pure (no I/O, no symlink resolution): loading files and persisting session rules
happen around it, so the whole decision table is tested without a disk.

Paths: ACP gives absolute paths. Inside the project they are matched relative to it, outside it
as absolute paths. A pattern without `/` matches the file name at any depth (`*.env`); `*` stays
within one path segment, `**` crosses them, `?` is one character, `\\` escapes. Commands use the
same glob, with `*` matching anything. A pattern of `*` (or `**`) matches every call of its kind,
even one that names no path or command.
"""

from __future__ import annotations

import os
import posixpath
import re
import shlex
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any, Literal, NamedTuple, TypedDict, get_args

from pydantic import BaseModel, ConfigDict, Field, field_validator

from canvasrelay.core.errors import ConfigError
from canvasrelay.core.runs_later import project_relative, runs_later_reason
from canvasrelay.protocol.agents import HostAnswer
from canvasrelay.protocol.json_value import JsonObject
from canvasrelay.protocol.session_events import PermissionOption

Permission = Literal["read", "edit", "delete", "move", "search", "execute", "think", "fetch", "other"]
PERMISSIONS: tuple[str, ...] = get_args(Permission)
RuleAction = Literal["allow", "deny", "ask"]
Layer = Literal["default", "user", "project", "session"]
LAYERS: tuple[Layer, ...] = ("default", "user", "project", "session")

ToolCallJson = JsonObject
"""An ACP `ToolCall`/`ToolCallUpdate` as the agent sent it: the rules read what they need of it
permissively (`subject_of`), since agents differ in what they put in `rawInput`, and the log and
the audit keep it verbatim."""


class PermissionAsk(TypedDict):
    """An agent's `session/request_permission` params, as ACP JSON."""

    sessionId: str
    toolCall: ToolCallJson
    options: list[JsonObject]


USER_FILE = "permissions.toml"
PATTERN_MAX = 1000
REASON_MAX = 500
SHELL_OPERATORS = re.compile(r"[;&|`\n<>]|\$\(")
"""A command with these may chain another command after the one an allow rule was written for."""
PATH_KEYS = ("path", "file_path", "filePath", "abs_path", "absPath", "notebook_path", "source", "destination")
COMMAND_KEYS = ("command", "cmd")
ANNOUNCED_MAX = 256
"""Tool calls remembered per session, to complete permission requests."""
ANNOUNCED_KEEP = ("locations", "rawInput")
"""Fields a later, emptier message does not erase: opencode names the file when it announces a
call, then asks with `locations: []` and `rawInput: {}`."""


class RulesError(ConfigError):
    """A rules file or a rule that cannot be used; the message names where."""


class Rule(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True, defer_build=True)

    permission: Permission | Literal["*"] = Field(description="An ACP tool kind, or * for every kind.")
    pattern: str = Field(default="*", min_length=1, max_length=PATTERN_MAX, description="A glob on path or command.")
    action: RuleAction
    reason: str | None = Field(default=None, max_length=REASON_MAX, description="Told to the agent on deny.")

    @field_validator("pattern")
    @classmethod
    def _compiles(cls, value: str) -> str:
        _regex(value, crosses_slash=True)
        return value


class Decision(NamedTuple):
    action: RuleAction
    rule: Rule | None
    layer: Layer
    reason: str | None


@dataclass(frozen=True)
class Subject:
    """What a tool call touches, as rules see it."""

    kind: str
    paths: tuple[str, ...] = ()
    command: str | None = None
    title: str | None = None
    """What the agent calls the call; for an `execute` call without raw input (Gemini CLI
    sends none) deny rules are matched on it, since that is the command it shows."""


# -- globs ----------------------------------------------------------------------------------


@lru_cache(maxsize=1024)
def _regex(pattern: str, crosses_slash: bool) -> re.Pattern[str]:
    out: list[str] = []
    i = 0
    star = ".*" if crosses_slash else "[^/]*"
    while i < len(pattern):
        c = pattern[i]
        if c == "\\" and i + 1 < len(pattern):
            out.append(re.escape(pattern[i + 1]))
            i += 2
            continue
        if pattern.startswith("**/", i):
            out.append("(?:.*/)?")
            i += 3
        elif pattern.startswith("**", i):
            out.append(".*")
            i += 2
        elif c == "*":
            out.append(star)
            i += 1
        elif c == "?":
            out.append("." if crosses_slash else "[^/]")
            i += 1
        else:
            out.append(re.escape(c))
            i += 1
    try:
        return re.compile("".join(out), re.DOTALL)
    except re.error as exc:
        raise RulesError(f"bad pattern {pattern[:80]!r}: {exc}") from None


def escape(text: str) -> str:
    """A pattern matching exactly `text`."""
    return re.sub(r"([*?\\])", r"\\\1", text)


def _matches_path(pattern: str, path: str, root: str) -> bool:
    normal = posixpath.normpath(path.replace(os.sep, "/"))
    inside = root and (normal == root or normal.startswith(root.rstrip("/") + "/"))
    subject = posixpath.relpath(normal, root) if inside else normal
    if "/" not in pattern.rstrip("/"):
        subject = posixpath.basename(subject)
    return _regex(pattern.rstrip("/") or "/", crosses_slash=False).fullmatch(subject) is not None


def _matches_command(pattern: str, command: str) -> bool:
    return _regex(pattern, crosses_slash=True).fullmatch(command.strip()) is not None


# Constructed, not validated: validating would build the model at import, half of it pydantic's plugin scan.
DEFAULT_RULES: tuple[Rule, ...] = (Rule.model_construct(permission="*", pattern="*", action="ask", reason=None),)


# -- tool calls -----------------------------------------------------------------------------


def merge_announced(announced: Mapping[str, Any], tool_call: Mapping[str, Any]) -> ToolCallJson:
    """The tool call as announced, updated by what a later message carries: a missing value, or an
    empty `locations`/`rawInput`, keeps what was announced."""
    return {
        **announced,
        **{k: v for k, v in tool_call.items() if v is not None and not (k in ANNOUNCED_KEEP and not v)},
    }


def named(subject: Subject) -> bool:
    """Whether the call says what it touches (a path or a command): only then can an "always" or
    "never" be a rule no wider than what the host saw."""
    return bool(subject.paths) or (subject.command or subject.title if subject.kind == "execute" else None) is not None


def subject_of(tool_call: Mapping[str, Any]) -> Subject:
    """Read an ACP `ToolCall`/`ToolCallUpdate` (wire JSON): its kind, paths and command. An
    unknown kind counts as `other`."""
    kind = tool_call.get("kind") or "other"
    if kind not in PERMISSIONS:
        kind = "other"
    paths: list[str] = []
    for location in tool_call.get("locations") or ():
        if isinstance(location, Mapping) and isinstance(location.get("path"), str):
            paths.append(location["path"])
    raw = tool_call.get("rawInput")
    command: str | None = None
    if isinstance(raw, Mapping):
        for key in PATH_KEYS:
            value = raw.get(key)
            if isinstance(value, str) and value:
                paths.append(value)
        for value in raw.get("paths") or ():
            if isinstance(value, str) and value:
                paths.append(value)
        command = next((c for c in (_command_of(raw.get(key)) for key in COMMAND_KEYS) if c is not None), None)
    title = tool_call.get("title")
    return Subject(
        kind=kind,
        paths=tuple(dict.fromkeys(paths)),
        command=command,
        title=title.strip() if isinstance(title, str) and title.strip() else None,
    )


def _command_of(value: object) -> str | None:
    if isinstance(value, str) and value.strip():
        return shell_payload(value)
    if isinstance(value, list) and value and all(isinstance(v, str) for v in value):
        return shell_payload([str(v) for v in value])
    return None


SHELLS = frozenset({"sh", "bash", "zsh", "dash", "ksh", "fish"})
_SHELL_FLAGS = re.compile(r"-[a-z]*c[a-z]*")


def shell_payload(command: str | Sequence[str]) -> str:
    """The command a rule is matched on: `bash -lc X` (as an argv list, Codex's shape, or as a
    string) is matched as `X`; any other argv list as its words joined by spaces."""
    if isinstance(command, str):
        try:
            argv = shlex.split(command)
        except ValueError:
            return command
        payload = _shell_argv_payload(argv)
        return payload if payload is not None else command
    payload = _shell_argv_payload(list(command))
    return payload if payload is not None else shlex.join(command) if _needs_quotes(command) else " ".join(command)


def _shell_argv_payload(argv: list[str]) -> str | None:
    if len(argv) == 3 and posixpath.basename(argv[0]) in SHELLS and _SHELL_FLAGS.fullmatch(argv[1]):
        return argv[2]
    return None


def _needs_quotes(argv: Sequence[str]) -> bool:
    return any(not word or any(c.isspace() for c in word) for word in argv)


def pattern_for(subject: Subject, root: str) -> str:
    """The exact pattern an "always"/"never" answer remembers for this call."""
    if subject.kind == "execute" and (subject.command or subject.title) is not None:
        return escape(str(subject.command or subject.title).strip())
    if len(subject.paths) == 1:
        normal = posixpath.normpath(subject.paths[0])
        inside = root and normal.startswith(root.rstrip("/") + "/")
        return escape(posixpath.relpath(normal, root) if inside else normal)
    return "*"


# -- deciding -------------------------------------------------------------------------------


def _rule_matches(rule: Rule, kind: str, target: str | None, is_command: bool, root: str) -> bool:
    if rule.permission not in ("*", kind):
        return False
    if rule.pattern in ("*", "**"):
        return True
    if target is None:
        return False
    return _matches_command(rule.pattern, target) if is_command else _matches_path(rule.pattern, target, root)


def _decide_one(
    layers: Sequence[tuple[Layer, Sequence[Rule]]], kind: str, target: str | None, is_command: bool, root: str
) -> Decision:
    found = Decision("ask", None, "default", None)
    for layer, rules in layers:
        for rule in rules:
            if _rule_matches(rule, kind, target, is_command, root):
                found = Decision(rule.action, rule, layer, rule.reason)
    if found.action == "allow" and is_command and target is not None and SHELL_OPERATORS.search(target):
        # `git *` was written for git, not for `git log; curl … | sh`: unless the rule names the
        # whole command, a compound one goes to the host.
        assert found.rule is not None
        if found.rule.pattern != escape(target.strip()):
            return Decision("ask", found.rule, found.layer, "a compound command needs the host")
    if found.action == "allow" and kind in WRITE_KINDS and target is not None:
        rel = project_relative(target, root) if root else None if posixpath.isabs(target) else target
        why = runs_later_reason(rel) if rel is not None else None
        if why is not None:
            # A rule wide enough to allow it was written for the project's work, not for code the
            # host runs later: the host sees each such write.
            return Decision("ask", found.rule, found.layer, f"{why}: the host decides each change")
    return found


_STRICTNESS = {"allow": 0, "ask": 1, "deny": 2}
WRITE_KINDS = frozenset({"edit", "delete", "move"})


def decide(
    tool_call: Mapping[str, Any] | Subject,
    layers: Sequence[tuple[Layer, Sequence[Rule]]],
    root: str | Path = "",
) -> Decision:
    """The answer the rules give to one tool call: each path (or the command) is decided on its
    own, last match winning, and the strictest of those answers is the call's."""
    subject = tool_call if isinstance(tool_call, Subject) else subject_of(tool_call)
    root_text = posixpath.normpath(str(root)) if str(root) else ""
    targets: list[tuple[str | None, bool]]
    if subject.kind == "execute" and subject.command is not None:
        targets = [(subject.command, True)]
    elif subject.paths:
        targets = [(p, False) for p in subject.paths]
    elif subject.command is not None:
        targets = [(subject.command, True)]
    elif subject.kind == "execute" and subject.title is not None:
        # The title is the agent's word, not the command it runs: it may refuse, never allow.
        found = _decide_one(layers, subject.kind, subject.title, True, root_text)
        if found.action != "allow":
            return found
        return _decide_one(layers, subject.kind, None, False, root_text)
    else:
        targets = [(None, False)]
    decisions = [_decide_one(layers, subject.kind, target, is_command, root_text) for target, is_command in targets]
    return max(decisions, key=lambda d: _STRICTNESS[d.action])


def rule_for_answer(subject: Subject, answer: HostAnswer, root: str | Path = "") -> Rule | None:
    """The session rule a host's answer adds, if any: none for a call whose exact pattern is longer
    than a rule may be (such an "always" or "never" holds for that one call only), and none for a
    call that names no path or command (the host is refused "always" and "never" for it)."""
    root_text = posixpath.normpath(str(root)) if str(root) else ""
    pattern = pattern_for(subject, root_text) if answer in ("always", "never") else "*"
    if len(pattern) > PATTERN_MAX or (answer in ("always", "never") and not named(subject)):
        return None
    if answer == "always":
        return Rule(permission=subject.kind, pattern=pattern, action="allow")  # type: ignore[arg-type]
    if answer == "never":
        return Rule(
            permission=subject.kind,  # type: ignore[arg-type]
            pattern=pattern,
            action="deny",
            reason="the host said never for this",
        )
    if answer == "session":
        return Rule(permission=subject.kind, pattern="*", action="allow")  # type: ignore[arg-type]
    return None


def option_for(options: Iterable[PermissionOption], answer: HostAnswer) -> str | None:
    """The agent's option that carries out a host's answer (ACP option kinds), or None.

    Canvas's own "always" and "never" are canvas rules, so the agent is answered for this call
    only and keeps asking: its own `allow_always` would let it stop asking for more than the
    rule covers (other files, other commands). That option is the host's to pick by its id."""
    wanted = {
        "once": ("allow_once", "allow_always"),
        "always": ("allow_once", "allow_always"),
        "session": ("allow_once", "allow_always"),
        "reject": ("reject_once", "reject_always"),
        "never": ("reject_once", "reject_always"),
    }[answer]
    by_kind: dict[str, str] = {}
    for option in options:
        by_kind.setdefault(option.kind, option.option_id)
    for kind in wanted:
        if kind in by_kind:
            return by_kind[kind]
    return None


@dataclass(frozen=True)
class Choice:
    """An answer to a permission request with a reason the agent is told (in the outcome's
    ``_meta.reason``), e.g. the permission rule that refused the call."""

    option_id: str
    reason: str | None = None
