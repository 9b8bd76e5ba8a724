"""A guest's board edits while the host's timeline is closed, then open and following the room.

    .venv/bin/python -m tests.bench.replay_live [--edits 300] [--board 5000] [--events 10000] [--mb 50]

Gives `canvas serve` (its own process) a two-hour room's recording first (`replay_open`'s: board
updates, session events, terminal output), then joins an edit guest (this process's WebRTC, through
the hub's data channel) that moves a note every `EDIT_GAP_S`; an edit's latency is from the guest's
send to the host's WebSocket receiving it. First with the timeline closed; then with it open as the
host page has it: the whole recording fetched once (`/api/replay`, the open), then what came after
its end every two seconds (`/api/replay?after=T`, the following), each file read and checked as the
page reads it. Scrubbing itself is the page's alone (no request), so this is all the server does
for a host who scrubs. Prints p50/p99/max for the closed timeline, the open one while it follows,
and the edits made while the open's export ran, with the export's and the polls' times.
"""

from __future__ import annotations

import argparse
import asyncio
import base64
import os
import statistics
import tempfile
import time
from pathlib import Path

import aiohttp
from pycrdt import Doc, Map, Text

from canvasrelay.client.guest import Guest
from canvasrelay.core.replay_file import read_replay
from canvasrelay.protocol.board_items import ITEMS
from canvasrelay.server.canvas_dir import DIR_MODE
from tests.bench.process_cpu import settled
from tests.bench.replay_open import record
from tests.support import HostClient, ServerProcess

EDIT_GAP_S = 0.05
FOLLOW_EVERY_S = 2.0
"""As the host page's timeline polls (`ReplayView`'s FOLLOW_MS)."""


class Note:
    """The guest's note, moved one step per edit: each edit is a small update, as a drag's are."""

    def __init__(self) -> None:
        self.doc: Doc = Doc()
        self.items = self.doc.get(ITEMS, type=Map)
        self.moves = 0

    def update(self) -> str:
        before = self.doc.get_state()
        with self.doc.transaction():
            if "bench" not in self.items:
                self.items["bench"] = Map(
                    {"kind": "note", "x": 0.0, "y": 0.0, "w": 160.0, "h": 100.0, "text": Text("moving")}
                )
            else:
                self.moves += 1
                self.items["bench"]["x"] = float(self.moves % 500)
        return base64.b64encode(self.doc.get_update(before)).decode()


async def edits(guest: Guest, host: HostClient, note: Note, count: int) -> list[tuple[float, float]]:
    """(when sent, milliseconds until the host had it) for each of `count` edits."""
    out: list[tuple[float, float]] = []
    for _ in range(count):
        await asyncio.sleep(EDIT_GAP_S)
        sent = time.perf_counter()
        await guest.send({"t": "board-update", "update": note.update()})
        await host.expect("board-update")
        host.seen.clear()
        out.append((sent, (time.perf_counter() - sent) * 1000))
    return out


class Timeline:
    """The host page's open timeline, as its requests: the open, then the following."""

    def __init__(self, server: ServerProcess) -> None:
        self.server = server
        self.opened: tuple[float, float] = (0.0, 0.0)
        self.polls: list[float] = []

    async def _fetch(self, http: aiohttp.ClientSession, query: str) -> float:
        headers = {"Authorization": f"Bearer {self.server.token}"}
        async with http.get(f"{self.server.base_url}/api/replay{query}", headers=headers) as response:
            assert response.status == 200, await response.text()
            blob = await response.read()
        _, room, _ = await asyncio.to_thread(read_replay, blob)
        return room.end

    async def follow(self, stop: asyncio.Event) -> None:
        async with aiohttp.ClientSession() as http:
            began = time.perf_counter()
            end = await self._fetch(http, "")
            self.opened = (began, time.perf_counter())
            while not stop.is_set():
                try:
                    await asyncio.wait_for(stop.wait(), FOLLOW_EVERY_S)
                except TimeoutError:
                    began = time.perf_counter()
                    end = max(end, await self._fetch(http, f"?after={end}"))
                    self.polls.append((time.perf_counter() - began) * 1000)


def figures(name: str, times: list[float]) -> str:
    if len(times) < 2:
        return f"{name:<34} {len(times)} edits"
    cuts = statistics.quantiles(times, n=100, method="inclusive")
    return (
        f"{name:<34} p50 {statistics.median(times):6.2f} ms   p99 {cuts[98]:6.2f} ms   "
        f"max {max(times):7.2f} ms   ({len(times)} edits)"
    )


async def run(count: int, board: int, events: int, mb: float) -> None:
    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder) / "project"
        (root / ".canvas").mkdir(parents=True, mode=DIR_MODE)
        record(root / ".canvas", board, events, mb)
        server = ServerProcess(root).start()
        try:
            await settled(server.proc.pid)  # type: ignore[union-attr]
            host = await HostClient.connect(server)
            guest = await Guest(server.room_link, name="Ada").connect()
            await guest.expect("access")
            await host.send({"t": "guest-set-access", "guestId": guest.guest_id, "access": "edit"})
            await guest.expect("access", access="edit")
            note = Note()
            await edits(guest, host, note, 20)  # the link warmed up
            closed = await edits(guest, host, note, count)

            timeline = Timeline(server)
            stop = asyncio.Event()
            following = asyncio.create_task(timeline.follow(stop))
            opened = await edits(guest, host, note, count)
            stop.set()
            await following
            await guest.close()
            await host.close()
        finally:
            server.stop()
    start, end = timeline.opened
    during = [ms for sent, ms in opened if start <= sent <= end]
    after = [ms for sent, ms in opened if sent > end]
    print(
        f"a guest's board edits, {count} each way, one every {EDIT_GAP_S * 1000:.0f} ms, over a recording of "
        f"{board} board updates, {events} events and {mb:.0f} MB of output; load {os.getloadavg()[0]:.2f}"
    )
    print(figures("timeline closed", [ms for _, ms in closed]))
    print(figures("timeline open, following the room", after))
    print(figures("while the open's export ran", during))
    polls = timeline.polls
    print(
        f"the open (the whole recording's export, read and checked): {(end - start):.2f} s; "
        f"{len(polls)} polls for what came after, median {statistics.median(polls) if polls else 0:.0f} ms"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--edits", type=int, default=300)
    parser.add_argument("--board", type=int, default=5000)
    parser.add_argument("--events", type=int, default=10000)
    parser.add_argument("--mb", type=float, default=50.0)
    args = parser.parse_args()
    asyncio.run(run(args.edits, args.board, args.events, args.mb))


if __name__ == "__main__":
    main()
