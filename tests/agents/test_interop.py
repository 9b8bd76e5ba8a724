"""The four real ACP agents (Claude Code, Codex, Gemini CLI, opencode), unchanged, through canvas,
against the fake model APIs: a host socket and a guest watching, permissions, rules, cancel,
config options across a restart, the board's tools, and no process left behind.

One test per agent runs the core of what a user does, in one session (an agent takes seconds to
start, so it is started twice, not once per check). An agent that cannot install on a machine is
skipped, named at the end of the run with how to install it; in CI, it fails.
"""

from __future__ import annotations

import asyncio
import json
import os
from pathlib import Path
from typing import Any

import aiohttp
import pytest

from canvasrelay.client.guest import Guest
from canvasrelay.server.agents.host import RELOAD_FAILED
from tests.agent_support import TURN_TIMEOUT, config, create, events_until, group_members, said, serving
from tests.agents.fake_models import FakeModels
from tests.agents.real_agents import AGENTS, lacking, setup
from tests.support import HostClient, InProcessServer, missing, thread_of

pytestmark = [pytest.mark.interop, pytest.mark.timeout(1200)]

RULES = """
[[permissions]]
permission = "execute"
pattern = "touch denied*"
action = "deny"
reason = "no denied files here"

[[permissions]]
permission = "edit"
pattern = "ruled-in*"
action = "allow"

[[permissions]]
permission = "edit"
pattern = "ruled-out*"
action = "deny"
reason = "not this file"
"""
CANCEL_WITHIN = 5.0
"""Seconds from the host's cancel to the turn's end, as a person waits for it."""
AGENT_TIMEOUT = 180.0
"""A real agent's first turn includes its start-up (tens of seconds on a loaded machine)."""
CORE_ONLY = {"gemini"}
"""Gemini CLI runs the core (no reject, canvas always or board note, which the others cover): its
canvas "always" asks the host again, as it names a command only in its title, which may refuse
but never allow. (Its turns once took a minute and a half: the fake answered its JSON side
questions in words and it retried them with backoff; the fake now answers JSON.)"""
REASON_REACHES_THE_MODEL = {"claude"}
"""Claude's agent tells its model an error answer's message; Codex ends the turn on a refusal,
and Gemini CLI and opencode tell their model a refusal of their own words."""
EDITS_WITH_A_TOOL = {"claude", "gemini", "opencode"}
"""Agents that write with an edit tool, which path rules on `edit` decide (Codex writes with its shell)."""
SHOWS_NO_OUTPUT = {"gemini"}
"""Gemini CLI tells an ACP client neither the output of a command that ran nor its raw result."""
SHOWS_DIFFS = {"claude", "gemini"}
"""Agents whose file-writing tool reports the edit as a diff: Codex writes with its shell, and
opencode's write tool reports only that it wrote."""
PREFERRED_VALUES = ("acceptEdits", "autoEdit", "gpt-5.5", "plan")
"""A setting each agent offers whose change leaves later turns alone."""


