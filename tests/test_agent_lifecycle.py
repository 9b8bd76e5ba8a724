"""What real agents do that the plain demo agent did not, reproduced with the demo agent's own
commands and flags: a permission after the turn ended, a turn that ignores cancel, an error
answer to a prompt, a restart with settings, older `modes`/`models`, a history replayed after
`session/load`, a load that fails, argv-list commands, and the agent's own "always"."""

from __future__ import annotations

import logging
import sys
from pathlib import Path
from typing import Any

import aiohttp
import pytest

from canvasrelay.protocol.session_events import ChunkEvent
from canvasrelay.server.agents.catalog import KNOWN
from canvasrelay.server.agents.host import RELOAD_FAILED
from tests.agent_support import (
    TURN_TIMEOUT,
    config,
    create,
    events_until,
    prompt,
    said,
    serving,
    status_becomes,
)
from tests.support import HostClient, InProcessServer

pytestmark = pytest.mark.timeout(300)

DEMO = f'command = "{sys.executable}"\nargs = ["-m", "canvasrelay.agents.demo"'


def agents_config(state: Path) -> str:
    return f"""
[agents.legacy]
{DEMO}, "--legacy", "--state", "{state}"]
# A confined agent writes only in the project and its own home: its state is kept there.
env = {{ HOME = "{state}" }}

[agents.strict]
{DEMO}, "--strict-load"]

[[permissions]]
permission = "execute"
pattern = "touch *"
action = "deny"
reason = "no touching here"
"""


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "project"
    root.mkdir()
    config(root, agents_config(tmp_path / "agent-state"))
    (tmp_path / "agent-state").mkdir()
    return root


async def answer(host: HostClient, session_id: str, request_id: str, **how: str) -> None:
    await host.send({"t": "agent-permission", "sessionId": session_id, "requestId": request_id, **how})


async def options_of(host: HostClient, session_id: str) -> list[dict[str, Any]]:
    return list((await host.expect("agent-options", timeout=TURN_TIMEOUT, sessionId=session_id))["options"])


def current(options: list[dict[str, Any]], option_id: str) -> Any:
    return next(o["currentValue"] for o in options if o["id"] == option_id)


async def test_a_permission_after_the_turn_ended_leaves_the_session_idle(project: Path) -> None:
    async with serving(project) as served:
        host = await HostClient.connect(served)
        session_id = await create(host)
        # ordering 1: turn, turn-end, permission, answered → idle, the next prompt runs
        await host.send({"t": "agent-prompt", "sessionId": session_id, "text": "/late-write late.txt hello"})
        events = await events_until(host, session_id, "permission")
        assert [e["kind"] for e in events].index("turn-end") < len(events) - 1
        await status_becomes(host, session_id, "waiting")
        await answer(host, session_id, events[-1]["requestId"], answer="once")
        await status_becomes(host, session_id, "idle")
        # The write's tool update comes first; the prompt goes once the agent said what it wrote.
        while "Wrote 5 characters" not in said(await events_until(host, session_id, "chunk")):
            pass
        assert "You said: next" in said(await prompt(host, session_id, "next"))

        # ordering 2: a late permission still open does not hold the next prompt; its turn-end closes it
        await host.send({"t": "agent-prompt", "sessionId": session_id, "text": "/late-write second.txt x"})
        await events_until(host, session_id, "permission")
        events = await prompt(host, session_id, "goes ahead")
        assert events[0]["kind"] == "turn" and events[0]["text"] == "goes ahead"
        resolved = [e for e in events if e["kind"] == "permission-resolved"]
        assert [r["by"] for r in resolved] == ["cancelled"]
        await status_becomes(host, session_id, "idle")

        # ordering 3: a late permission, then cancel: idle, and nothing else happens
        await host.send({"t": "agent-prompt", "sessionId": session_id, "text": "/late-write third.txt x"})
        await events_until(host, session_id, "permission")
        await host.send({"t": "agent-cancel", "sessionId": session_id})
        resolved_event = (await events_until(host, session_id, "permission-resolved"))[-1]
        assert resolved_event["by"] == "cancelled"
        await status_becomes(host, session_id, "idle")
        while "Permission denied: not writing third.txt" not in said(await events_until(host, session_id, "chunk")):
            pass
        assert "You said: after" in said(await prompt(host, session_id, "after"))
        await host.close()
    assert (project / "late.txt").read_text() == "hello"
    assert not (project / "second.txt").exists() and not (project / "third.txt").exists()


