"""Join benchmark for a room that ran for a day: 10 sessions x 5,000 events in a real store.

    .venv/bin/python -m tests.bench.join_large [--sessions 10] [--events 5000]

Prints: `canvas serve`'s start-up time (process start to its links printed) and RSS before and
after the joins, then for a host socket and an aiortc guest: the time from connecting to every
head (the welcome), to every session's newest page, and to every full history (asking for older
pages one at a time, as the web app does when the reader scrolls up). The first start is joined
the moment its links print, while canvas still imports its agents' and WebRTC's libraries in the
background; the second once the server has settled. The machine's load average is printed
beside the figures.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

from canvasrelay.client.guest import Guest
from canvasrelay.core.agent_sessions import MAX_READS_PER_PEER
from tests.bench.process_cpu import settled
from tests.long_sessions import write_sessions
from tests.support import HostClient, ServerProcess


def rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def load() -> str:
    return "load average " + " ".join(f"{x:.2f}" for x in os.getloadavg())


async def join(client: HostClient | Guest, started: float, sessions: int) -> dict[str, float]:
    """Times (s, from `started`) to the heads, every newest page and every full history."""
    times = {"heads": time.perf_counter() - started}
    oldest: dict[str, int] = {}
    while len(oldest) < sessions:
        frame: dict[str, Any] = await client.next_frame(60)
        if frame["t"] == "agent-history":
            oldest[frame["sessionId"]] = frame["after"]
    times["first pages"] = time.perf_counter() - started
    pages = 0
    asked: set[str] = set()
    while any(after > 0 for after in oldest.values()):
        # As many pages on their way as the server allows a peer, one per session at a time.
        for session_id, after in oldest.items():
            if after > 0 and session_id not in asked and len(asked) < MAX_READS_PER_PEER:
                await client.send({"t": "agent-history-request", "sessionId": session_id, "before": after + 1})
                asked.add(session_id)
        frame = await client.next_frame(60)
        if frame["t"] == "error":
            raise RuntimeError(frame["message"])
        if frame["t"] == "agent-history":
            oldest[frame["sessionId"]] = frame["after"]
            asked.discard(frame["sessionId"])
            pages += 1
    times["full histories"] = time.perf_counter() - started
    times["older pages"] = pages
    return times


def empty_start(runs: int = 7) -> tuple[list[float], float]:
    """Start-up times and idle RSS of `canvas serve` in an empty folder: the figures to compare with.
    Several starts, since one on a shared machine can be off by a few hundred ms either way."""
    times, rss = [], 0.0
    for _ in range(runs):
        with tempfile.TemporaryDirectory() as tmp:
            began = time.perf_counter()
            server = ServerProcess(Path(tmp)).start()
            times.append(time.perf_counter() - began)
            assert server.proc is not None
            rss = rss_mb(server.proc.pid)
            server.stop()
    return times, rss


async def bench(sessions: int, events: int) -> None:
    print(f"join_large: {sessions} sessions x {events} events; {load()}")
    starts, rss = empty_start()
    print(
        f"  empty store: start-up median {statistics.median(starts) * 1000:.0f} ms"
        f" ({min(starts) * 1000:.0f}-{max(starts) * 1000:.0f} ms, {len(starts)} starts), RSS {rss:.1f} MB idle"
    )
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp) / "project"
        (root / ".canvas").mkdir(parents=True, mode=0o700)
        began = time.perf_counter()
        write_sessions(root, sessions, events)
        print(f"  store written in {time.perf_counter() - began:.1f} s")
        # A host who opens the link at once shares the first seconds with the SDKs canvas imports
        # after its links; one who comes later does not.
        for start, wait in (("first start, joined at once", False), ("second start, joined once settled", True)):
            began = time.perf_counter()
            server = ServerProcess(root).start()
            startup = time.perf_counter() - began
            assert server.proc is not None
            idle_rss = rss_mb(server.proc.pid)
            try:
                if wait:
                    await settled(server.proc.pid)
                began = time.perf_counter()
                host = await HostClient.connect(server)
                host_times = await join(host, began, sessions)
                began = time.perf_counter()
                guest = await Guest(server.room_link, name="bench").connect()
                guest_times = await join(guest, began, sessions)
                joined_rss = rss_mb(server.proc.pid)
                await guest.close()
                await host.close()
            finally:
                server.stop()
            print(f"  {start}: start-up {startup * 1000:.0f} ms, RSS {idle_rss:.1f} MB idle, {joined_rss:.1f} MB after")
            for name, times in (("host socket", host_times), ("aiortc guest", guest_times)):
                figures = ", ".join(
                    f"{k} {v * 1000:.0f} ms" if k != "older pages" else f"{v:.0f} older pages" for k, v in times.items()
                )
                print(f"    {name}: {figures}")
            print(f"    ({load()})")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sessions", type=int, default=10)
    parser.add_argument("--events", type=int, default=5000)
    args = parser.parse_args()
    asyncio.run(bench(args.sessions, args.events))


if __name__ == "__main__":
    main()
