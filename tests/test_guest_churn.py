"""60 guests join and leave in turn: afterwards the server holds what it held before.

Each guest joins, is seen (presence), watches the tree, opens a file, pings and leaves. Once the
hub's resume grace and the guests' own grace have passed, the guest list, every per-guest table
of the server, and the process's file descriptors and tasks are back to their size before.
"""

from __future__ import annotations

import asyncio
import os
import time
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

import pytest

from canvasrelay.client.guest import Guest
from canvasrelay.core.shared_files import SharedFiles
from canvasrelay.server.app import CanvasServer, ServeOptions
from canvasrelay.server.guests import hub
from canvasrelay.server.terminals.host import TerminalHost
from tests.support import HostClient, InProcessServer

pytestmark = [pytest.mark.paced, pytest.mark.timeout(600)]

GUESTS = 60
GRACE_S = 0.3


@pytest.fixture
async def served(project: Path, monkeypatch: pytest.MonkeyPatch) -> AsyncIterator[InProcessServer]:
    monkeypatch.setattr(hub, "RESUME_GRACE", GRACE_S)
    server = CanvasServer(ServeOptions(root=project))
    server.guests.forget_after = GRACE_S
    await server.start()
    yield InProcessServer(server)
    await server.stop()


def open_fds() -> int:
    return len(os.listdir("/proc/self/fd"))


async def settles(measure: Callable[[], Any], done: Callable[[Any], bool], within: float = 15.0) -> Any:
    """`measure()` once `done` with it (closing sockets and ending tasks take a few turns of the
    loop), or its last value after `within` seconds."""
    deadline = time.monotonic() + within
    value = measure()
    while not done(value) and time.monotonic() < deadline:
        await asyncio.sleep(0.05)
        value = measure()
    return value


async def test_guests_come_and_go_and_leave_nothing_behind(served: InProcessServer, host_client: HostClient) -> None:
    server: Any = served.server
    presence = server.board.board_room
    files: SharedFiles = server.files.room_side
    terminals: TerminalHost = server.terminals
    await host_client.send({"t": "room-set-access", "access": "edit"})
    await host_client.expect("guests", defaultAccess="edit")

    def tables() -> dict[str, int]:
        return {
            "guests": len(server.guests.guests),
            "pending approvals": len(server.guests.pending),
            "hub guests": len(server.hub.live),
            "hub handshakes": len(server.hub.admission.handshakes),
            "hub tasks": len(server.hub._tasks),
            "room peers": len(server.room.peers),
            "transports": len(server.runtime.transports),
            "presence": len(presence.presence) + len(presence.sent_at) + len(presence.unsent),
            "file holders": len(files.held) + len(files.holders) + len(files.tree_watchers),
            "terminal pumps": len(terminals.pumps),
        }

    async def one_guest(i: int) -> None:
        guest = await Guest(served.room_link, name=f"guest {i}", color="#3366aa", reconnect=False).connect()
        await guest.expect("access")
        state = {"name": "x", "color": "#3366aa", "cursor": {"x": i, "y": 0}, "selection": ["n1"]}
        await guest.send({"t": "awareness", "state": state})
        await guest.send({"t": "tree-watch"})
        await guest.send({"t": "file-open", "path": "README.md"})
        await guest.expect("file", path="README.md")
        await guest.send({"t": "ping"})
        await guest.expect("pong")
        await guest.close()

    emptied = asyncio.Event()

    async def read_host() -> None:
        """The host page reads all along (a socket left unread is dropped as too slow)."""
        while True:
            frame = await host_client.next_frame(timeout=60)
            host_client.seen.clear()
            if frame["t"] == "guests" and not frame["guests"]:
                emptied.set()

    async def all_gone() -> None:
        """Until the hosts are told the list is empty: every guest left and was forgotten."""
        async with asyncio.timeout(30):
            while server.guests.guests or server.hub.live:
                emptied.clear()
                await emptied.wait()

    reader = asyncio.get_running_loop().create_task(read_host())
    await one_guest(0)
    await all_gone()
    # The agents' SDKs load in a thread for a few seconds after start: the baseline comes after.
    await server.deferred.ready()
    before = tables()
    fds, tasks = open_fds(), len(asyncio.all_tasks())

    for i in range(1, GUESTS + 1):
        await one_guest(i)
    await all_gone()

    # The first guest's sockets may still be closing at the baseline: fewer is as good.
    assert await settles(tables, before.__eq__) == before
    assert await settles(open_fds, fds.__ge__) <= fds
    assert await settles(lambda: len(asyncio.all_tasks()), tasks.__ge__) <= tasks
    assert server.guests.guest_list().guests == []
    reader.cancel()
