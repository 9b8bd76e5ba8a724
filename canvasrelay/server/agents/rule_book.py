"""The permission rules of one server: the rule files read at start, session rules kept in the
store (so a restart keeps them), and an audit entry for every decision."""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from canvasrelay.core.permission_rules import (
    ANNOUNCED_MAX,
    DEFAULT_RULES,
    USER_FILE,
    Choice,
    Decision,
    HostAnswer,
    Layer,
    Rule,
    Subject,
    ToolCallJson,
    decide,
    merge_announced,
    option_for,
    rule_for_answer,
    subject_of,
)
from canvasrelay.protocol.json_value import JsonObject
from canvasrelay.protocol.session_events import permission_options
from canvasrelay.server.config import CanvasConfig, UserRules, parse_config, read_toml


def user_rules_path(env: Mapping[str, str] | None = None) -> Path:
    env = os.environ if env is None else env
    base = env.get("XDG_CONFIG_HOME") or str(Path(env.get("HOME") or Path.home()) / ".config")
    return Path(base) / "canvas" / USER_FILE


def load_user_rules(env: Mapping[str, str] | None = None) -> list[Rule]:
    path = user_rules_path(env)
    return parse_config(UserRules, read_toml(path), str(path)).permissions


def project_rules(config: CanvasConfig) -> list[Rule]:
    """The `[[permissions]]` of `<dir>/.canvas/config.toml`."""
    return config.permissions


