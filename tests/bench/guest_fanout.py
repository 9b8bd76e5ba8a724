"""Guest fan-out, the hub on wrtc, on aiortc and in headless Chromium: 1, 5, 20 and 50 aiortc guests.

Run: `python -m tests.bench.guest_fanout [--guests 1,5,20,50] [--quick] [--hubs wrtc,aiortc,chromium]`.
For each count and hub it starts `canvas serve` on that WebRTC library (`CANVAS_WEBRTC`; the hub in
its own process, so its CPU and memory are its own), waits until it has settled, joins that many
aiortc guests, spread over `--guest-processes` processes (`guest_watchers`; one per core by
default), and streams two shapes through one terminal: an agent-like stream of small timestamped
lines, and a terminal-like bulk of output (canvas's own sources, `cat`). Then the same number of
aiortc guests join a Chromium page acting as the hub (`browser_hub`), which sends them the very
frames guest 0 received from the wrtc hub: the small lines paced as the terminal wrote them, the
bulk as fast as the channels take it. Only the hub differs. For each hub it prints the median
join (offer to welcome, or for Chromium offer to open), hub memory per guest and threads, hub CPU
per delivered KB, delivery p50/p99 of the small lines and bulk throughput; then the goals.

Both sides are measured the same way: latency from the timestamp written in each line (the shell's
clock, or for the browser the same instant shifted to its replay) to its arrival here, on one
machine's wall clock; hub CPU from /proc (for Chromium, all its processes together). Memory per
guest is the growth while the guests join: the hub's RSS, or the sum of Chromium's PSS (its
processes share pages). The browser hub is handed each offer directly (no rendezvous, no proof, no
Room), so it does less per guest than canvas's hub.

`hub %` and `recv %` are how busy the hub's and the guests' busiest threads were during the bulk
(the guests' processes for canvas's hub; for Chromium's, this process, where its guests all run).
Unless the hub's was the bound (90 % busy or more), the guests set the pace, and the bulk's MB/s
are a floor of the hub's, marked `>=`. aiortc receives in Python, on one thread per process.
Chromium, a native sender, also overruns these Python receivers' socket buffers (see RcvbufErrors
in /proc/net/snmp).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import canvasrelay
from canvasrelay.net.channel import PeerLink
from canvasrelay.net.peer_connection import CHOICE, library
from canvasrelay.protocol.framing import parse_stream_message
from tests.bench.browser_hub import BrowserHub, ChromiumCpu, chromium_pids, pss_kb
from tests.bench.fanout_goals import THROUGHPUT_COLUMNS, Figures, goals, throughput
from tests.bench.guest_watchers import STAMP, Watcher
from tests.bench.process_cpu import BusiestThread, cpu_seconds, settled
from tests.support import HostClient, ServerProcess

BULK_TEXT = f"for i in $(seq 100); do find {Path(canvasrelay.__file__).parent} -name '*.py' -exec cat {{}} +; done"
"""The bulk: canvas's own sources as `cat` prints them, real text that deflates about 3 times."""
REPORT_LIMIT = 256 << 20
PACE_LEAD = 0.3
"""Seconds between handing the paced frames to the page and the first one leaving."""


