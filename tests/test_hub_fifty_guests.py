"""Fifty real aiortc guests in one room watch one real shell: each sees its output whole and in order.

`canvas serve` runs in its own process (the hub, as a host runs it); the guests share this one.
The test is bounded in time as a whole; how fast it goes is `tests/bench/guest_fanout`'s business.
"""

from __future__ import annotations

import asyncio
import re
from pathlib import Path

import pytest

from canvasrelay.client.guest import Guest
from tests.support import HostClient, ServerProcess

pytestmark = [pytest.mark.paced, pytest.mark.timeout(600)]

GUESTS = 50
LINES = 2000
JOINING_AT_ONCE = 8
"""Under the hub's bound on handshakes at once, so no guest is turned away and retries."""
TERMINAL = "T"


class Screen:
    """What one guest received of the terminal, as text, in the order it arrived."""

    def __init__(self) -> None:
        self.text: list[str] = []
        self.ended = asyncio.Event()

    def on_frame(self, frame: dict[str, object]) -> None:
        if frame.get("t") == "term-data" and frame.get("id") == TERMINAL:
            self.text.append(str(frame.get("data", "")))
            if "END-2" in "".join(self.text[-2:]):
                self.ended.set()

    def numbers(self) -> list[int]:
        whole = "".join(self.text)
        between = whole[whole.index("BEGIN-2") + len("BEGIN-2") : whole.index("END-2")]
        return [int(n) for n in re.findall(r"\d+", between)]


async def test_fifty_guests_each_receive_a_terminals_output_whole_and_in_order(project: Path) -> None:
    server = ServerProcess(project, env={"SHELL": "/bin/bash"}).start()
    host = await HostClient.connect(server)
    guests: list[Guest] = []
    try:
        async with asyncio.timeout(480):
            await host.send({"t": "term-open", "id": TERMINAL, "cols": 120, "rows": 40})
            await host.expect("term-data", timeout=30, id=TERMINAL)
            gate = asyncio.Semaphore(JOINING_AT_ONCE)
            screens = [Screen() for _ in range(GUESTS)]

            async def join(n: int) -> Guest:
                async with gate:
                    guest = await Guest(server.room_link, name=f"Guest {n}", record=False, reconnect=False).connect()
                guests.append(guest)
                guest.listeners.append(screens[n].on_frame)
                await guest.send({"t": "term-open", "id": TERMINAL})
                return guest

            await asyncio.gather(*(join(n) for n in range(GUESTS)))
            # The command line itself holds no marker: the shell computes each one as it prints it.
            await host.send(
                {"t": "term-input", "id": TERMINAL, "data": f"echo BEGIN-$((1+1)); seq 1 {LINES}; echo END-$((1+1))\n"}
            )
            await asyncio.gather(*(screen.ended.wait() for screen in screens))
        expected = list(range(1, LINES + 1))
        for n, screen in enumerate(screens):
            assert screen.numbers() == expected, f"guest {n} did not see every line, in order"
    finally:
        await asyncio.gather(*(guest.close() for guest in guests), return_exceptions=True)
        await host.close()
        server.stop()