class RuleBook:
    """The layers for every session of one server: files read at start, session rules kept in
    the store (so a restart keeps them), and an audit entry for every decision."""

    def __init__(self, store: Any, root: str | Path, user: Sequence[Rule] = (), project: Sequence[Rule] = ()) -> None:
        self.store = store
        self.root = str(Path(root))
        self.user = list(user)
        self.project = list(project)
        self._session: dict[str, list[tuple[int, Rule]]] = {}
        self._announced: dict[str, dict[str, ToolCallJson]] = {}
        self._agent_remembers: dict[str, dict[tuple[str, str], str]] = {}
        self._unnamed: dict[str, set[str]] = {}

    def seen(self, session_id: str, update: Mapping[str, Any]) -> None:
        """Remember what a `tool_call`/`tool_call_update` announced: a permission request's
        tool call often carries only its id and title, the path, command and diff came before."""
        if update.get("sessionUpdate") not in ("tool_call", "tool_call_update"):
            return
        tool_call_id = update.get("toolCallId")
        if not isinstance(tool_call_id, str):
            return
        calls = self._announced.setdefault(session_id, {})
        fields = {k: v for k, v in update.items() if k in ("kind", "locations", "rawInput")}
        if update.get("content"):
            # The diff a write shows, for the host's preview; an update without content keeps it.
            fields["content"] = update["content"]
        calls[tool_call_id] = merge_announced(calls.pop(tool_call_id, {}), fields)
        while len(calls) > ANNOUNCED_MAX:
            del calls[next(iter(calls))]

    def full_tool_call(self, session_id: str, tool_call: Mapping[str, Any]) -> ToolCallJson:
        announced = self._announced.get(session_id, {}).get(str(tool_call.get("toolCallId")), {})
        return merge_announced(announced, tool_call)

    def session_rules(self, session_id: str) -> list[tuple[int, Rule]]:
        if session_id not in self._session:
            self._session[session_id] = self.store.session_rules(session_id)
        return self._session[session_id]

    def layers(self, session_id: str) -> list[tuple[Layer, Sequence[Rule]]]:
        return [
            ("default", DEFAULT_RULES),
            ("user", self.user),
            ("project", self.project),
            ("session", [rule for _, rule in self.session_rules(session_id)]),
        ]

    def add(self, session_id: str, rule: Rule, by: str) -> int:
        rule_id = self.store.add_session_rule(session_id, rule)
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
        self._agent_remembers.pop(session_id, None)
        self._unnamed.pop(session_id, None)

    def agent_remembers(self, session_id: str) -> list[dict[str, str]]:
        """What the agent itself remembers after the host picked one of its own "always" options:
        the agent's rule, not canvas's, and as wide as the agent makes it."""
        remembered = self._agent_remembers.get(session_id, {})
        return [{"title": title, "kind": kind, "text": text} for (kind, title), text in remembered.items()]

    def agent_forgot(self, session_id: str) -> None:
        """The agent process stopped: whatever it remembered went with it."""
        self._agent_remembers.pop(session_id, None)

    def unnamed_kinds(self, session_id: str) -> list[str]:
        """Tool kinds this session's agent asked about without naming a path or command, so a
        rule with a pattern cannot match them (only `*` does)."""
        return sorted(self._unnamed.get(session_id, ()))

    def decide(self, session_id: str, tool_call: Mapping[str, Any]) -> Decision:
        subject = subject_of(tool_call)
        if not subject.paths and subject.command is None:
            self._unnamed.setdefault(session_id, set()).add(subject.kind)
        decision = decide(subject, self.layers(session_id), self.root)
        self.store.audit(
            "rules" if decision.action != "ask" else "rules:ask-host",
            f"permission-{decision.action}",
            _audit_detail(session_id, tool_call, subject, decision),
        )
        return decision

    def fs_decision(self, session_id: str, tool_call: Mapping[str, Any]) -> Decision:
        """The rules' answer to an agent's own file read or write; the caller audits it."""
        return decide(subject_of(tool_call), self.layers(session_id), self.root)

    def verdict(self, session_id: str, request: Mapping[str, Any]) -> tuple[Decision, Choice | None]:
        """The rules' answer to an ACP `session/request_permission` (its params, wire JSON).

        For "ask" the choice is None and the caller asks the host. For allow and deny it is the
        agent's option that carries the decision out, with the deny rule's reason; None when the
        agent offers no such option (it is then told "cancelled", which refuses the call too).
        """
        decision = self.decide(session_id, self.full_tool_call(session_id, request.get("toolCall") or {}))
        if decision.action == "ask":
            return decision, None
        answer: HostAnswer = "once" if decision.action == "allow" else "reject"
        option_id = option_for(permission_options(request), answer)
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
        option_kind: str | None = None,
    ) -> Rule | None:
        """Record the host's answer to a question the rules asked; "always", "never" and
        "session" add the session rule they stand for, which is returned. The agent's own
        "always" options are remembered apart, as the agent's rule."""
        subject = subject_of(self.full_tool_call(session_id, tool_call))
        if option_kind in ("allow_always", "reject_always"):
            title = str(tool_call.get("title") or subject.command or ", ".join(subject.paths) or subject.kind)
            remembered = self._agent_remembers.setdefault(session_id, {})
            remembered[(option_kind, title)] = agent_always_words(option_kind, subject.kind, title)
        rule = rule_for_answer(subject, answer, self.root) if answer is not None else None
        detail = {
            "session": session_id,
            "toolCallId": tool_call.get("toolCallId"),
            "kind": subject.kind,
            "paths": list(subject.paths),
            "command": subject.command,
            "answer": answer,
            "optionId": option_id,
            "optionKind": option_kind,
            "layer": "host",
            "by": by,
        }
        self.store.audit(by, "permission-answered", detail)
        if rule is not None:
            self.add(session_id, rule, by)
        return rule


def _audit_detail(session_id: str, tool_call: Mapping[str, Any], subject: Subject, decision: Decision) -> JsonObject:
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


def agent_always_words(option_kind: str, kind: str, title: str) -> str:
    """The agent's own "always", for what it is: the agent decides how wide it reaches (Claude's
    covers every later edit after one "always allow Write x"), and canvas cannot narrow it."""
    if option_kind == "allow_always":
        return (
            f"the agent's own rule, from “{title}”: it may now {kind} without asking, "
            "as widely as it decides, until it stops (canvas's rules cannot narrow it)"
        )
    return f"the agent's own rule, from “{title}”: it refuses such calls itself until it stops"