def status(pid: int, field: str) -> int:
    """A number from /proc/PID/status: `VmRSS` (KB), `Threads`."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith(f"{field}:"):
            return int(line.split()[1])
    return 0


@dataclass
class Stream:
    """What guest 0 received from the Python hub in each phase: the frames the browser hub replays."""

    small: list[str]
    bulk: list[str]


Mark = tuple[float, float]
"""(hub CPU seconds, monotonic seconds) at a phase boundary."""


def summary(latencies_ms: list[float], small_bytes: int, bulk_bytes: int, marks: list[Mark]) -> dict[str, float]:
    """The figures of one run, from the marks before the small lines, between the phases, and after the bulk."""
    (cpu0, _), (cpu1, t1), (cpu2, t2) = marks
    latencies = sorted(latencies_ms)
    return {
        "small_cpu_ms_per_kb": (cpu1 - cpu0) * 1000 / max(1, small_bytes / 1024),
        "small_p50_ms": statistics.median(latencies) if latencies else float("nan"),
        "small_p99_ms": latencies[int(len(latencies) * 0.99)] if latencies else float("nan"),
        "bulk_cpu_ms_per_kb": (cpu2 - cpu1) * 1000 / max(1, bulk_bytes / 1024),
        "bulk_mb_per_s": bulk_bytes / (t2 - t1) / 1e6,
    }


class Watchers:
    """The guests, spread over `processes` processes of `guest_watchers`."""

    def __init__(self, link: str, count: int, processes: int, webrtc: str) -> None:
        self.link = link
        self.webrtc = webrtc
        self.shares = [count // processes + (1 if i < count % processes else 0) for i in range(processes)]
        self.procs: list[asyncio.subprocess.Process] = []

    async def join(self) -> list[float]:
        """How long each guest's join took."""
        first = 0
        for share in filter(None, self.shares):
            record = ["--record"] if first == 0 else []
            self.procs.append(
                await asyncio.create_subprocess_exec(
                    sys.executable,
                    "-m",
                    "tests.bench.guest_watchers",
                    self.link,
                    str(share),
                    str(first),
                    *record,
                    "--webrtc",
                    self.webrtc,
                    stdin=asyncio.subprocess.PIPE,
                    stdout=asyncio.subprocess.PIPE,
                    # The first process's lines carry its guest's frames: megabytes, one line.
                    limit=REPORT_LIMIT,
                )
            )
            first += share
        return [seconds for report in await self._each() for seconds in report["joined"]]

    async def _each(self) -> list[dict[str, Any]]:
        """The next line of every process: all its guests reached the same step."""
        lines = []
        for proc in self.procs:
            assert proc.stdout is not None
            line = await asyncio.wait_for(proc.stdout.readline(), 300)
            if not line:
                raise RuntimeError(f"a guests' process ended (exit code {await proc.wait()})")
            lines.append(json.loads(line))
        return lines

    async def phase(self) -> tuple[int, list[float], int, list[str]]:
        """When every guest saw the phase's end: characters received, latencies, skips, guest 0's frames."""
        reports = await self._each()
        return (
            sum(r["bytes"] for r in reports),
            [x for r in reports for x in r["latencies_ms"]],
            sum(r["replays"] for r in reports),
            reports[0]["frames"],
        )

    def pids(self) -> list[int]:
        return [proc.pid for proc in self.procs]

    async def close(self) -> None:
        for proc in self.procs:
            if proc.stdin is not None:
                proc.stdin.close()
        await asyncio.gather(*(proc.wait() for proc in self.procs))


