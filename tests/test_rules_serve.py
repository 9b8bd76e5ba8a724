"""Permission rules deciding the real demo agent's tool calls through the real server."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from typing import Any

import pytest

from tests.agent_support import config
from tests.support import HostClient, ServerProcess, thread_of
from tests.test_agents_serve import create, events_until, prompt_and_answer

RULES = """
[[permissions]]
permission = "edit"
pattern = "*.lock"
action = "deny"
reason = "lock files are generated; change the manifest instead"
"""


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "project"
    root.mkdir()
    config(root, RULES)
    return root


def audit(project: Path) -> list[dict[str, Any]]:
    with sqlite3.connect(project / ".canvas" / "canvas.db") as db:
        rows = db.execute("SELECT actor, action, detail FROM audit ORDER BY id").fetchall()
    return [{"actor": actor, "event": event, **json.loads(detail)} for actor, event, detail in rows]


def messages(events: list[dict[str, Any]]) -> str:
    return " ".join(i["text"] for i in thread_of(events)["items"] if i["type"] == "message")


async def test_a_deny_rule_reaches_the_agent_with_its_reason(host: HostClient, project: Path) -> None:
    session_id = await create(host)
    await host.send({"t": "agent-prompt", "sessionId": session_id, "text": "/write poetry.lock pinned"})
    events = await events_until(host, session_id, "turn-end")
    assert not (project / "poetry.lock").exists()
    resolved = next(e for e in events if e["kind"] == "permission-resolved")
    assert resolved["by"] == "rules" and resolved["optionId"] == "reject_once"
    assert "lock files are generated" in messages(events)
    denied = [a for a in audit(project) if a["event"] == "permission-deny"]
    assert denied and denied[-1]["layer"] == "project" and denied[-1]["rule"]["pattern"] == "*.lock"


async def test_always_stops_the_next_matching_question(host: HostClient, project: Path) -> None:
    session_id = await create(host)
    await prompt_and_answer(host, session_id, "/write notes.md first", answer="always")
    await events_until(host, session_id, "turn-end")
    assert (project / "notes.md").read_text() == "first"

    await host.send({"t": "agent-prompt", "sessionId": session_id, "text": "/write notes.md second"})
    events = await events_until(host, session_id, "turn-end")
    assert (project / "notes.md").read_text() == "second"
    resolved = next(e for e in events if e["kind"] == "permission-resolved")
    assert resolved["by"] == "rules", "the session rule answered; the host was not asked again"
    log = audit(project)
    answered = next(a for a in log if a["event"] == "permission-answered")
    assert answered["answer"] == "always" and answered["layer"] == "host"
    added = next(a for a in log if a["event"] == "permission-rule-added")
    assert (added["permission"], added["action"]) == ("edit", "allow")
    decisions = [a for a in log if a["event"].startswith("permission-")]
    assert decisions[-1]["event"] == "permission-allow" and decisions[-1]["layer"] == "session"
    assert log[-1]["event"] == "agent-fs-write" and log[-1]["outcome"] == "done"


async def test_rules_do_not_cover_other_paths(host: HostClient, server: ServerProcess) -> None:
    session_id = await create(host)
    await prompt_and_answer(host, session_id, "/write a.md one", answer="always")
    await events_until(host, session_id, "turn-end")
    asked = await prompt_and_answer(host, session_id, "/write b.md two", answer="reject")
    assert asked["title"] == "Write b.md", "a new path is asked again"
    await events_until(host, session_id, "turn-end")
    assert not (server.root / "b.md").exists()
