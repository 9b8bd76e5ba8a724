"""Loop latency: the host's ping round trip while one guest storms the server.

Run: `python -m tests.bench.loop_latency [--storm files|history|awareness|board|all] [--server-src DIR]`.

It starts `canvas serve` in its own process on a fresh git repository (500 files of 2 KB in `src/`,
and, for the history storm, a stored session of 20,000 events), connects the host from this
process, and measures the host's ping round trip (every 20 ms) while nobody else is there, then
while one guest, in a process of its own, storms the server:

- files: an edit guest opens 3,000 names that do not exist (yet) in `src/` and the 500 real files,
  paced just under the inbound gate's rate, each open answered before the window moves on;
- history: a view guest asks for the 20,000-event session's history 100 times a second for 15 s;
- awareness: a view guest sends a 33 KB presence (200 items selected, 200 dragged) 100 times a
  second for 15 s, while a second guest watches the room;
- board: a guest joins a stored board of 9 MiB and loads the whole of it, five times in turn
  (the issue's goal: the host's ping p99 under 50 ms meanwhile).

It prints the host's ping p50/p99/max in each phase and how many storm requests were answered.
`--server-src` runs the server from another source tree (e.g. an export of an earlier commit), so
the figures before and after a change come from the same script.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from tests.bench.process_cpu import settled
from tests.support import HostClient, ServerProcess, open_paced

REAL_FILES = 500
MISSING_NAMES = 3000
HISTORY_EVENTS = 20_000
STORM_RATE = 100.0
STORM_SECONDS = 15.0
STORMS = ["files", "history", "awareness", "board"]
BOARD_MIB = 9.0
BOARD_JOINS = 5
PING_EVERY_S = 0.02
IDLE_SECONDS = 3.0


def make_project(root: Path, history: bool, board: bool) -> None:
    (root / "src").mkdir(parents=True)
    for i in range(REAL_FILES):
        (root / "src" / f"f{i}.txt").write_text(f"file {i}\n" + "x" * 2000 + "\n")
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    if board:
        from tests.test_board_bounds import stored_board

        stored_board(root, BOARD_MIB)
    if history:
        # The store of the server under test, so its schema is the one it expects.
        from canvasrelay.server.room_secrets import ensure_private_dir
        from canvasrelay.server.store import open_store

        store = open_store(ensure_private_dir(root / ".canvas"))
        store.create_session("big", "demo", "a long session")
        update = {"sessionUpdate": "agent_message_chunk", "content": {"type": "text", "text": "word "}}
        events = [
            {"seq": 1, "kind": "turn", "text": "go", "author": "host", "time": 0},
            *({"seq": seq, "kind": "chunk", "update": update} for seq in range(2, HISTORY_EVENTS)),
            {"seq": HISTORY_EVENTS, "kind": "turn-end"},
        ]
        # Rows and head in the store's JSON, written directly: the same for the server of any source.
        head = {"status": "idle", "lastSeq": HISTORY_EVENTS, "open": [], "turnOpen": False}
        with store.db:
            store.db.executemany(
                "INSERT INTO session_events (session_id, seq, event) VALUES (?, ?, ?)",
                [("big", event["seq"], json.dumps(event)) for event in events],
            )
            store.db.execute(
                "UPDATE sessions SET meta = ?, head = ? WHERE id = 'big'",
                (json.dumps({"agentLabel": "Demo agent"}), json.dumps(head)),
            )
        store.close()


async def ping_until(host: HostClient, done: asyncio.Future[object] | None, seconds: float) -> list[float]:
    """Round trips in ms, one every `PING_EVERY_S`, for `seconds` or until `done`."""
    samples: list[float] = []
    end = time.monotonic() + seconds
    while time.monotonic() < end and not (done is not None and done.done()):
        start = time.perf_counter()
        await host.send({"t": "ping"})
        await host.expect("pong", timeout=60)
        samples.append((time.perf_counter() - start) * 1000)
        host.seen.clear()
        await asyncio.sleep(PING_EVERY_S)
    return samples


def figures(samples: list[float]) -> str:
    ordered = sorted(samples)
    p99 = ordered[min(len(ordered) - 1, int(len(ordered) * 0.99))]
    median = statistics.median(ordered)
    return f"p50 {median:7.1f} ms   p99 {p99:7.1f} ms   max {ordered[-1]:7.1f} ms   ({len(ordered)} pings)"


async def run(storm: str, server_src: str | None) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp) / "project"
        make_project(root, history=storm == "history", board=storm == "board")
        env = {"PYTHONPATH": server_src} if server_src else {}
        server = ServerProcess(root, env=env, cwd=root).start()
        assert server.proc is not None
        await settled(server.proc.pid)
        host = await HostClient.connect(server)
        try:
            if storm == "files":
                await host.send({"t": "room-set-access", "access": "edit"})
                await host.expect("guests", defaultAccess="edit")
            idle = await ping_until(host, None, IDLE_SECONDS)
            guest = await asyncio.create_subprocess_exec(
                sys.executable,
                "-m",
                "tests.bench.loop_latency",
                "--guest",
                storm,
                server.room_link,
                stdout=asyncio.subprocess.PIPE,
                env={**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[2])},
            )
            finished = asyncio.ensure_future(guest.communicate())
            during = await ping_until(host, finished, 600)
            out, _ = await finished
            print(f"{storm} storm, server from {server_src or 'this tree'}")
            print(f"  host ping, idle:        {figures(idle)}")
            print(f"  host ping, under storm: {figures(during)}")
            print(f"  storm guest: {out.decode().strip()}")
        finally:
            await host.close()
            server.stop()


async def files_storm(guest: Any) -> tuple[int, str]:
    names = [f"src/missing-{i}.txt" for i in range(MISSING_NAMES)] + [f"src/f{i}.txt" for i in range(REAL_FILES)]
    answered = await open_paced(guest, names)
    return len(names), f"{answered} answered"


async def paced(guest: Any, frame: Callable[[int], dict[str, Any]]) -> int:
    """`STORM_RATE` frames a second for `STORM_SECONDS`; returns how many were sent."""
    count = int(STORM_RATE * STORM_SECONDS)
    start = time.monotonic()
    for i in range(count):
        await guest.send(frame(i))
        await asyncio.sleep(max(0.0, start + (i + 1) / STORM_RATE - time.monotonic()))
    return count


def counting(guest: Any, t: str) -> Callable[[], int]:
    seen = 0

    def on_frame(frame: dict[str, Any]) -> None:
        nonlocal seen
        seen += frame.get("t") == t

    guest.listeners.append(on_frame)
    return lambda: seen


async def history_storm(guest: Any) -> tuple[int, str]:
    pages = counting(guest, "agent-history")
    sent = await paced(guest, lambda _: {"t": "agent-history-request", "sessionId": "big", "after": 0})
    return sent, f"{pages()} history pages received"


async def awareness_storm(guest: Any, link: str) -> tuple[int, str]:
    from canvasrelay.client.guest import Guest

    watcher = await Guest(link, name="watcher", color="#3366aa").connect()
    relayed = counting(watcher, "awareness")
    ids = [f"{i:064d}" for i in range(200)]
    dragging = [{"id": item, "x": 1234567.125, "y": -1234567.125} for item in ids]

    def fat(i: int) -> dict[str, Any]:
        state = {"name": "storm", "color": "#aa3366", "cursor": {"x": i, "y": 0}, "selection": ids}
        return {"t": "awareness", "state": {**state, "dragging": dragging}}

    sent = await paced(guest, fat)
    await watcher.close()
    return sent, f"{relayed()} presence frames relayed to another guest"


async def board_storm(link: str) -> tuple[int, str]:
    """Guests join the big board one after another, each loading the whole of it."""
    from canvasrelay.client.guest import Guest
    from tests.test_board_bounds import load_board

    took = []
    for n in range(BOARD_JOINS):
        start = time.monotonic()
        joiner = await Guest(link, name=f"joiner {n}", color="#3366aa").connect()
        await load_board(joiner)
        took.append(time.monotonic() - start)
        await joiner.close()
    return BOARD_JOINS, "each joined and loaded the board in " + ", ".join(f"{t:.1f}" for t in took) + " s"


async def guest_storm(kind: str, link: str) -> None:
    from canvasrelay.client.guest import Guest

    guest = await Guest(link, name="storm", color="#aa3366").connect()
    await guest.expect("access")
    start = time.monotonic()
    if kind == "files":
        sent, outcome = await files_storm(guest)
    elif kind == "board":
        await guest.close()
        sent, outcome = await board_storm(link)
    elif kind == "history":
        sent, outcome = await history_storm(guest)
    else:
        sent, outcome = await awareness_storm(guest, link)
    print(f"{sent} frames in {time.monotonic() - start:.1f} s, {outcome}")
    await guest.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--storm", choices=[*STORMS, "all"], default="all")
    parser.add_argument("--server-src", help="run the server from this source tree")
    parser.add_argument("--guest", nargs=2, metavar=("KIND", "LINK"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.guest:
        asyncio.run(guest_storm(*args.guest))
        return
    for storm in STORMS if args.storm == "all" else [args.storm]:
        asyncio.run(run(storm, args.server_src))


if __name__ == "__main__":
    main()
