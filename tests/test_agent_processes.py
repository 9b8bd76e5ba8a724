"""Agent processes are bounded and never outlive canvas: the cap on running agents, idle agents
stopped and reloaded, and shutdown by process group (stdin closed, SIGTERM, SIGKILL)."""

from __future__ import annotations

import asyncio
import os
import re
import sys
from pathlib import Path

import aiohttp
import pytest

from tests.agent_support import (
    TURN_TIMEOUT,
    config,
    create,
    demo_children,
    events_until,
    group_members,
    prompt,
    said,
    serving,
)
from tests.support import HostClient, ServerProcess

pytestmark = pytest.mark.timeout(900)

SESSIONS = 12
CAP = 3


@pytest.mark.paced
async def test_four_times_the_cap_of_sessions_run_at_most_the_cap_and_each_answers(project: Path) -> None:
    config(project, f"[agent_processes]\nmax_running = {CAP}\n")
    async with (
        serving(project) as served,
        aiohttp.ClientSession(headers={"Authorization": f"Bearer {served.token}"}) as http,
    ):
        host = await HostClient.connect(served)
        ids = []
        for _ in range(SESSIONS):
            async with http.post(f"{served.base_url}/api/sessions", json={"agent": "demo"}) as response:
                assert response.status == 201, await response.text()
                ids.append((await response.json())["id"])
        most = 0
        for n, session_id in enumerate(ids):
            async with http.post(f"{served.base_url}/api/session/{session_id}/prompt", json={"text": f"n{n}"}) as r:
                assert r.status == 202, await r.text()
            events = await events_until(host, session_id, "turn-end")
            assert events[-1].get("error") is None and f"You said: n{n}" in said(events)
            running = len(demo_children())
            most = max(most, running)
            assert running <= CAP and len(served.server.agents.running()) <= CAP
        assert most == CAP
        assert len(served.server.agents.locks) <= SESSIONS
        for session_id in ids[:5]:
            async with http.delete(f"{served.base_url}/api/session/{session_id}") as response:
                assert response.status == 204
        assert not set(ids[:5]) & set(served.server.agents.locks)
        await host.close()


async def test_past_the_cap_a_busy_room_says_so(project: Path) -> None:
    config(project, "[agent_processes]\nmax_running = 1\n")
    async with serving(project) as served:
        host = await HostClient.connect(served)
        busy = await create(host)
        await host.send({"t": "agent-prompt", "sessionId": busy, "text": "/slow 200"})
        await events_until(host, busy, "chunk")
        other = await create(host, options=False)
        end = (await prompt(host, other, "hello"))[-1]
        assert "every place for a running agent is taken (1" in end["error"]
        await host.send({"t": "agent-cancel", "sessionId": busy})
        await events_until(host, busy, "turn-end")
        assert "You said: now" in said(await prompt(host, other, "now"))
        await host.close()


async def test_an_idle_agent_is_stopped_and_reloaded_by_the_next_prompt(project: Path) -> None:
    config(project, "[agent_processes]\nidle_minutes = 0.02\n")
    async with serving(project) as served:
        host = await HostClient.connect(served)
        session_id = await create(host)
        await host.send({"t": "agent-config", "sessionId": session_id, "configId": "mode", "value": "verbose"})
        await host.expect("agent-options", timeout=TURN_TIMEOUT, sessionId=session_id)
        first = served.server.agents.procs[session_id]
        await asyncio.wait_for(first.exited(), TURN_TIMEOUT)
        assert session_id not in served.server.agents.running()
        events = await prompt(host, session_id, "back")
        assert "deterministically" in said(events)  # reloaded, and its mode re-applied
        assert served.server.agents.procs[session_id] is not first
        await host.close()


# Deaf to SIGTERM (an ignored signal stays ignored across exec), with a child that is too.
SCRIPT = 'trap "" TERM; sleep 300 & echo "child $! of $$" >&2; exec "$0" -m canvasrelay.agents.demo'
STUBBORN = f"""
[agents.stubborn]
command = "sh"
args = ['-c', '{SCRIPT}', '{sys.executable}']
# Unconfined, so the pids it prints are the host's (a confined agent has a pid namespace of its own).
confine = false
"""


async def test_no_agent_process_survives_canvas(project: Path) -> None:
    config(project, STUBBORN)
    server = ServerProcess(project).start()
    try:
        host = await HostClient.connect(server)
        plain = await create(host)
        stubborn = await create(host, "stubborn")
        await host.send({"t": "agent-prompt", "sessionId": plain, "text": "/slow 200"})
        await host.send({"t": "agent-prompt", "sessionId": stubborn, "text": "/slow 200"})
        await events_until(host, plain, "chunk")
        await events_until(host, stubborn, "chunk")
        await host.close()
        log = (project / ".canvas" / "agent-stderr.log").read_text()
        [(child, agent)] = [(int(a), int(b)) for a, b in re.findall(r"child (\d+) of (\d+)", log)]
        # The agent's group is its watchdog's, which forked it.
        group = os.getpgid(agent)
        assert child in group_members(group) and group != agent
    finally:
        assert server.stop() == 0
    assert group_members(group) == []
    assert not [line for line in server.output if "Traceback" in line]