async def test_cancel_ends_a_turn_the_agent_ignores(project: Path) -> None:
    async with serving(project) as served:
        host = await HostClient.connect(served)
        session_id = await create(host)
        await host.send({"t": "agent-prompt", "sessionId": session_id, "text": "/hang"})
        await status_becomes(host, session_id, "running")
        await host.send({"t": "agent-cancel", "sessionId": session_id})
        end = (await events_until(host, session_id, "turn-end"))[-1]
        assert end.get("cancelled") is True
        assert "You said: still here" in said(await prompt(host, session_id, "still here"))
        await host.close()


async def test_an_error_answer_ends_the_turn_not_the_agent(project: Path) -> None:
    async with serving(project) as served:
        host = await HostClient.connect(served)
        session_id = await create(host)
        pid = served.server.agents.procs[session_id].pid
        end = (await prompt(host, session_id, "/fail"))[-1]
        # In words for everyone; the agent's own message behind "Details".
        assert end["error"] == "The agent could not finish its answer: it answered with an error."
        assert "HTTP 400" in end["errorDetail"]
        assert "You said: and on" in said(await prompt(host, session_id, "and on"))
        assert served.server.agents.procs[session_id].pid == pid
        await host.close()


async def test_settings_are_told_once_and_reapplied_after_a_restart(project: Path) -> None:
    async with serving(project) as served:
        host = await HostClient.connect(served)
        session_id = await create(host)
        await host.send({"t": "agent-config", "sessionId": session_id, "configId": "mode", "value": "verbose"})
        assert current(await options_of(host, session_id), "mode") == "verbose"
        events = await prompt(host, session_id, "hello")
        assert "deterministically" in said(events)
        told = [f for f in host.seen if f["t"] == "agent-options" and f["sessionId"] == session_id]
        assert len(told) == 2  # the agent's start, then one for the change (which it announced and answered)
        await host.close()
    async with serving(project) as served:
        host = await HostClient.connect(served)
        head = next(s for s in host.welcome["sessions"] if s["id"] == session_id)
        assert current(head["options"], "mode") == "verbose"
        events = await prompt(host, session_id, "again")
        assert "deterministically" in said(events)
        await host.close()


async def test_older_modes_and_models_are_options_and_replays_stay_out_of_turns(project: Path) -> None:
    async with serving(project) as served:
        host = await HostClient.connect(served)
        session_id = await create(host, "legacy", options=False)
        options = await options_of(host, session_id)
        assert {o["id"]: o["currentValue"] for o in options} == {"mode": "concise", "model": "demo-small"}
        assert {c["value"] for c in options[1]["options"]} == {"demo-small", "demo-large"}
        await host.send({"t": "agent-config", "sessionId": session_id, "configId": "mode", "value": "verbose"})
        assert current(await options_of(host, session_id), "mode") == "verbose"
        assert "deterministically" in said(await prompt(host, session_id, "first words"))
        await host.close()
    async with serving(project) as served:
        host = await HostClient.connect(served)
        events = await prompt(host, session_id, "second words")
        kinds = [e["update"]["sessionUpdate"] for e in events if e["kind"] == "chunk"]
        assert "user_message_chunk" not in kinds
        assert "first words" not in said(events) and "second words" in said(events)
        stored = served.server.store.events(session_id)
        assert sum(1 for e in stored if e.kind == "turn") == 2
        assert not any(isinstance(e, ChunkEvent) and e.update.session_update == "user_message_chunk" for e in stored)
        await host.close()


async def test_a_failed_reload_is_said_in_the_thread(project: Path, caplog: pytest.LogCaptureFixture) -> None:
    async with serving(project) as served:
        host = await HostClient.connect(served)
        session_id = await create(host, "strict")
        await prompt(host, session_id, "remember this")
        await host.close()
    caplog.set_level(logging.WARNING, "canvasrelay.server.agents.host")
    async with serving(project) as served:
        host = await HostClient.connect(served)
        await host.send({"t": "agent-prompt", "sessionId": session_id, "text": "and now"})
        events = await events_until(host, session_id, "turn-end")
        notice = next(e for e in events if e["kind"] == "notice")
        assert notice["text"] == RELOAD_FAILED
        assert "You said: and now" in said(events)
        await host.close()
    assert any("could not reload" in r.getMessage() and r.levelno == logging.WARNING for r in caplog.records)


