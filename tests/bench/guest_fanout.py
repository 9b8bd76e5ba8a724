"""Guest fan-out through the Python hub: 1, 5 and 20 guests watching one terminal.

Run: `python -m tests.bench.guest_fanout [--guests 1,5,20]`. For each count it starts `canvas serve`
(the hub, in its own process so its CPU and memory are its own), joins that many aiortc guests
from this process, and streams two shapes through one terminal: an agent-like stream of small
timestamped lines, and a terminal-like bulk of output. It prints hub CPU per delivered KB,
delivery p50/p99 of the small lines, bulk throughput, and hub memory per guest.

The guests share this process, so at 20 guests their own CPU, not the hub's, may bound throughput.
The browser-hub side-by-side of the issue is not implemented here.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import re
import statistics
import tempfile
import time
from pathlib import Path

from canvasrelay.guest import Guest
from tests.support import HostClient, ServerProcess

TICKS = os.sysconf("SC_CLK_TCK")
SMALL_LINES = 1500
BULK_BYTES = 2_000_000
STAMP = re.compile(r"T (\d+)\.(\d+) ")


def cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / TICKS


def rss_kb(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    return 0


class Watcher:
    """One guest's view of the terminal: bytes received, line latencies, markers seen."""

    def __init__(self, guest: Guest) -> None:
        self.guest = guest
        self.bytes = 0
        self.latencies_ms: list[float] = []
        self.replays = 0
        self.text = ""
        self.done: dict[str, asyncio.Event] = {"SMALL": asyncio.Event(), "BULK": asyncio.Event()}
        guest.listeners.append(self.on_frame)

    def on_frame(self, frame: dict[str, object]) -> None:
        if frame.get("t") != "term-data":
            return
        if frame.get("replay"):
            # The terminal skipped this guest ahead to its scrollback; reported, as a sign of overload.
            self.replays += 1
        data = str(frame.get("data", ""))
        now = time.time()
        self.bytes += len(data)
        for match in STAMP.finditer(data):
            sent = float(f"{match.group(1)}.{match.group(2)}")
            self.latencies_ms.append((now - sent) * 1000)
        self.text = (self.text + data)[-64:]
        for name, event in self.done.items():
            if f"DONE-2{name}" in self.text:
                event.set()


async def run(count: int) -> dict[str, float]:
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        server = ServerProcess(root).start()
        assert server.proc is not None
        pid = server.proc.pid
        host = await HostClient.connect(server)
        guests: list[Guest] = []
        try:
            await host.send({"t": "term-open", "id": "bench", "cols": 200, "rows": 50})
            await host.expect("term-data", timeout=20)
            rss_before = rss_kb(pid)
            watchers = []
            for i in range(count):
                guest = await Guest(server.room_link, name=f"g{i}").connect()
                guests.append(guest)
                await guest.send({"t": "term-open", "id": "bench"})
                watchers.append(Watcher(guest))
            await asyncio.sleep(1.0)  # let joins settle before measuring memory
            rss_per_guest = (rss_kb(pid) - rss_before) / count

            small = (
                f"bash -c 'for i in $(seq {SMALL_LINES}); do echo \"T $EPOCHREALTIME agent chunk: the quick brown "
                f"fox jumps\"; done; echo DONE-$((1+1))SMALL'\n"
            )
            cpu0, t0 = cpu_seconds(pid), time.monotonic()
            await host.send({"t": "term-input", "id": "bench", "data": small})
            await asyncio.wait_for(asyncio.gather(*(w.done["SMALL"].wait() for w in watchers)), 120)
            cpu1, t1 = cpu_seconds(pid), time.monotonic()
            small_bytes = sum(w.bytes for w in watchers)
            for w in watchers:
                w.bytes = 0
            bulk = f"head -c {BULK_BYTES} /dev/zero | tr '\\0' x | fold -w 100; echo DONE-$((1+1))BULK\n"
            await host.send({"t": "term-input", "id": "bench", "data": bulk})
            await asyncio.wait_for(asyncio.gather(*(w.done["BULK"].wait() for w in watchers)), 300)
            cpu2, t2 = cpu_seconds(pid), time.monotonic()
            bulk_bytes = sum(w.bytes for w in watchers)
            latencies = sorted(x for w in watchers for x in w.latencies_ms)
            return {
                "guests": count,
                "small_cpu_ms_per_kb": (cpu1 - cpu0) * 1000 / max(1, small_bytes / 1024),
                "small_p50_ms": statistics.median(latencies) if latencies else float("nan"),
                "small_p99_ms": latencies[int(len(latencies) * 0.99)] if latencies else float("nan"),
                "small_seconds": t1 - t0,
                "bulk_cpu_ms_per_kb": (cpu2 - cpu1) * 1000 / max(1, bulk_bytes / 1024),
                "bulk_mb_per_s_total": bulk_bytes / (t2 - t1) / 1e6,
                "rss_kb_per_guest": rss_per_guest,
                "replays": sum(w.replays for w in watchers) - count,
            }
        finally:
            for guest in guests:
                await guest.close()
            await host.close()
            server.stop()


async def main(counts: list[int]) -> None:
    print(
        f"{'guests':>6} {'small ms/KB':>11} {'p50 ms':>7} {'p99 ms':>7} {'bulk ms/KB':>10} "
        f"{'bulk MB/s':>9} {'KB/guest':>8} {'skips':>5}"
    )
    for count in counts:
        r = await run(count)
        print(
            f"{count:>6} {r['small_cpu_ms_per_kb']:>11.2f} {r['small_p50_ms']:>7.1f} {r['small_p99_ms']:>7.1f} "
            f"{r['bulk_cpu_ms_per_kb']:>10.2f} {r['bulk_mb_per_s_total']:>9.2f} {r['rss_kb_per_guest']:>8.0f} "
            f"{r['replays']:>5.0f}",
            flush=True,
        )


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--guests", default="1,5,20")
    asyncio.run(main([int(n) for n in parser.parse_args().guests.split(",")]))
