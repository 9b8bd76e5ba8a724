"""Agents confined to the room's view of the project: what they run cannot read `.canvas/` or the
never-shared files, cannot write outside the project and their home, and nothing they start
outlives canvas, however canvas ends."""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import signal
import sys
from pathlib import Path

import pytest

from canvasrelay.core.errors import ConfigError
from canvasrelay.server.agents import launch as agent_launch
from canvasrelay.server.agents import sandbox as agent_sandbox
from canvasrelay.server.agents.catalog import discover
from canvasrelay.server.config import CanvasConfig, parse_config
from tests.agent_support import TURN_TIMEOUT, config, create, events_until, serving
from tests.support import HostClient, ServerProcess

pytestmark = [
    pytest.mark.timeout(300),
    pytest.mark.skipif(agent_sandbox.bubblewrap() is None, reason="bubblewrap (bwrap) is not installed"),
]

ENV_SECRET = "ENV-SECRET-7f3a"
KEY_SECRET = "KEY-SECRET-91c2"


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "project"
    (root / "deploy").mkdir(parents=True)
    (root / ".env.local").write_text(f"TOKEN={ENV_SECRET}\n")
    (root / "deploy" / "server.key").write_text(KEY_SECRET)
    (root / "notes.txt").write_text("shared notes\n")
    return root


def marked(root: Path) -> list[int]:
    """Live processes that carry this folder's agent mark."""
    needle = f"{agent_launch.MARK_VAR}={agent_launch.mark(root)}".encode()
    found = []
    for environ in Path("/proc").glob("[0-9]*/environ"):
        try:
            if needle in environ.read_bytes().split(b"\0") and "Z" not in _state(environ.parent):
                found.append(int(environ.parent.name))
        except OSError:
            continue
    return found


def _state(proc: Path) -> str:
    return (proc / "stat").read_text().rsplit(")", 1)[1].split()[0]


async def _gone(root: Path, keep: int = 0, timeout: float = 10.0) -> list[int]:
    """Until at most `keep` marked processes are left (or the timeout); returns those left. Each
    process's exit is awaited on its pidfd, which becomes readable when it exits."""
    loop = asyncio.get_running_loop()
    exits: dict[int, asyncio.Future[None]] = {}
    for pid in marked(root):
        with contextlib.suppress(ProcessLookupError):
            fd = os.pidfd_open(pid)
            exits[fd] = loop.create_future()
            loop.add_reader(fd, _exited, exits[fd])
    deadline = loop.time() + timeout
    try:
        pending = set(exits.values())
        while len(pending) > keep and loop.time() < deadline:
            _, pending = await asyncio.wait(
                pending, timeout=deadline - loop.time(), return_when=asyncio.FIRST_COMPLETED
            )
    finally:
        for fd in exits:
            loop.remove_reader(fd)
            os.close(fd)
    return marked(root)


def _exited(future: asyncio.Future[None]) -> None:
    if not future.done():
        future.set_result(None)


async def run(host: HostClient, session_id: str, command: str) -> list[dict[str, object]]:
    """The demo agent runs `command` in its shell once the host allows it; the turn's events."""
    await host.send({"t": "agent-prompt", "sessionId": session_id, "text": f"/run {command}"})
    asked = (await events_until(host, session_id, "permission"))[-1]
    await host.send(
        {"t": "agent-permission", "sessionId": session_id, "requestId": asked["requestId"], "answer": "once"}
    )
    return await events_until(host, session_id, "turn-end")


def tool_output(events: list[dict[str, object]]) -> str:
    return json.dumps([e for e in events if e.get("kind") == "chunk"])


async def test_what_a_confined_agent_runs_cannot_read_secrets_or_write_outside(project: Path, tmp_path: Path) -> None:
    outside = tmp_path / "outside.txt"  # under /tmp, which the agent has a private copy of
    elsewhere = Path(sys.prefix) / "escaped.txt"  # read-only to the agent
    async with serving(project) as served:
        host = await HostClient.connect(served)
        session_id = await create(host)
        secrets = (project / ".canvas" / "secrets.json").read_text()
        events = await run(
            host,
            session_id,
            f"cat .canvas/secrets.json .env.local deploy/server.key notes.txt; echo made > mine.txt; "
            f"echo escaped > {outside}; echo escaped > {elsewhere}; echo private > /tmp/private && cat /tmp/private",
        )
        shown = tool_output(events)
        assert "shared notes" in shown and "private" in shown
        assert "No such file" in shown  # .canvas/ is not there at all
        assert "Read-only file system" in shown
        token = json.loads(secrets)
        for secret in (ENV_SECRET, KEY_SECRET, *(str(v) for v in token.values() if isinstance(v, str))):
            assert secret not in shown
        assert (project / "mine.txt").read_text() == "made\n"
        assert not outside.exists() and not elsewhere.exists()
        # The host's files are as they were: covered, not emptied.
        assert (project / ".env.local").read_text() == f"TOKEN={ENV_SECRET}\n"
        await host.close()