class Run:
    """One agent session seen from the host socket, answering what the test says."""

    def __init__(self, host: HostClient, session_id: str) -> None:
        self.host = host
        self.session_id = session_id

    async def ask(self, text: str) -> dict[str, Any]:
        """Prompt and wait for the agent's permission request."""
        await self.host.send({"t": "agent-prompt", "sessionId": self.session_id, "text": text})
        return (await self.until_any("permission"))[-1]

    async def answer(self, request_id: str, answer: str) -> None:
        frame = {"t": "agent-permission", "sessionId": self.session_id, "requestId": request_id, "answer": answer}
        await self.host.send(frame)

    async def turn(self, text: str, answer: str = "once") -> list[dict[str, Any]]:
        """Prompt and answer every permission `answer` until the turn ends."""
        await self.host.send({"t": "agent-prompt", "sessionId": self.session_id, "text": text})
        return await self.finish(answer)

    async def finish(self, answer: str = "once") -> list[dict[str, Any]]:
        events: list[dict[str, Any]] = []
        while True:
            events += await self.until_any("permission", "turn-end")
            if events[-1]["kind"] == "turn-end":
                return events
            await self.answer(events[-1]["requestId"], answer)

    async def slow_turn(self, agent: str) -> None:
        """Prompt a slow answer and wait for its first chunk. Claude's agent may run a turn behind
        after an error or a cancel: the slow prompt then ends with the previous prompt's answer
        and the next one brings the slow chunks, so it is asked once more."""
        for _ in range(2):
            await self.host.send({"t": "agent-prompt", "sessionId": self.session_id, "text": "ACTION: slow"})
            events: list[dict[str, Any]] = []
            while "slow chunk" not in said(events):
                events += await self.until_any("chunk", "turn-end")
                if events[-1]["kind"] == "turn-end":
                    assert agent == "claude", events
                    break
            else:
                return
        raise AssertionError("the agent never answered a slow prompt")

    async def until_any(self, *kinds: str) -> list[dict[str, Any]]:
        seen: list[dict[str, Any]] = []
        async with asyncio.timeout(AGENT_TIMEOUT):
            while True:
                frame = await self.host.next_frame(AGENT_TIMEOUT)
                if frame.get("t") == "agent-event" and frame["sessionId"] == self.session_id:
                    if os.environ.get("INTEROP_TRACE"):
                        print("event", str(frame["event"])[:300], flush=True)
                    seen.append(frame["event"])
                    if frame["event"]["kind"] in kinds:
                        return seen


async def turns_at_once(host: HostClient, prompts: dict[str, str]) -> dict[str, list[dict[str, Any]]]:
    """Prompt several sessions at once and wait until every turn ended; each session's events."""
    for session_id, text in prompts.items():
        await host.send({"t": "agent-prompt", "sessionId": session_id, "text": text})
    events: dict[str, list[dict[str, Any]]] = {session_id: [] for session_id in prompts}
    async with asyncio.timeout(AGENT_TIMEOUT):
        while not all(seen and seen[-1]["kind"] == "turn-end" for seen in events.values()):
            frame = await host.next_frame(AGENT_TIMEOUT)
            if frame.get("t") == "agent-event" and frame["sessionId"] in events:
                events[frame["sessionId"]].append(frame["event"])
    return events


