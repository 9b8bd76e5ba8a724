"""Two hundred guests join a real hub and leave it (the hub and the guests on wrtc in this process,
through the real rendezvous): afterwards the process holds no more threads, file descriptors or
native peer connections than after the first guest had come and gone."""

from __future__ import annotations

import asyncio
import contextlib
import gc
import os
import threading
import time
from collections.abc import AsyncIterator
from pathlib import Path
from typing import NamedTuple

import pytest
import wrtc

from canvasrelay.client.guest import Guest
from canvasrelay.net.peer_connection import library
from canvasrelay.server.app import CanvasServer, ServeOptions

pytestmark = [pytest.mark.paced, pytest.mark.timeout(240)]

JOINS = 200
AT_ONCE = 4
ADDRESSES = ("127.0.0.2", "127.0.0.3", "127.0.0.4", "127.0.0.5")
"""Each joiner reaches the rendezvous from an address of its own: one address may send only a few
offers a second, and the room ten, so four addresses join as fast as the room lets anyone."""
SETTLE_S = 10.0


class Held(NamedTuple):
    threads: int
    """The process's threads, libwebrtc's own among them, but for the loop's executor (name lookups
    and `to_thread` calls), which grows up to its bound as requests overlap."""
    descriptors: int
    """Every file descriptor but TCP connections: UDP sockets, pipes, event descriptors, files."""
    peer_connections: int
    """libwebrtc's peer connections not yet freed."""
    factories: int
    """libwebrtc's connection factories, each with threads of its own: the last goes with the last connection."""


def _tcp_inodes() -> set[str]:
    inodes = set()
    for table in ("/proc/self/net/tcp", "/proc/self/net/tcp6"):
        with open(table) as rows:
            inodes |= {row.split()[9] for row in list(rows)[1:]}
    return inodes


def held() -> tuple[Held, int]:
    """What the process holds, and apart from it its TCP connections: the hub's HTTP client keeps
    one alive per credential request that overlapped another (aiohttp closes them when idle)."""
    gc.collect()
    tcp = {f"socket:[{inode}]" for inode in _tcp_inodes()}
    links = []
    for fd in os.listdir("/proc/self/fd"):
        with contextlib.suppress(OSError):
            links.append(os.readlink(f"/proc/self/fd/{fd}"))
    connections = sum(link in tcp for link in links)
    native = wrtc._alive()["RTCPeerConnection"]
    executor = sum(thread.name.startswith("asyncio_") for thread in threading.enumerate())
    threads = len(os.listdir("/proc/self/task")) - executor
    return Held(threads, len(links) - connections, native, wrtc._alive_factories()), connections


async def settled(before: Held | None = None) -> tuple[Held, int]:
    """What the process holds once libwebrtc freed every connection and its factory (on its own
    threads, after the close) and, given `before`, is back to it; or whatever it holds after `SETTLE_S`."""
    deadline = time.monotonic() + SETTLE_S
    now, connections = held()
    while (now.peer_connections or now.factories or (before is not None and now != before)) and (
        time.monotonic() < deadline
    ):
        await asyncio.sleep(0.05)
        now, connections = held()
    return now, connections


@pytest.fixture
async def served(project: Path) -> AsyncIterator[CanvasServer]:
    server = CanvasServer(ServeOptions(root=project))
    assert server.webrtc_library.name == "wrtc"
    await server.start()
    await server.webrtc.ready()
    yield server
    await server.stop()


async def test_two_hundred_joins_and_leaves_leave_nothing_behind(served: CanvasServer) -> None:
    assert served.hub is not None
    hub = served.hub
    emptied = asyncio.Event()
    served.runtime.occupancy.register(emptied.clear, emptied.set)

    async def join_and_leave(number: int) -> None:
        guest = Guest(
            served.room_link,
            name=f"Passing {number}",
            reconnect=False,
            local_address=ADDRESSES[number % len(ADDRESSES)],
            webrtc=library("wrtc"),
        )
        await guest.connect()
        await guest.expect("welcome")
        await guest.close()

    await join_and_leave(0)
    await asyncio.wait_for(emptied.wait(), SETTLE_S)
    before, connections_before = await settled()
    print(f"after the first guest: {before}, {connections_before} TCP connections")

    joiners = asyncio.Semaphore(AT_ONCE)

    async def one(number: int) -> None:
        async with joiners:
            await join_and_leave(number)

    started = time.monotonic()
    await asyncio.gather(*(one(number) for number in range(1, JOINS + 1)))
    took = time.monotonic() - started
    await asyncio.wait_for(emptied.wait(), SETTLE_S)
    after, connections = await settled(before)
    print(f"{JOINS} joins and leaves in {took:.1f} s; then {after}, {connections} TCP connections")
    assert not hub.live and not hub._answering, "the hub let every guest go"
    assert after == before
    assert connections <= connections_before + AT_ONCE
