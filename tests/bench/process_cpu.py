"""A server process's CPU time, read from /proc, and waiting until it has settled after its start;
and how busy the receivers' busiest thread was, which says when they, not the hub, set the pace."""

from __future__ import annotations

import asyncio
import os
import time
from collections.abc import Callable
from pathlib import Path

TICK = os.sysconf("SC_CLK_TCK")
SETTLE_WINDOW_S = 0.5
SETTLE_LIMIT_S = 20.0


def cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / TICK


async def settled(pid: int, cpu: Callable[[int], float] = cpu_seconds) -> None:
    """Until a started server spends less than one CPU tick in half a second: canvas imports its
    agents' SDKs in the background for a few seconds after it prints its links. `cpu` reads the
    process's CPU seconds (or its tree's, for a process with workers)."""
    deadline = time.perf_counter() + SETTLE_LIMIT_S
    while time.perf_counter() < deadline:
        start = cpu(pid)
        await asyncio.sleep(SETTLE_WINDOW_S)
        if cpu(pid) - start < 1 / TICK:
            return
    print(f"  (pid {pid} never settled within {SETTLE_LIMIT_S:.0f} s; figures include its start)")


BUSY = 0.9
"""A thread this busy over a phase was the bound: whatever fed it could have gone faster."""


def thread_seconds(pids: list[int]) -> dict[tuple[int, int], float]:
    """CPU seconds of every thread of `pids`."""
    seconds = {}
    for pid in pids:
        try:
            tids = [int(tid) for tid in os.listdir(f"/proc/{pid}/task")]
        except OSError:
            continue
        for tid in tids:
            try:
                fields = Path(f"/proc/{pid}/task/{tid}/stat").read_text().rsplit(")", 1)[1].split()
            except OSError:
                continue
            seconds[(pid, tid)] = (int(fields[11]) + int(fields[12])) / TICK
    return seconds


class BusiestThread:
    """The busiest thread of some processes between `start()` and `share()`, as a share of the time."""

    def __init__(self, pids: Callable[[], list[int]]) -> None:
        self.pids = pids
        self._start: dict[tuple[int, int], float] = {}
        self._at = 0.0

    def start(self) -> None:
        self._start, self._at = thread_seconds(self.pids()), time.monotonic()

    def share(self) -> float:
        now, elapsed = thread_seconds(self.pids()), time.monotonic() - self._at
        busiest = max((seconds - self._start.get(key, 0.0) for key, seconds in now.items()), default=0.0)
        return busiest / elapsed if elapsed > 0 else 0.0
