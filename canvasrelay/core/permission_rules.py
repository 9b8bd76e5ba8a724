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
import tomllib
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal, NamedTuple, get_args

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from canvasrelay.server.agent_catalog import ConfigError
from canvasrelay.server.agent_process import Choice

if TYPE_CHECKING:
    from canvasrelay.server.app import CanvasServer

Permission = Literal["read", "edit", "delete", "move", "search", "execute", "think", "fetch", "other"]
PERMISSIONS: tuple[str, ...] = get_args(Permission)
RuleAction = Literal["allow", "deny", "ask"]
Layer = Literal["default", "user", "project", "session"]
LAYERS: tuple[Layer, ...] = ("default", "user", "project", "session")
HostAnswer = Literal["once", "reject", "always", "never", "session"]
"""once/reject: this call only; always: allow this kind and pattern for the session; never: deny
them for the session; session: allow this kind, any pattern, for the session."""

USER_FILE = "permissions.toml"
PATTERN_MAX = 1000
REASON_MAX = 500
SHELL_OPERATORS = re.compile(r"[;&|`\n<>]|\$\(")
"""A command with these may chain another command after the one an allow rule was written for."""
PATH_KEYS = ("path", "file_path", "filePath", "abs_path", "absPath", "notebook_path", "source", "destination")
COMMAND_KEYS = ("command", "cmd")
ANNOUNCED_MAX = 256
"""Tool calls remembered per session, to complete permission requests."""


class RulesError(ConfigError):
    """A rules file or a rule that cannot be used; the message names where."""


