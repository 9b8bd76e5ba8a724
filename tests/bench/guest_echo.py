"""Keystroke echo: a key typed into a shared terminal, to the host's PTY and back, p50/p99.

Run: `python -m tests.bench.guest_echo [--keys 400] [--watchers 50]`.

It starts `canvas serve` in its own process, opens one shell from a host socket, and types single
keystrokes into it (a letter, then a backspace, in turn), each sent `KEY_GAP_S` after the previous
one's echo came back; the time from a key's send to the first `term-data` after it is that key's echo. First
the host types over its WebSocket; then an edit guest (on this process's WebRTC library), given
control of that terminal by the host, types the same way through the hub's data channel. With
`--watchers N`, N more guests (`guest_watchers`, in processes of their own) watch the terminal all
along, as a room of N would. All run on this machine's loopback, in the same run, with the load
average printed so a reader can tell a noisy run; then the goals at fifty guests (ADR 0027): the
host's echo p50 under 1 ms, a guest's under 1.5 ms.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import time
from collections.abc import Awaitable, Callable
from typing import Any

from canvasrelay.client.guest import Guest
from tests.bench.guest_fanout import Watchers
from tests.bench.process_cpu import settled
from tests.support import HostClient, serving_an_empty_project

TERMINAL = "bench"
"""The terminal `guest_watchers` watch."""
HOST_GOAL_MS, GUEST_GOAL_MS = 1.0, 1.5
KEYS = ("a", "\x7f")
"""A letter and the backspace that takes it back: the shell's line stays short."""
ECHO_TIMEOUT_S = 5.0
KEY_GAP_S = 0.02
"""50 keys a second: faster than a held key repeats (about 30), within a guest's inbound limit
(100 frames a second, which a refused key would show as an error instead of its echo)."""


async def echoes(
    send: Callable[[dict[str, Any]], Awaitable[None]],
    next_frame: Callable[[float], Awaitable[dict[str, Any]]],
    keys: int,
) -> list[float]:
    """Milliseconds from each keystroke's send to the first output of the terminal after it."""
    times: list[float] = []
    for n in range(keys):
        await asyncio.sleep(KEY_GAP_S)
        start = time.perf_counter()
        await send({"t": "term-input", "id": TERMINAL, "data": KEYS[n % len(KEYS)]})
        while True:
            frame = await next_frame(ECHO_TIMEOUT_S)
            if frame.get("t") == "term-data" and frame.get("id") == TERMINAL and not frame.get("replay"):
                break
            if frame.get("t") == "error":
                raise RuntimeError(f"key {n} refused: {frame.get('message')}")
        times.append((time.perf_counter() - start) * 1000)
    return times


async def quiet(next_frame: Callable[[float], Awaitable[dict[str, Any]]], for_s: float = 0.5) -> None:
    """Read until nothing has come for `for_s` (the shell's prompt and any replay are drawn)."""
    while True:
        try:
            await next_frame(for_s)
        except TimeoutError:
            return


def figures(name: str, times: list[float]) -> str:
    cuts = statistics.quantiles(times, n=100)
    return f"{name:<22} p50 {statistics.median(times):6.2f} ms   p99 {cuts[98]:6.2f} ms   max {max(times):6.2f} ms"


async def run(keys: int, watching: int, processes: int, webrtc: str) -> None:
    with serving_an_empty_project() as server:
        await settled(server.proc.pid)  # type: ignore[union-attr]
        host = await HostClient.connect(server)
        await host.send({"t": "term-open", "id": TERMINAL, "cols": 80, "rows": 24})
        await quiet(host.next_frame)
        watchers = Watchers(server.room_link, watching, processes, webrtc)
        if watching:
            await watchers.join()
            await quiet(host.next_frame)
        by_host = await echoes(host.send, host.next_frame, keys)

        guest = await Guest(server.room_link, name="Echo").connect()
        await guest.expect("access")
        await host.send({"t": "guest-set-access", "guestId": guest.guest_id, "access": "edit"})
        await guest.expect("access", access="edit")
        await host.send({"t": "terminal-grant", "guestId": guest.guest_id, "terminalId": TERMINAL, "granted": True})
        await guest.send({"t": "term-open", "id": TERMINAL, "cols": 80, "rows": 24})
        await quiet(guest.next_frame)
        by_guest = await echoes(guest.send, guest.next_frame, keys)
        await guest.close()
        await watchers.close()
        await host.close()
    print(f"keystroke echo, {keys} keys each, {watching} {webrtc} guests watching, load {os.getloadavg()[0]:.2f}")
    print(figures("host (WebSocket)", by_host))
    print(figures("guest (data channel)", by_guest))
    if watching >= 50:
        for name, times, goal in (("host", by_host, HOST_GOAL_MS), ("guest", by_guest, GUEST_GOAL_MS)):
            p50 = statistics.median(times)
            verdict = "met" if p50 < goal else "missed"
            print(f"{name}'s echo p50 {p50:.2f} ms at {watching} guests (goal < {goal} ms: {verdict})")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--keys", type=int, default=400)
    parser.add_argument("--watchers", type=int, default=0, help="guests watching the terminal meanwhile")
    parser.add_argument("--watcher-processes", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--watcher-webrtc", default="wrtc", choices=("wrtc", "aiortc"))
    args = parser.parse_args()
    asyncio.run(run(args.keys, args.watchers, args.watcher_processes, args.watcher_webrtc))


if __name__ == "__main__":
    main()