async def run_python(
    count: int, small_lines: int, bulk_bytes: int, processes: int, hub: str
) -> tuple[dict[str, float], Stream]:
    """canvas's hub on the WebRTC library `hub`, its guests aiortc peers."""
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        server = ServerProcess(root, env={CHOICE: hub}).start()
        assert server.proc is not None
        assert any(f"Guests connect over {hub} " in line for line in server.output), "".join(server.output)
        pid = server.proc.pid
        await settled(pid)
        host = await HostClient.connect(server)
        watchers = Watchers(server.room_link, count, processes, "aiortc")
        receivers = BusiestThread(watchers.pids)
        hub_threads = BusiestThread(lambda: [pid])
        try:
            await host.send({"t": "term-open", "id": "bench", "cols": 200, "rows": 50})
            await host.expect("term-data", timeout=20)
            rss_before = status(pid, "VmRSS")
            joins = await watchers.join()
            await settled(pid)  # the joins' catch-up has gone out before memory is read
            rss_per_guest = (status(pid, "VmRSS") - rss_before) / count

            small = (
                f"bash -c 'for i in $(seq {small_lines}); do echo \"T $EPOCHREALTIME agent chunk: the quick brown "
                f"fox jumps\"; done; echo DONE-$((1+1))SMALL'\n"
            )
            mark0 = (cpu_seconds(pid), time.monotonic())
            await host.send({"t": "term-input", "id": "bench", "data": small})
            small_bytes, latencies, small_skips, small_frames = await watchers.phase()
            mark1 = (cpu_seconds(pid), time.monotonic())
            receivers.start()
            hub_threads.start()
            bulk = f"{BULK_TEXT} | head -c {bulk_bytes}; echo DONE-$((1+1))BULK\n"
            await host.send({"t": "term-input", "id": "bench", "data": bulk})
            bulk_received, _, bulk_skips, bulk_frames = await watchers.phase()
            mark2 = (cpu_seconds(pid), time.monotonic())
            figures = summary(latencies, small_bytes, bulk_received, [mark0, mark1, mark2])
            figures |= {
                "receivers_busy": receivers.share(),
                "hub_busy": hub_threads.share(),
                "join_ms": statistics.median(joins) * 1000,
                "kb_per_guest": rss_per_guest,
                "threads": status(pid, "Threads"),
                "replays": small_skips + bulk_skips,
            }
            return figures, Stream(small_frames, bulk_frames)
        finally:
            await watchers.close()
            await host.close()
            server.stop()


def paced(frames: list[str], start_at: float) -> list[tuple[float, str]]:
    """Each frame with the moment, after the first line, its last line was written; its stamps moved
    to `start_at` onwards (same digits, so the same size), so latency means the same on both hubs."""
    stamps = [float(f"{m.group(1)}.{m.group(2)}") for data in frames for m in STAMP.finditer(data)]
    first = stamps[0] if stamps else 0.0
    out: list[tuple[float, str]] = []
    offset = 0.0
    for data in frames:
        found = [float(f"{m.group(1)}.{m.group(2)}") for m in STAMP.finditer(data)]
        if found:
            offset = max(offset, max(found) - first)
        shifted = STAMP.sub(lambda m: f"T {float(f'{m.group(1)}.{m.group(2)}') - first + start_at:.6f} ", data)
        out.append((offset, shifted))
    return out


async def run_browser(hub: BrowserHub, count: int, stream: Stream) -> dict[str, float]:
    """Chromium as the hub, its guests aiortc peers in this process."""
    page = await hub.new_page()
    peers: list[PeerLink] = []
    receivers = BusiestThread(lambda: [os.getpid()])
    hub_threads = BusiestThread(chromium_pids)
    try:
        pss_before = pss_kb(chromium_pids())
        watchers = []
        joins = []
        for _ in range(count):
            peer = library("aiortc").peer([], False)
            peers.append(peer)
            started = time.monotonic()
            channel = await hub.connect(peer)
            joins.append(time.monotonic() - started)
            watcher = Watcher()
            watchers.append(watcher)

            def on_message(message: str | bytes, watcher: Watcher = watcher) -> None:
                for frame in parse_stream_message(message if isinstance(message, str) else message.decode())[1]:
                    watcher.on_frame(frame)

            channel.on_message(on_message)
        # As for canvas's hub: the joins' catch-up has gone out before memory is read.
        chromium = ChromiumCpu()
        await settled(0, lambda _pid: chromium.seconds())
        pss_per_guest = (pss_kb(chromium_pids()) - pss_before) / count
        assert await page.evaluate("openChannels()") == count

        await page.evaluate("(d) => loadBulk(d)", stream.bulk)
        # The timers are armed before the clock starts, as the terminal's output exists before
        # canvas's hub reads it; the lead leaves time for that hand-over.
        start_at = time.time() + PACE_LEAD
        await page.evaluate("([f, s, a]) => playPaced(f, s, a)", [paced(stream.small, start_at), 1, start_at])
        cpu = ChromiumCpu()
        mark0 = (cpu.seconds(), time.monotonic())
        await asyncio.wait_for(asyncio.gather(*(w.done["SMALL"].wait() for w in watchers)), 120)
        mark1 = (cpu.seconds(), time.monotonic())
        small_bytes = sum(w.bytes for w in watchers)
        for w in watchers:
            w.bytes = 0
        receivers.start()
        hub_threads.start()
        await page.evaluate("(s) => playBulk(s)", len(stream.small) + 1)
        await asyncio.wait_for(asyncio.gather(*(w.done["BULK"].wait() for w in watchers)), 300)
        mark2 = (cpu.seconds(), time.monotonic())
        latencies = [x for w in watchers for x in w.latencies_ms]
        figures = summary(latencies, small_bytes, sum(w.bytes for w in watchers), [mark0, mark1, mark2])
        return figures | {
            "receivers_busy": receivers.share(),
            "hub_busy": hub_threads.share(),
            "join_ms": statistics.median(joins) * 1000,
            "kb_per_guest": pss_per_guest,
        }
    finally:
        for peer in peers:
            await peer.close()