async def test_a_deny_rule_matches_an_argv_list_command_and_its_reason_reaches_the_agent(project: Path) -> None:
    async with serving(project) as served:
        host = await HostClient.connect(served)
        session_id = await create(host)
        events = await prompt(host, session_id, "/run touch made.txt")
        resolved = next(e for e in events if e["kind"] == "permission-resolved")
        assert (resolved["by"], resolved["optionId"]) == ("rules", "reject_once")
        assert "Permission denied: not running touch made.txt (no touching here)" in said(events)
        # a command no rule names is the host's to answer, shown as the shell would run it
        await host.send({"t": "agent-prompt", "sessionId": session_id, "text": "/run echo ran > ran.txt"})
        asked = (await events_until(host, session_id, "permission"))[-1]
        assert asked["title"] == "echo ran > ran.txt"
        await answer(host, session_id, asked["requestId"], answer="once")
        assert "exit code 0" in said(await events_until(host, session_id, "turn-end"))
        await host.close()
    assert not (project / "made.txt").exists()
    assert (project / "ran.txt").read_text() == "ran\n"


async def rules_of(served: InProcessServer, session_id: str) -> dict[str, Any]:
    async with (
        aiohttp.ClientSession(headers={"Authorization": f"Bearer {served.token}"}) as http,
        http.get(f"{served.base_url}/api/session/{session_id}/rules") as response,
    ):
        assert response.status == 200
        return dict(await response.json())


async def test_the_agents_own_always_is_shown_as_the_agents_rule(project: Path) -> None:
    async with serving(project) as served:
        host = await HostClient.connect(served)
        session_id = await create(host)
        await host.send({"t": "agent-prompt", "sessionId": session_id, "text": "/write a.txt one"})
        asked = (await events_until(host, session_id, "permission"))[-1]
        await answer(host, session_id, asked["requestId"], optionId="allow_always")
        await events_until(host, session_id, "turn-end")
        # the agent asks no more for any write: canvas says so, and has no rule of its own for it
        events = await prompt(host, session_id, "/write b.txt two")
        assert not any(e["kind"] == "permission" for e in events)
        rules = await rules_of(served, session_id)
        assert rules["session"] == []
        [remembered] = [r["text"] for r in rules["agent"]]
        assert "the agent's own rule, from “Write a.txt”" in remembered
        assert "as widely as it decides" in remembered

        # canvas's own "always" is a canvas rule for a.txt; the agent keeps asking for other files
        other = await create(host)
        await host.send({"t": "agent-prompt", "sessionId": other, "text": "/write a.txt three"})
        asked = (await events_until(host, other, "permission"))[-1]
        await answer(host, other, asked["requestId"], answer="always")
        events = await events_until(host, other, "turn-end")
        assert next(e for e in events if e["kind"] == "permission-resolved")["optionId"] == "allow_once"
        events = await prompt(host, other, "/write a.txt four")
        assert next(e for e in events if e["kind"] == "permission-resolved")["by"] == "rules"
        await host.send({"t": "agent-prompt", "sessionId": other, "text": "/write c.txt five"})
        asked = (await events_until(host, other, "permission"))[-1]
        await answer(host, other, asked["requestId"], answer="reject")
        await events_until(host, other, "turn-end")
        rules = await rules_of(served, other)
        assert [r["rule"]["pattern"] for r in rules["session"]] == ["a.txt"] and rules["agent"] == []
        await host.close()
    assert (project / "a.txt").read_text() == "four"
    assert not (project / "c.txt").exists()


def test_the_catalog_says_how_to_install_each_known_agent(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PATH", "/nonexistent")
    for choices in KNOWN:
        info = choices[0].info()
        assert not info.available
        assert info.reason is not None and "npm i -g " in info.reason and "reads" in info.reason
    assert "npm i -g @agentclientprotocol/claude-agent-acp" in KNOWN[0][0].missing()
    assert "GEMINI_API_KEY" in next(c[0] for c in KNOWN if c[0].id == "gemini").missing()
