"""How an agent process is started so that none outlives canvas: the command line (a watchdog,
then bubblewrap when confined, then the agent) and a mark in its environment by which a later
canvas on the same folder recognises what an earlier one left behind.

Three layers, each for a way the one before can miss:
- the agent runs in its own process group, which canvas ends at shutdown and when a session ends;
- a watchdog in that group kills it when canvas dies without a word (`kill -9`, a crash);
- every process an agent starts inherits `CANVAS_AGENT_MARK`; one that left the group (`setsid`)
  and survived is found by it, at shutdown and at the next start, and ended.
"""

from __future__ import annotations

import hashlib
import logging
import os
import signal
import sys
from collections.abc import Mapping
from pathlib import Path

from canvasrelay.server.agents import agent_home
from canvasrelay.server.agents import sandbox as agent_sandbox

log = logging.getLogger(__name__)

MARK_VAR = "CANVAS_AGENT_MARK"
WATCHDOG = Path(__file__).with_name("watchdog.py")


def mark(root: Path) -> str:
    """The same for every canvas serving `root`, different for another folder."""
    return hashlib.sha256(str(root.resolve()).encode()).hexdigest()[:24]


def argv(
    command: str, args: list[str], root: Path, env: Mapping[str, str], needs: agent_home.HomeNeeds | None
) -> list[str]:
    """The command line that runs the agent (see the module's words): confined, with a home of
    its own, when `needs` says what that home needs. Confined, it walks the project for
    never-shared names: call it off the event loop."""
    agent = [command, *args]
    if needs is not None:
        home = agent_home.prepare(mark(root), needs, env, root.resolve())
        agent = agent_sandbox.wrap(agent, root, env, home)
    return [sys.executable, "-I", "-S", str(WATCHDOG), str(os.getpid()), *agent]


def marked(root: Path) -> dict[str, str]:
    return {MARK_VAR: mark(root)}


def end_leftovers(root: Path) -> list[int]:
    """Kill every process carrying this folder's mark (none should run but canvas's own agents,
    and only one canvas serves a folder); returns their pids."""
    needle = f"{MARK_VAR}={mark(root)}".encode()
    me = os.getpid()
    ended = []
    for environ in Path("/proc").glob("[0-9]*/environ"):
        pid = int(environ.parent.name)
        if pid == me:
            continue
        try:
            if needle not in environ.read_bytes().split(b"\0"):
                continue
            os.kill(pid, signal.SIGKILL)
        except (OSError, ValueError):
            continue
        ended.append(pid)
    if ended:
        log.warning("ended %d agent process(es) left running by an earlier canvas: %s", len(ended), ended)
    return ended