def row(count: int, hub: str, r: dict[str, float]) -> str:
    skips = f"{r['replays']:>5.0f}" if "replays" in r else f"{'-':>5}"
    threads = f"{r['threads']:>7.0f}" if "threads" in r else f"{'-':>7}"
    return (
        f"{count:>6} {hub:>8} {r['join_ms']:>7.0f} {r['kb_per_guest']:>8.0f} {threads} "
        f"{r['small_cpu_ms_per_kb']:>11.3f} {r['small_p50_ms']:>7.1f} {r['small_p99_ms']:>7.1f} "
        f"{r['bulk_cpu_ms_per_kb']:>10.3f} {throughput(r, count)} {skips}  load {os.getloadavg()[0]:.2f}"
    )


async def main(counts: list[int], small_lines: int, bulk_bytes: int, hubs: list[str], processes: int) -> None:
    print(
        f"{'guests':>6} {'hub':>8} {'join ms':>7} {'KB/guest':>8} {'threads':>7} {'small ms/KB':>11} {'p50 ms':>7} "
        f"{'p99 ms':>7} {'bulk ms/KB':>10} {THROUGHPUT_COLUMNS} {'skips':>5}"
    )
    figures: Figures = {}
    async with BrowserHub() as browser:
        for count in counts:
            stream: Stream | None = None
            for hub in hubs:
                try:
                    if hub == "chromium":
                        if stream is None:
                            raise RuntimeError("Chromium replays what canvas's hub sent: run one first")
                        figures[(count, hub)] = await run_browser(browser, count, stream)
                    else:
                        figures[(count, hub)], recorded = await run_python(
                            count, small_lines, bulk_bytes, processes, hub
                        )
                        stream = stream or recorded
                    print(row(count, hub, figures[(count, hub)]), flush=True)
                except (TimeoutError, RuntimeError) as exc:  # a row that fails is said, and the next runs
                    print(f"{count:>6} {hub:>8} no figures: {type(exc).__name__} {exc}"[:200], flush=True)
    print()
    print("\n".join(goals(figures, "the aiortc guests")))


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--guests", default=None, help="guest counts, comma-separated (default 1,5,20,50; quick 1,5)")
    parser.add_argument(
        "--quick", action="store_true", help="a smaller stream and fewer guests, for a check in seconds"
    )
    parser.add_argument(
        "--hubs", default="wrtc,aiortc,chromium", help="of wrtc, aiortc, chromium (default all three, in that order)"
    )
    parser.add_argument(
        "--guest-processes",
        type=int,
        default=os.cpu_count() or 1,
        help="processes canvas's hub's guests run in",
    )
    args = parser.parse_args()
    guests = args.guests or ("1,5" if args.quick else "1,5,20,50")
    small_lines, bulk_bytes = (500, 500_000) if args.quick else (1500, 2_000_000)
    counts = [int(n) for n in guests.split(",")]
    asyncio.run(main(counts, small_lines, bulk_bytes, args.hubs.split(","), args.guest_processes))
