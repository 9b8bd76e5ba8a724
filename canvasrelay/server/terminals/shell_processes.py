"""The processes a terminal's shell started, found wherever they went, and ended with it.

A shell's jobs do not stay in reach of a hang-up: `sleep 9 &` has its own process group, `nohup`
ignores SIGHUP, and `setsid` leaves the shell's session while its parent exits, so the job is
re-parented to init. What each of them keeps is the environment it was started with: every shell
of a room runs with `CANVAS_TERMINAL=<room's .canvas folder>#<terminal id>`, which its programs
inherit, and ending a terminal signals every process whose environment carries that mark, and every
process still in the shell's session (one that cleared its environment). Only a program that both
clears its environment and leaves the session (`env -i setsid ...`) is out of reach.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import time
from collections.abc import Collection
from pathlib import Path

MARK = "CANVAS_TERMINAL"
GRACE_S = 1.0
"""How long a hung-up process has to end on its own before it is killed."""
KILLED_S = 5.0
"""How long killed processes may take to be gone (a loaded machine schedules them late)."""
POLL_S = 0.05


def mark(canvas_dir: Path, tid: str) -> str:
    """The mark in the environment of the shell `tid` of the room whose folder is `canvas_dir`."""
    return f"{_room(canvas_dir)}{tid}"


def _room(canvas_dir: Path) -> str:
    return f"{canvas_dir.resolve()}#"


class ShellProcesses:
    """The processes whose environment carries the mark `marked` (with `room`, any mark of that
    room: `marked` is the room's part), or that are in one of `sessions`."""

    def __init__(self, marked: str | None, sessions: Collection[int] = (), room: bool = False) -> None:
        self._entry = None if marked is None else f"{MARK}={marked}".encode()
        self._room = room
        # A shell (or the process tmux runs in a pane) leads its session: the session's id is its pid.
        self._sessions = set(sessions)

    @classmethod
    def of_terminal(cls, canvas_dir: Path, tid: str, sessions: Collection[int] = ()) -> ShellProcesses:
        return cls(mark(canvas_dir, tid), sessions)

    @classmethod
    def of_room(cls, canvas_dir: Path, sessions: Collection[int] = ()) -> ShellProcesses:
        return cls(_room(canvas_dir), sessions, room=True)

    def pids(self) -> set[int]:
        found = set()
        own = os.getpid()
        for name in os.listdir("/proc"):
            if name.isdigit() and int(name) != own and self._is_ours(int(name)):
                found.add(int(name))
        return found

    def _is_ours(self, pid: int) -> bool:
        try:
            if self._sessions and os.getsid(pid) in self._sessions:
                return True
            if self._entry is None:
                return False
            with open(f"/proc/{pid}/environ", "rb") as environ:
                entries = environ.read().split(b"\0")
        except OSError:
            return False
        if self._room:
            return any(entry.startswith(self._entry) for entry in entries)
        return self._entry in entries

    def signal(self, sig: signal.Signals) -> set[int]:
        pids = self.pids()
        for pid in pids:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.kill(pid, sig)
        return pids

    def hang_up(self) -> None:
        self.signal(signal.SIGHUP)
        # A stopped job (Ctrl-Z) gets the hang-up only once it runs again.
        self.signal(signal.SIGCONT)

    async def end(self, grace_s: float = GRACE_S) -> None:
        """Hang up every one of them, and kill those left after `grace_s`; returns once they
        are gone (a process killed is gone from here once it is a zombie: its environment is)."""
        self.hang_up()
        await self._gone(grace_s)
        self.signal(signal.SIGKILL)
        await self._gone(KILLED_S)

    async def _gone(self, within_s: float) -> None:
        deadline = time.monotonic() + within_s
        while self.pids() and time.monotonic() < deadline:
            await asyncio.sleep(POLL_S)