def tools_of(events: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The tool rows of these events' thread, as every page folds them."""
    return [item for item in thread_of(events)["items"] if item["type"] == "tool"]


def resolved(events: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [e for e in events if e["kind"] == "permission-resolved"]


async def board_notes(served: InProcessServer) -> list[str]:
    async with (
        aiohttp.ClientSession(headers={"Authorization": f"Bearer {served.token}"}) as http,
        http.get(f"{served.base_url}/api/board/items") as response,
    ):
        items = (await response.json())["items"]
    return [i.get("text", "") for i in items if i.get("kind") == "note"]


def latest_options(host: HostClient, session_id: str) -> list[dict[str, Any]]:
    for frame in reversed(host.seen):
        if frame.get("t") == "agent-options" and frame.get("sessionId") == session_id:
            return list(frame["options"])
        if frame.get("t") == "welcome":
            head = next((s for s in frame["sessions"] if s["id"] == session_id), None)
            return list(head["options"]) if head else []
    return []


def a_setting(options: list[dict[str, Any]]) -> tuple[str, str]:
    """An option to change and the value to change it to."""
    for option in sorted(options, key=lambda o: o.get("category") != "mode"):
        values = [c["value"] for c in option.get("options") or [] if c.get("value") != option.get("currentValue")]
        preferred = [v for v in values if v in PREFERRED_VALUES]
        if preferred:
            return option["id"], preferred[0]
    raise AssertionError(f"no setting to change among {options}")


def current(options: list[dict[str, Any]], option_id: str) -> Any:
    return next(o.get("currentValue") for o in options if o["id"] == option_id)


def project_for(tmp_path: Path, agent: str, fake: FakeModels) -> Path:
    root = tmp_path / "project"
    root.mkdir()
    (root / "notes.txt").write_text("plain notes\n")
    config(root, setup(agent, fake.url, tmp_path / "home", root) + RULES)
    return root


@pytest.mark.parametrize("agent", AGENTS)
async def test_a_real_agent_through_canvas(agent: str, tmp_path: Path) -> None:
    lacks = lacking(agent)
    if lacks is not None:
        missing(*lacks)
    fake = await FakeModels().start()
    root = project_for(tmp_path, agent, fake)
    groups: list[int] = []
    try:
        async with serving(root) as served:
            host = await HostClient.connect(served)
            guest = await Guest(served.room_link, name="viewer", color="#3366aa").connect()
            await guest.expect("access")
            session_id = await create(host, agent, options=False)
            run = Run(host, session_id)

            # streamed to the host and to a guest
            events = await run.turn("hello canvas")
            assert "Fake model says: hello canvas" in said(events), events
            guest_events: list[dict[str, Any]] = []
            while not guest_events or guest_events[-1]["kind"] != "turn-end":
                guest_events.append((await guest.expect("agent-event", timeout=TURN_TIMEOUT))["event"])
            thread = thread_of(guest_events)
            assert any("Fake model says: hello canvas" in i.get("text", "") for i in thread["items"])

            # a permission is the host's alone: once
            asked = await run.ask("ACTION: run touch once.txt")
            refusal = {
                "t": "agent-permission",
                "sessionId": session_id,
                "requestId": asked["requestId"],
                "answer": "once",
            }
            await guest.send(refusal)
            assert (await guest.expect("error", timeout=TURN_TIMEOUT))["ref"] == "agent-permission"
            await run.answer(asked["requestId"], "once")
            await run.finish()
            assert (root / "once.txt").exists()

            # what a tool did is in the thread every guest folds: a command's output, the file a read
            # read, an edit's diff (Claude's agent writes over a file only after reading it)
            ran = tools_of(await run.turn("ACTION: run printf 'tool-says-%d' 42"))
            if agent not in SHOWS_NO_OUTPUT:
                assert any("tool-says-42" in json.dumps([t["content"], t["rawOutput"]]) for t in ran), ran
            read = tools_of(await run.turn("ACTION: read notes.txt"))
            assert any("notes.txt" in json.dumps([t["title"], t["locations"]]) for t in read), read
            writing = await run.turn("ACTION: write notes.txt notes changed by the agent")
            wrote = tools_of(writing)
            assert (root / "notes.txt").read_text().startswith("notes changed by the agent")
            if agent in SHOWS_DIFFS:
                diffs = [c for tool in wrote for c in tool["content"] if c.get("type") == "diff"]
                assert diffs and diffs[0]["newText"].startswith("notes changed by the agent"), wrote
                assert diffs[0]["oldText"].startswith("plain notes"), diffs
            # what the host approved replacing the file: its removed line beside the new one (Claude's
            # Write tool sends the new text alone; canvas reads what it replaces off the disk)
            changes = [c for e in writing if e["kind"] == "permission" for c in e["preview"]["changes"]]
            if changes:
                assert "-plain notes" in changes[0]["diff"] and "+notes changed" in changes[0]["diff"], changes

            if agent in EDITS_WITH_A_TOOL:
                # the agent's edit tool against an allow and a deny path rule: no one is asked
                allowed = resolved(await run.turn("ACTION: write ruled-in.txt let in"))
                assert [r["by"] for r in allowed] == ["rules"] and (root / "ruled-in.txt").exists()
                refused = resolved(await run.turn("ACTION: write ruled-out.txt kept out"))
                assert [r["by"] for r in refused] == ["rules"] and not (root / "ruled-out.txt").exists()

            if agent not in CORE_ONLY:
                # reject
                asked = await run.ask("ACTION: run touch rejected.txt")
                await run.answer(asked["requestId"], "reject")
                await run.finish("reject")
                assert not (root / "rejected.txt").exists()

                # canvas's always: a canvas rule for exactly this command, the agent answered once
                asked = await run.ask("ACTION: run touch always.txt")
                await run.answer(asked["requestId"], "always")
                answered = resolved(await run.finish())
                assert answered[0]["optionId"] in {o["optionId"] for o in asked["options"] if o["kind"] == "allow_once"}
                (root / "always.txt").unlink()
                again = resolved(await run.turn("ACTION: run touch always.txt"))
                assert [r["by"] for r in again] == ["rules"]
                assert (root / "always.txt").exists()

            # never, then the same command refused by the rule it added
            asked = await run.ask("ACTION: run touch never.txt")
            await run.answer(asked["requestId"], "never")
            await run.finish("reject")
            again = resolved(await run.turn("ACTION: run touch never.txt"))
            assert [r["by"] for r in again] == ["rules"]
            assert not (root / "never.txt").exists()

            # a project deny rule on the agent's real shape of the call, its reason told to the model
            events = await run.turn("ACTION: run touch denied.txt")
            assert [r["by"] for r in resolved(events)] == ["rules"]
            assert not (root / "denied.txt").exists()
            if agent in REASON_REACHES_THE_MODEL:
                assert any("no denied files here" in result for result in fake.tool_results), fake.tool_results[-1:]

            if agent not in CORE_ONLY:
                # the board's tools
                await run.turn("ACTION: note hello from the agent")
                assert "hello from the agent" in await board_notes(served)

            # cancel mid-turn, then the next prompt runs
            await run.slow_turn(agent)
            loop = asyncio.get_running_loop()
            await host.send({"t": "agent-cancel", "sessionId": session_id})
            asked_at = loop.time()
            cancelled = (await events_until(host, session_id, "turn-end"))[-1]
            assert loop.time() - asked_at < CANCEL_WITHIN, f"cancel took {loop.time() - asked_at:.1f} s"
            assert cancelled.get("cancelled") and not cancelled.get("error"), cancelled
            after = await run.turn("after the cancel")
            assert after[-1].get("error") is None
            if "Fake model says: after the cancel" not in said(after):
                # Claude's agent may answer the prompt after a cancel with the cancelled turn's end,
                # and then run a turn behind: the next turn brings that prompt's answer, or its own.
                assert agent == "claude", after
                later = said(await run.turn("once more"))
                assert "Fake model says: after the cancel" in later or "Fake model says: once more" in later, later

            # a setting, told once, kept across a restart
            option_id, value = a_setting(latest_options(host, session_id))
            await host.send({"t": "agent-config", "sessionId": session_id, "configId": option_id, "value": value})
            told = await host.expect("agent-options", timeout=TURN_TIMEOUT, sessionId=session_id)
            assert current(told["options"], option_id) == value
            groups.append(served.server.agents.procs[session_id].pid)
            agent_session = served.server.agents.agent_ids[session_id]
            await guest.close()
            await host.close()
        assert all(group_members(g) == [] for g in groups)

        async with serving(root) as served:
            host = await HostClient.connect(served)
            run = Run(host, session_id)
            events = await run.turn("after the restart")
            assert "Fake model says: after the restart" in said(events)
            notices = [e for e in events if e["kind"] == "notice" and e["text"] == RELOAD_FAILED]
            if agent == "gemini" and notices:
                # Gemini CLI's session/load rewrites the conversation it is asked to load when the
                # load falls in the UTC minute the conversation began (google-gemini/gemini-cli#28693),
                # as this quick restart does: canvas says so in words and the thread goes on afresh.
                assert served.server.agents.agent_ids[session_id] != agent_session
            else:
                # the agent reloaded its own conversation: the same id, and no "could not reload" notice
                assert served.server.agents.agent_ids[session_id] == agent_session
                assert not notices
            assert current(latest_options(host, session_id), option_id) == value
            groups.append(served.server.agents.procs[session_id].pid)
            await host.close()
        assert all(group_members(g) == [] for g in groups)
    finally:
        await fake.stop()
