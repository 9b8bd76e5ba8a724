"""Guests watching a terminal for `guest_fanout`, in a process of their own, so that the hub and
not its receivers is what the benchmark measures (fifty aiortc receivers in one process take a
core between them before the hub does).

    python -m tests.bench.guest_watchers LINK COUNT FIRST [--record] [--webrtc aiortc|wrtc]

Joins COUNT guests (named gFIRST onwards; aiortc peers unless told), each watching the terminal
`bench`, and writes one JSON line to stdout per step: `{"joined": [seconds, …]}` (how long each
join took, from its offer to its welcome) once all of them watch it, then for each
phase ("SMALL", "BULK") when every guest has seen its end marker: the characters they received,
the latencies of the stamped lines, how often the terminal skipped one of them ahead, and with
`--record` the frames the first guest received (what the browser hub replays). It leaves when
its stdin closes, at whatever step.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import re
import sys
import time

from canvasrelay.client.guest import Guest
from canvasrelay.net.peer_connection import library

STAMP = re.compile(r"T (\d+)\.(\d+) ")
PHASES = ("SMALL", "BULK")


class Watcher:
    """One guest's view of the terminal: characters received, line latencies, markers seen."""

    def __init__(self) -> None:
        self.bytes = 0
        self.latencies_ms: list[float] = []
        self.replays = 0
        self.text = ""
        self.done: dict[str, asyncio.Event] = {phase: asyncio.Event() for phase in PHASES}
        self.record: list[str] | None = None

    def on_frame(self, frame: dict[str, object]) -> None:
        if frame.get("t") != "term-data":
            return
        if self.record is not None:
            self.record.append(str(frame.get("data", "")))
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

    def restart(self) -> None:
        """Count the next phase from zero."""
        self.bytes, self.latencies_ms, self.replays = 0, [], 0


def report(line: dict[str, object]) -> None:
    sys.stdout.write(json.dumps(line) + "\n")
    sys.stdout.flush()


async def watch(link: str, count: int, first: int, record: bool, webrtc: str) -> None:
    guests: list[Guest] = []
    # The benchmark closes stdin when it is done with these guests, or by ending, however it ends.
    released = asyncio.get_running_loop().run_in_executor(None, sys.stdin.read)
    steps = asyncio.ensure_future(_steps(link, count, first, record, webrtc, guests))
    try:
        await asyncio.wait({steps, released}, return_when=asyncio.FIRST_COMPLETED)
        if steps.done():
            steps.result()
            await released
    finally:
        steps.cancel()
        for guest in guests:
            await guest.close()


async def _steps(link: str, count: int, first: int, record: bool, webrtc: str, guests: list[Guest]) -> None:
    watchers: list[Watcher] = []
    joins = []
    for index in range(first, first + count):
        started = time.monotonic()
        guest = await Guest(link, name=f"g{index}", webrtc=library(webrtc)).connect()
        await guest.expect("welcome")
        joins.append(time.monotonic() - started)
        guests.append(guest)
        await guest.send({"t": "term-open", "id": "bench"})
        watchers.append(Watcher())
        guest.listeners.append(watchers[-1].on_frame)
    report({"joined": joins})
    for phase in PHASES:
        if record:
            watchers[0].record = []
        await asyncio.gather(*(watcher.done[phase].wait() for watcher in watchers))
        report(
            {
                "phase": phase,
                "bytes": sum(watcher.bytes for watcher in watchers),
                "latencies_ms": [x for watcher in watchers for x in watcher.latencies_ms],
                # Each guest's first frame replays the scrollback as it joins: not a skip.
                "replays": sum(watcher.replays for watcher in watchers) - (count if phase == "SMALL" else 0),
                "frames": watchers[0].record or [],
            }
        )
        for watcher in watchers:
            watcher.restart()


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("link")
    parser.add_argument("count", type=int)
    parser.add_argument("first", type=int)
    parser.add_argument("--record", action="store_true")
    parser.add_argument("--webrtc", default="aiortc", choices=("aiortc", "wrtc"))
    args = parser.parse_args()
    asyncio.run(watch(args.link, args.count, args.first, args.record, args.webrtc))
