"""A server process's CPU time, read from /proc, and waiting until it has settled after its start."""

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
