"""Stopping canvas with real agents at work: closing the host's terminal leaves neither an agent
nor the command it runs."""

from __future__ import annotations

import asyncio
import signal
from pathlib import Path

import pytest

from tests.agent_support import create
from tests.agents.fake_models import FakeModels
from tests.agents.real_agents import AGENTS, lacking
from tests.agents.test_interop import AGENT_TIMEOUT, Run, project_for
from tests.support import HostClient, ServerProcess, missing
from tests.test_agent_confinement import marked

pytestmark = [pytest.mark.interop, pytest.mark.timeout(600)]


def running(command: str) -> list[int]:
    """Live processes whose command line is exactly `command`."""
    found = []
    for cmdline in Path("/proc").glob("[0-9]*/cmdline"):
        try:
            if cmdline.read_bytes().rstrip(b"\0").replace(b"\0", b" ") == command.encode():
                found.append(int(cmdline.parent.name))
        except OSError:
            continue
    return found


@pytest.mark.parametrize("agent", AGENTS)
async def test_closing_the_terminal_leaves_neither_the_agent_nor_what_it_runs(agent: str, tmp_path: Path) -> None:
    """SIGHUP (the host's terminal closed) while the agent runs a command the host allowed: canvas
    stops as on SIGTERM, and neither the agent nor the command is left running."""
    lacks = lacking(agent)
    if lacks is not None:
        missing(*lacks)
    fake = await FakeModels().start()
    root = project_for(tmp_path, agent, fake)
    # Not a `sleep`: Claude Code refuses to run one that starts a command.
    command = f"timeout {4700 + AGENTS.index(agent)} tail -f /dev/null"
    server = ServerProcess(root).start()
    try:
        host = await HostClient.connect(server)
        run = Run(host, await create(host, agent, options=False))
        # Allowed once where the agent asks (Claude's may run it unasked).
        turn = asyncio.create_task(run.turn(f"ACTION: run {command}"))
        deadline = asyncio.get_running_loop().time() + AGENT_TIMEOUT
        while not running(command):
            assert not turn.done(), turn.result()
            assert asyncio.get_running_loop().time() < deadline, f"{command} never ran"
            await asyncio.sleep(0.05)
        assert marked(root)
        assert server.proc is not None
        server.proc.send_signal(signal.SIGHUP)
        assert await asyncio.to_thread(server.proc.wait, 60) == 0
        turn.cancel()
        await host.close()
    finally:
        server.stop()
        await fake.stop()
    assert marked(root) == [] and running(command) == []
