"""Terminal throughput and keystroke echo latency through `canvas serve` and its host WebSocket.

Run: `python -m tests.bench.terminal_throughput [--mb 50] [--clients 1,5] [--keys 300] [--rounds 1]
[--termpair PATH]`.
It starts `canvas serve` in its own process (so its memory is its own), opens one terminal,
and `cat`s a file of `--mb` MB to 1 and then 5 WebSocket clients watching it, timing until the
last client has seen the marker printed after it. It prints MB/s, the frames each client got,
how many times a client skipped ahead to a replay, and the server's peak RSS (VmHWM). Then it
types `--keys` single keystrokes, 20 ms apart, and times each until its echo comes back: p50/p99.
It runs all that twice: with the shells as canvas's own children in a bare PTY, then with the
shells kept by the room's tmux server (the pane's output piped to canvas, input through control
mode), and prints the second beside the first. With `--rounds N` it does that N times, bare and
tmux in turn, and prints the median of the rounds' ratios: on a shared machine the load moves
between minutes more than between the two halves of a round.
With `--termpair PATH` (or `$TERMPAIR`) it runs the same through termpair and prints the ratios
(see tests/bench/termpair_side.py for how termpair is installed and driven).

The clients share this process and do not parse JSON on the hot path (they search the text
for the marker), so at 5 clients this process's CPU, not the server's, may bound the figure.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import string
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import aiohttp

from tests.bench.process_cpu import settled
from tests.bench.termpair_side import Termpair
from tests.bench.termpair_side import echo_latency as termpair_echo
from tests.bench.termpair_side import throughput as termpair_throughput
from tests.support import HostClient, ServerProcess

MB = 1_000_000
KEY_GAP_S = 0.02
"""Between keystrokes, as a fast typist (50 keys/s): output coalescing then waits for nothing."""


def status_kb(pid: int, field: str) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith(field + ":"):
            return int(line.split()[1])
    return 0


def write_payload(path: Path, size: int) -> None:
    line = (string.ascii_letters + string.digits) * 2  # 124 printable chars + newline per line
    block = ((line + "\n") * 8192).encode()
    with path.open("wb") as out:
        written = 0
        while written < size:
            chunk = block[: size - written]
            out.write(chunk)
            written += len(chunk)


class Watcher:
    """A client that counts bytes and frames until a marker appears."""

    def __init__(self, client: HostClient) -> None:
        self.client = client
        self.frames = 0
        self.chars = 0
        self.replays = 0

    async def until(self, marker: str, timeout: float) -> float:
        async with asyncio.timeout(timeout):
            while True:
                msg = await self.client.ws.receive()
                if msg.type is not aiohttp.WSMsgType.TEXT:
                    raise ConnectionError(f"closed: {msg.type} {msg.data!r}")
                text: str = msg.data
                self.frames += 1
                self.chars += len(text)
                if '"replay":true' in text:
                    self.replays += 1
                if marker in text:
                    return time.perf_counter()


async def throughput(server: ServerProcess, clients: int, payload: Path, size: int, run: int) -> float:
    tid = f"bench{run}"
    watchers = [Watcher(await HostClient.connect(server)) for _ in range(clients)]
    try:
        for watcher in watchers:
            await watcher.client.send({"t": "term-open", "id": tid, "cols": 200, "rows": 50})
        ready = f"READY{run}"
        await watchers[0].client.send({"t": "term-input", "id": tid, "data": f"stty -echo; echo READY{run}\r"})
        await asyncio.gather(*(w.until(ready, 30) for w in watchers))
        await asyncio.sleep(0.3)
        for watcher in watchers:
            watcher.frames = watcher.chars = watcher.replays = 0
        done = f"DONE{run}{run}"
        started = time.perf_counter()
        command = f'cat {payload}; echo DONE{run}""{run}\r'
        await watchers[0].client.send({"t": "term-input", "id": tid, "data": command})
        ends = await asyncio.gather(*(w.until(done, 600) for w in watchers))
        elapsed = max(ends) - started
        frames = statistics.mean(w.frames for w in watchers)
        replays = sum(w.replays for w in watchers)
        print(
            f"cat {size / MB:.0f} MB to {clients} client(s): {size / MB / elapsed:7.1f} MB/s per client, "
            f"{clients * size / MB / elapsed:7.1f} MB/s total, {elapsed:5.2f} s, "
            f"{frames:.0f} frames/client, {replays} skip-ahead replay(s)"
        )
        await watchers[0].client.send({"t": "term-close", "id": tid})
        return elapsed
    finally:
        for watcher in watchers:
            await watcher.client.close()


async def drain_until_quiet(client: HostClient, quiet_s: float) -> None:
    """Read and drop messages until none comes for `quiet_s`."""
    while True:
        try:
            await client.ws.receive(timeout=quiet_s)
        except TimeoutError:
            return


async def echo_latency(server: ServerProcess, keys: int) -> list[float]:
    client = await HostClient.connect(server)
    try:
        await client.send({"t": "term-open", "id": "echo", "cols": 200, "rows": 50})
        await client.send({"t": "term-input", "id": "echo", "data": "echo READY$((1))\r"})
        await Watcher(client).until("READY1", 30)
        await asyncio.sleep(0.5)
        # Drain what came after the marker (the prompt) so each wait below sees only its echo.
        await drain_until_quiet(client, 0.3)
        samples: list[float] = []
        for i in range(keys):
            key = "abcdefghijklmnopqrstuvwxyz"[i % 26]
            if i % 40 == 39:
                # Clear the line (Ctrl-U) now and then so the line editor's redraws stay short.
                await client.send({"t": "term-input", "id": "echo", "data": "\x15"})
                await asyncio.sleep(0.05)
                await drain_until_quiet(client, 0.05)
            await asyncio.sleep(KEY_GAP_S)
            started = time.perf_counter()
            await client.send({"t": "term-input", "id": "echo", "data": key})
            while True:
                msg = await client.ws.receive(timeout=10)
                if '"term-data"' in msg.data and key in msg.data.split('"data":"', 1)[1]:
                    break
            samples.append((time.perf_counter() - started) * 1000)
        samples.sort()
        print(f"keystroke echo over {keys} keys: {percentiles(samples)}")
        return samples
    finally:
        await client.close()


def percentiles(samples: list[float]) -> str:
    p50 = samples[len(samples) // 2]
    p99 = samples[min(len(samples) - 1, int(len(samples) * 0.99))]
    return f"p50 {p50:.2f} ms, p99 {p99:.2f} ms"


async def measure(
    root: Path, payload: Path, size: int, client_counts: list[int], keys: int, tmux: bool
) -> tuple[dict[int, float], list[float]]:
    """Throughput per client count (seconds) and echo samples (ms), from one `canvas serve`."""
    print(f"-- shells {'kept by tmux (pane piped)' if tmux else 'in a bare PTY'}")
    elapsed: dict[int, float] = {}
    server = ServerProcess(root, env={"SHELL": "/bin/bash", "CANVAS_NO_TMUX": "" if tmux else "1"}).start()
    assert server.proc is not None
    pid = server.proc.pid
    try:
        print(f"canvas: server RSS at start: {status_kb(pid, 'VmRSS') / 1024:.1f} MiB")
        await settled(pid)
        for run, clients in enumerate(client_counts, start=1):
            elapsed[clients] = await throughput(server, clients, payload, size, run)
            print(f"  server peak RSS so far (VmHWM): {status_kb(pid, 'VmHWM') / 1024:.1f} MiB")
        echo = await echo_latency(server, keys)
    finally:
        server.stop()
        if tmux:
            # The shells outlive the server by design: end them, and the room's tmux server with them.
            stop = [sys.executable, "-m", "canvasrelay", "stop", "--terminals", "--dir", str(root)]
            subprocess.run(stop, check=True, env={**os.environ, "CANVAS_NO_TMUX": ""})
    return elapsed, echo


def beside(
    size: int, ours: dict[int, float], kept: dict[int, float], our_echo: list[float], kept_echo: list[float]
) -> tuple[dict[int, float], float]:
    """Prints tmux's figures beside the bare PTY's; returns the rate ratios and the echo p50 difference."""
    print("-- tmux beside the bare PTY (goal: echo p50 within 1 ms, throughput at least half)")
    ratios = {clients: ours[clients] / kept[clients] for clients in ours}
    for clients, ratio in ratios.items():
        print(
            f"cat to {clients} client(s): bare {size / MB / ours[clients]:7.1f} MB/s, "
            f"tmux {size / MB / kept[clients]:7.1f} MB/s ({ratio:.2f}x the bare rate)"
        )
    bare_p50, tmux_p50 = our_echo[len(our_echo) // 2], kept_echo[len(kept_echo) // 2]
    print(f"echo p50: bare {bare_p50:.2f} ms, tmux {tmux_p50:.2f} ms: {tmux_p50 - bare_p50:+.2f} ms")
    return ratios, tmux_p50 - bare_p50


async def main(size_mb: int, client_counts: list[int], keys: int, rounds: int, termpair: str | None) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        payload = Path(tmp) / "payload.txt"
        size = size_mb * MB
        write_payload(payload, size)
        ratios: list[dict[int, float]] = []
        echo_differences: list[float] = []
        for n in range(rounds):
            # A folder per room: each starts with no terminal recorded.
            bare_root, tmux_root = Path(tmp) / f"bare{n}", Path(tmp) / f"tmux{n}"
            bare_root.mkdir()
            tmux_root.mkdir()
            ours, our_echo = await measure(bare_root, payload, size, client_counts, keys, tmux=False)
            kept, kept_echo = await measure(tmux_root, payload, size, client_counts, keys, tmux=True)
            round_ratios, echo_difference = beside(size, ours, kept, our_echo, kept_echo)
            ratios.append(round_ratios)
            echo_differences.append(echo_difference)
        if rounds > 1:
            print(f"-- median of {rounds} rounds")
            for clients in client_counts:
                median = statistics.median(r[clients] for r in ratios)
                print(f"cat to {clients} client(s): tmux at {median:.2f}x the bare rate")
            print(f"echo p50: tmux {statistics.median(echo_differences):+.2f} ms beside the bare PTY")
        if termpair is None:
            print("termpair: not run (give --termpair PATH or set $TERMPAIR; see tests/bench/termpair_side.py)")
            return
        tp = Termpair(termpair, bare_root)
        try:
            await tp.start()
            for run, clients in enumerate(client_counts, start=1):
                elapsed = await termpair_throughput(tp, clients, payload, run)
                print(
                    f"termpair: cat {size / MB:.0f} MB to {clients} client(s): {size / MB / elapsed:7.1f} MB/s per "
                    f"client, {elapsed:5.2f} s; canvas is {elapsed / ours[clients]:.1f}x as fast"
                )
                print(f"  termpair server peak RSS so far (VmHWM): {tp.rss_peak_kb() / 1024:.1f} MiB")
            their_echo = await termpair_echo(tp, keys)
            print(f"termpair: keystroke echo over {keys} keys: {percentiles(their_echo)}")
            ratio = their_echo[len(their_echo) // 2] / our_echo[len(our_echo) // 2]
            print(f"echo p50 ratio termpair/canvas: {ratio:.2f}")
        finally:
            tp.stop()


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--mb", type=int, default=50)
    parser.add_argument("--clients", default="1,5")
    parser.add_argument("--keys", type=int, default=300)
    parser.add_argument("--rounds", type=int, default=1, help="bare and tmux in turn, this many times")
    parser.add_argument("--termpair", default=os.environ.get("TERMPAIR"), help="the termpair executable")
    args = parser.parse_args()
    os.environ.setdefault("PYTHONUNBUFFERED", "1")
    asyncio.run(main(args.mb, [int(n) for n in args.clients.split(",")], args.keys, max(1, args.rounds), args.termpair))