async def test_an_agent_that_opted_out_runs_as_the_host(project: Path) -> None:
    config(project, "[agents.demo]\nconfine = false\n")
    async with serving(project) as served:
        info = {agent.id: agent for agent in served.server.room.agents}
        assert not info["demo"].confined and "confine = false" in info["demo"].confinement
        host = await HostClient.connect(served)
        session_id = await create(host)
        events = await run(host, session_id, "cat .env.local")
        assert ENV_SECRET in tool_output(events)
        await host.close()


# Starts a child in a session of its own (out of the agent's process group), then runs the demo agent.
ESCAPER = 'setsid sleep 300 & exec "$0" -m canvasrelay.agents.demo'


@pytest.mark.parametrize("confine", [True, False], ids=["confined", "unconfined"])
async def test_kill_9_of_canvas_leaves_no_agent_behind(project: Path, confine: bool) -> None:
    config(
        project,
        f"[agents.escaper]\ncommand = \"sh\"\nargs = ['-c', '{ESCAPER}', '{sys.executable}']\n"
        f"confine = {str(confine).lower()}\n",
    )
    server = ServerProcess(project).start()
    try:
        host = await HostClient.connect(server)
        plain = await create(host)
        await create(host, "escaper")
        await host.send({"t": "agent-prompt", "sessionId": plain, "text": "/slow 200"})
        await host.expect("agent-event", timeout=TURN_TIMEOUT, sessionId=plain)
        await host.close()
        assert len(marked(project)) >= 4  # two watchdogs, two agents, the escaped sleep
    finally:
        assert server.proc is not None
        os.kill(server.proc.pid, signal.SIGKILL)
        server.proc.wait(timeout=10)
    left = await _gone(project, keep=0 if confine else 1)
    if confine:
        # The sandbox's pid namespace took the escaped child with it.
        assert left == []
    else:
        # Only what left the group survives the watchdog; the next start ends it.
        assert len(left) == 1
        again = ServerProcess(project).start()
        try:
            assert await _gone(project) == []
            assert any("left running by an earlier canvas" in line for line in again.output)
        finally:
            assert again.stop(timeout=60) == 0


def test_the_never_shared_names_are_what_is_covered(project: Path) -> None:
    (project / ".git").mkdir()
    (project / ".git" / "config").write_text("[remote]\n")
    (project / ".canvas").mkdir()
    (project / "build").mkdir()
    (project / "build" / "big.bin").write_text("x")
    (project / ".canvasignore").write_text("build/\n")
    hidden = {path.relative_to(project).as_posix() for path in agent_sandbox.hidden_in_project(project)}
    assert hidden == {".canvas", ".env.local", "deploy/server.key", ".git/config", "build"}


def test_confinement_is_per_agent_in_the_config() -> None:
    found = discover(CanvasConfig.model_validate({"agents": {"demo": {"confine": False}, "mine": {"command": "sh"}}}))
    assert not found["demo"].confine and found["mine"].confine
    assert found["demo"].command == sys.executable
    with pytest.raises(ConfigError, match=r"config.toml: agents\.mine\.confine: Input should be a valid boolean"):
        parse_config(CanvasConfig, {"agents": {"mine": {"command": "sh", "confine": "no"}}}, ".canvas/config.toml")


async def _serve_with_agents(project: Path, keep_reading: bool = True) -> ServerProcess:
    server = ServerProcess(project, keep_reading=keep_reading).start()
    host = await HostClient.connect(server)
    session_id = await create(host)
    await host.send({"t": "agent-prompt", "sessionId": session_id, "text": "/slow 200"})
    await host.expect("agent-event", timeout=TURN_TIMEOUT, sessionId=session_id)
    await host.close()
    assert marked(project)
    return server


async def test_closing_the_terminal_stops_canvas_and_its_agents(project: Path) -> None:
    server = await _serve_with_agents(project)
    assert server.proc is not None
    server.proc.send_signal(signal.SIGHUP)
    assert await asyncio.to_thread(server.proc.wait, 60) == 0
    assert marked(project) == []


async def test_losing_stdout_stops_canvas_and_its_agents(project: Path) -> None:
    server = await _serve_with_agents(project, keep_reading=False)
    assert server.proc is not None and server.proc.stdout is not None
    server.proc.stdout.close()  # as a `| tee` that died
    assert await asyncio.to_thread(server.proc.wait, 60) == 0
    assert marked(project) == []