class Rule(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

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


DEFAULT_RULES: tuple[Rule, ...] = (Rule(permission="*", pattern="*", action="ask"),)


# -- tool calls -----------------------------------------------------------------------------


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
        for key in COMMAND_KEYS:
            value = raw.get(key)
            if isinstance(value, str) and value.strip():
                command = value
            elif isinstance(value, list) and value and all(isinstance(v, str) for v in value):
                command = " ".join(value)
            if command is not None:
                break
    return Subject(kind=kind, paths=tuple(dict.fromkeys(paths)), command=command)


def pattern_for(subject: Subject, root: str) -> str:
    """The exact pattern an "always"/"never" answer remembers for this call."""
    if subject.kind == "execute" and subject.command is not None:
        return escape(subject.command.strip())
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
    return found


_STRICTNESS = {"allow": 0, "ask": 1, "deny": 2}


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
    else:
        targets = [(None, False)]
    decisions = [_decide_one(layers, subject.kind, target, is_command, root_text) for target, is_command in targets]
    return max(decisions, key=lambda d: _STRICTNESS[d.action])


def rule_for_answer(subject: Subject, answer: HostAnswer, root: str | Path = "") -> Rule | None:
    """The session rule a host's answer adds, if any."""
    root_text = posixpath.normpath(str(root)) if str(root) else ""
    if answer == "always":
        return Rule(permission=subject.kind, pattern=pattern_for(subject, root_text), action="allow")  # type: ignore[arg-type]
    if answer == "never":
        return Rule(
            permission=subject.kind,  # type: ignore[arg-type]
            pattern=pattern_for(subject, root_text),
            action="deny",
            reason="the host said never for this",
        )
    if answer == "session":
        return Rule(permission=subject.kind, pattern="*", action="allow")  # type: ignore[arg-type]
    return None


def option_for(options: Iterable[Mapping[str, Any]], answer: HostAnswer) -> str | None:
    """The agent's option that carries out a host's answer (ACP option kinds), or None."""
    wanted = {
        "once": ("allow_once", "allow_always"),
        "always": ("allow_always", "allow_once"),
        "session": ("allow_always", "allow_once"),
        "reject": ("reject_once", "reject_always"),
        "never": ("reject_always", "reject_once"),
    }[answer]
    by_kind: dict[str, str] = {}
    for option in options:
        kind, option_id = option.get("kind"), option.get("optionId")
        if isinstance(kind, str) and isinstance(option_id, str):
            by_kind.setdefault(kind, option_id)
    for kind in wanted:
        if kind in by_kind:
            return by_kind[kind]
    return None


# -- loading --------------------------------------------------------------------------------


def parse_rules(entries: object, where: str) -> list[Rule]:
    if entries is None:
        return []
    if not isinstance(entries, list):
        raise RulesError(f"{where}: permissions must be an array of tables ([[permissions]])")
    rules = []
    for i, entry in enumerate(entries):
        try:
            rules.append(Rule.model_validate(entry))
        except ValidationError as exc:
            problems = "; ".join(f"{'.'.join(map(str, e['loc'])) or 'rule'}: {e['msg']}" for e in exc.errors()[:3])
            raise RulesError(f"{where}: permissions[{i}]: {problems}") from None
    return rules


def user_rules_path(env: Mapping[str, str] | None = None) -> Path:
    env = os.environ if env is None else env
    base = env.get("XDG_CONFIG_HOME") or str(Path(env.get("HOME") or Path.home()) / ".config")
    return Path(base) / "canvas" / USER_FILE


def load_user_rules(env: Mapping[str, str] | None = None) -> list[Rule]:
    path = user_rules_path(env)
    if not path.is_file():
        return []
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise RulesError(f"{path}: {exc}") from None
    return parse_rules(data.get("permissions"), str(path))


def project_rules(config: Mapping[str, object]) -> list[Rule]:
    """The `[[permissions]]` of `<dir>/.canvas/config.toml`, already parsed by the agent catalog."""
    return parse_rules(config.get("permissions"), ".canvas/config.toml")


# -- a server's rules -----------------------------------------------------------------------


class RuleBook:
    """The layers for every session of one server: files read at start, session rules kept in
    the store (so a restart keeps them), and an audit entry for every decision."""

    def __init__(self, store: Any, root: str | Path, user: Sequence[Rule] = (), project: Sequence[Rule] = ()) -> None:
        self.store = store
        self.root = str(Path(root))
        self.user = list(user)
        self.project = list(project)
        self._session: dict[str, list[tuple[int, Rule]]] = {}
        self._announced: dict[str, dict[str, dict[str, Any]]] = {}

    def seen(self, session_id: str, update: Mapping[str, Any]) -> None:
        """Remember what a `tool_call`/`tool_call_update` announced: a permission request's
        tool call often carries only its id and title, the path and command came before."""
        if update.get("sessionUpdate") not in ("tool_call", "tool_call_update"):
            return
        tool_call_id = update.get("toolCallId")
        if not isinstance(tool_call_id, str):
            return
        calls = self._announced.setdefault(session_id, {})
        fields = {k: v for k, v in update.items() if k in ("kind", "locations", "rawInput") and v is not None}
        calls[tool_call_id] = {**calls.pop(tool_call_id, {}), **fields}
        while len(calls) > ANNOUNCED_MAX:
            del calls[next(iter(calls))]

    def full_tool_call(self, session_id: str, tool_call: Mapping[str, Any]) -> dict[str, Any]:
        announced = self._announced.get(session_id, {}).get(str(tool_call.get("toolCallId")), {})
        return {**announced, **{k: v for k, v in tool_call.items() if v is not None}}

    def session_rules(self, session_id: str) -> list[tuple[int, Rule]]:
        if session_id not in self._session:
            self._session[session_id] = [(i, Rule.model_validate(r)) for i, r in self.store.session_rules(session_id)]
        return self._session[session_id]

    def layers(self, session_id: str) -> list[tuple[Layer, Sequence[Rule]]]:
        return [
            ("default", DEFAULT_RULES),
            ("user", self.user),
            ("project", self.project),
            ("session", [rule for _, rule in self.session_rules(session_id)]),
        ]

    def add(self, session_id: str, rule: Rule, by: str) -> int:
        rule_id = self.store.add_session_rule(session_id, rule.model_dump(exclude_none=True))
        self.session_rules(session_id).append((rule_id, rule))
        self.store.audit(by, "permission-rule-added", {"session": session_id, "id": rule_id, **rule.model_dump()})
        return rule_id

    def remove(self, session_id: str, rule_id: int | None, by: str) -> int:
        """Remove one session rule (or all of them, for None); returns how many went."""
        gone = self.store.delete_session_rules(session_id, rule_id)
        rules = self.session_rules(session_id)
        rules[:] = [] if rule_id is None else [(i, r) for i, r in rules if i != rule_id]
        if gone:
            self.store.audit(by, "permission-rules-removed", {"session": session_id, "id": rule_id, "count": gone})
        return gone

    def forget(self, session_id: str) -> None:
        """Drop the caches of a deleted session (the store cascades its rows)."""
        self._session.pop(session_id, None)
        self._announced.pop(session_id, None)

    def decide(self, session_id: str, tool_call: Mapping[str, Any]) -> Decision:
        subject = subject_of(tool_call)
        decision = decide(subject, self.layers(session_id), self.root)
        self.store.audit(
            "rules" if decision.action != "ask" else "rules:ask-host",
            f"permission-{decision.action}",
            _audit_detail(session_id, tool_call, subject, decision),
        )
        return decision

    def verdict(self, session_id: str, request: Mapping[str, Any]) -> tuple[Decision, Choice | None]:
        """The rules' answer to an ACP `session/request_permission` (its params, wire JSON).

        For "ask" the choice is None and the caller asks the host. For allow and deny it is the
        agent's option that carries the decision out, with the deny rule's reason; None when the
        agent offers no such option (it is then told "cancelled", which refuses the call too).
        """
        decision = self.decide(session_id, self.full_tool_call(session_id, request.get("toolCall") or {}))
        if decision.action == "ask":
            return decision, None
        option_id = option_for(request.get("options") or (), "once" if decision.action == "allow" else "reject")
        if option_id is None:
            return decision, None
        reason = decision.reason or (f"a {decision.layer} permission rule" if decision.action == "deny" else None)
        return decision, Choice(option_id, reason)

    def answered(
        self,
        session_id: str,
        tool_call: Mapping[str, Any],
        answer: HostAnswer | None,
        option_id: str | None,
        by: str,
    ) -> Rule | None:
        """Record the host's answer to a question the rules asked; "always", "never" and
        "session" add the session rule they stand for, which is returned."""
        subject = subject_of(self.full_tool_call(session_id, tool_call))
        rule = rule_for_answer(subject, answer, self.root) if answer is not None else None
        detail = {
            "session": session_id,
            "toolCallId": tool_call.get("toolCallId"),
            "kind": subject.kind,
            "paths": list(subject.paths),
            "command": subject.command,
            "answer": answer,
            "optionId": option_id,
            "layer": "host",
            "by": by,
        }
        self.store.audit(by, "permission-answered", detail)
        if rule is not None:
            self.add(session_id, rule, by)
        return rule


def _audit_detail(
    session_id: str, tool_call: Mapping[str, Any], subject: Subject, decision: Decision
) -> dict[str, Any]:
    return {
        "session": session_id,
        "toolCallId": tool_call.get("toolCallId"),
        "kind": subject.kind,
        "paths": list(subject.paths),
        "command": subject.command,
        "action": decision.action,
        "rule": decision.rule.model_dump() if decision.rule else None,
        "layer": decision.layer,
        "reason": decision.reason,
        "by": "rules",
    }


def install(server: CanvasServer) -> None:
    """Attach the server's `RuleBook` as `server.permission_rules`, for the sessions and the API."""
    server.permission_rules = RuleBook(  # type: ignore[attr-defined]
        server.store, server.root, load_user_rules(), project_rules(server.config)
    )
