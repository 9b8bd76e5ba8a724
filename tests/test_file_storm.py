"""An edit guest opens 1,000 names that do not exist and 200 real files while the host pings.

Every open and every ping is answered, and once the guest has left the server holds what it held
before: no file entry, watch or judgement of the guest's stays behind, and its memory is back
within 10 %. How fast the host's pings come back meanwhile is a benchmark
(`python -m tests.bench.loop_latency --storm files`), not asserted here.
"""

from __future__ import annotations

import asyncio
import contextlib
import ctypes
import gc
import subprocess
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from canvasrelay.client.guest import Guest
from canvasrelay.core.shared_files import MAX_OPEN_PER_PEER, SharedFiles
from canvasrelay.server.app import CanvasServer, ServeOptions
from canvasrelay.server.files.host import FileHost
from canvasrelay.server.guests import hub
from tests.support import HostClient, InProcessServer, open_paced

pytestmark = [pytest.mark.paced, pytest.mark.timeout(300)]

REAL = 200
MISSING = 1000


def rss_kb() -> int:
    """This process's resident memory once Python and the C allocator have given back what is free:
    what is still held, not what glibc keeps cached in the arenas of the threads that read files."""
    gc.collect()
    with contextlib.suppress(OSError, AttributeError):
        ctypes.CDLL("libc.so.6").malloc_trim(0)
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    raise AssertionError("no VmRSS")


@pytest.fixture
async def served(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> AsyncIterator[InProcessServer]:
    monkeypatch.setattr(hub, "RESUME_GRACE", 0.5)
    root = tmp_path / "project"
    (root / "src").mkdir(parents=True)
    for i in range(REAL):
        (root / "src" / f"f{i}.txt").write_text(f"file {i}\n" + "x" * 20_000)
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    server = CanvasServer(ServeOptions(root=root))
    await server.start()
    yield InProcessServer(server)
    await server.stop()


async def test_a_file_open_storm_is_all_answered_and_leaves_nothing_behind(
    served: InProcessServer, host_client: HostClient
) -> None:
    server: Any = served.server
    file_host: FileHost = server.files
    files: SharedFiles = file_host.room_side
    assert file_host.watcher is not None
    await host_client.send({"t": "room-set-access", "access": "edit"})
    await host_client.expect("guests", defaultAccess="edit")

    async def join_and_open(names: list[str]) -> int:
        guest = await Guest(served.room_link, name="Storm", color="#aa3366", reconnect=False).connect()
        await guest.expect("access")
        answered = await open_paced(guest, names)
        held = files.held.get(guest.welcome["peerId"], {})
        assert len(held) == min(len(names), MAX_OPEN_PER_PEER), "a peer holds a bounded number of files"
        await guest.close()
        return answered

    async def gone() -> None:
        """Until the hub has let the guest go (its grace passed) and the hosts were told."""
        async with asyncio.timeout(30):
            while server.hub.live or len(server.room.peers) > 1:
                await host_client.expect("guests")

    # One guest first, so what any guest costs once (code paths, caches) is in the baseline.
    await join_and_open(["src/f0.txt", "src/missing-warm.txt"])
    await gone()
    before = (rss_kb(), dict(files.holders), dict(files.held), len(file_host.watcher._open))

    pings = 0
    storming = True

    async def ping() -> None:
        nonlocal pings
        while storming:
            await host_client.send({"t": "ping"})
            await host_client.expect("pong", timeout=30)
            host_client.seen.clear()
            pings += 1
            await asyncio.sleep(0.02)

    pinger = asyncio.get_running_loop().create_task(ping())
    names = [f"src/missing-{i}.txt" for i in range(MISSING)] + [f"src/f{i}.txt" for i in range(REAL)]
    answered = await join_and_open(names)
    storming = False
    await pinger
    await gone()
    assert answered == len(names)
    assert pings > 100
    after = (rss_kb(), dict(files.holders), dict(files.held), len(file_host.watcher._open))
    assert after[1:] == before[1:]
    assert after[0] <= before[0] * 1.10, f"RSS {before[0]} kB before, {after[0]} kB after"
