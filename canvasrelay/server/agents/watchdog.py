"""Runs one agent for canvas and ends the agent's whole process group if canvas dies first.

Usage: python -I -S watchdog.py CANVAS_PID COMMAND [ARG...]

Canvas starts this in a new process group, with the agent's pipes. It forks the agent (which
keeps the pipes and the group), gives up its own copies of the pipes, and waits: when the agent
exits it exits the same way, so canvas sees the agent's exit. When canvas dies, however it dies
(a `kill -9` included), the kernel tells this process (`PR_SET_PDEATHSIG`, or a poll where
there is no such call) and it kills the group: the agent and whatever it started. Claude's and
Codex's adapters ignore the end of their stdin, so without this they would outlive canvas.

It imports nothing of canvas and runs without site packages: it starts in a few milliseconds.
"""

from __future__ import annotations

import ctypes
import os
import signal
import sys
import threading
import time

PR_SET_PDEATHSIG = 1
POLL_SECONDS = 1.0


def _orphaned(parent: int) -> bool:
    return os.getppid() != parent


def _end_group() -> None:
    os.killpg(0, signal.SIGKILL)


def _on_term(parent: int, agent: int) -> None:
    def handler(signum: int, frame: object) -> None:
        if _orphaned(parent):
            _end_group()
        # Canvas asked the group to stop: the agent got the signal too; wait for it to exit.

    signal.signal(signal.SIGTERM, handler)
    signal.signal(signal.SIGHUP, handler)


def _watch_parent(parent: int) -> None:
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        if libc.prctl(PR_SET_PDEATHSIG, signal.SIGTERM, 0, 0, 0) == 0:
            return
    except (OSError, AttributeError):
        pass

    def poll() -> None:
        while not _orphaned(parent):
            time.sleep(POLL_SECONDS)
        _end_group()

    threading.Thread(target=poll, daemon=True).start()


def main(argv: list[str]) -> int:
    parent, command = int(argv[0]), argv[1:]
    _watch_parent(parent)
    if _orphaned(parent):
        return 1
    agent = os.fork()
    if agent == 0:
        try:
            os.execvp(command[0], command)
        except OSError as exc:
            os.write(2, f"canvas: cannot run {command[0]}: {exc.strerror}\n".encode())
        os._exit(127)
    _on_term(parent, agent)
    null = os.open(os.devnull, os.O_RDWR)
    for fd in (0, 1, 2):
        os.dup2(null, fd)
    while True:
        try:
            _, status = os.waitpid(agent, 0)
            break
        except ChildProcessError:
            return 1
        except InterruptedError:
            continue
    if os.WIFSIGNALED(status):
        signum = os.WTERMSIG(status)
        signal.signal(signum, signal.SIG_DFL)
        os.kill(os.getpid(), signum)
    return os.waitstatus_to_exitcode(status)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
