"""An empty room runs no timer and watches no folder; the next visitor still sees what changed."""

from __future__ import annotations

import asyncio
from pathlib import Path

from canvasrelay.server.app import CanvasServer, ServeOptions
from canvasrelay.server.occupancy import Occupancy, Periodic
from tests.support import HostClient, InProcessServer


async def test_a_periodic_step_runs_only_between_start_and_stop() -> None:
    steps: list[int] = []
    stepped = asyncio.Event()

    async def step() -> None:
        steps.append(len(steps))
        stepped.set()

    occupancy = Occupancy()
    periodic = Periodic("test step", 0.01, step).while_occupied(occupancy)
    await asyncio.sleep(0.05)
    assert steps == [] and not periodic.running
    occupancy.changed(peers=1)
    await asyncio.wait_for(stepped.wait(), 5)
    occupancy.changed(peers=2)
    assert periodic.running
    occupancy.changed(peers=0)
    assert not periodic.running
    after_stop = len(steps)
    await asyncio.sleep(0.05)
    assert len(steps) == after_stop
    await periodic.close()


async def test_a_step_that_fails_is_followed_by_the_next() -> None:
    calls: list[str] = []
    again = asyncio.Event()

    async def step() -> None:
        calls.append("step")
        if len(calls) == 1:
            raise RuntimeError("a bug in one step")
        again.set()

    periodic = Periodic("test step", 0.01, step)
    periodic.start()
    await asyncio.wait_for(again.wait(), 5)
    await periodic.close()
    assert len(calls) >= 2


async def test_an_empty_room_sleeps_and_its_next_visitor_sees_the_files_changed_meanwhile(project: Path) -> None:
    server = CanvasServer(ServeOptions(root=project))
    await server.start()
    try:
        ticks = [server.runtime.clock, *server.hub._periodic]  # type: ignore[union-attr]
        assert not server.runtime.occupancy.occupied
        assert not any(tick.running for tick in ticks)

        host = await HostClient.connect(InProcessServer(server))
        assert all(tick.running for tick in ticks)
        await host.close()
        async with asyncio.timeout(10):
            while server.runtime.occupancy.occupied:
                await asyncio.sleep(0.01)
        assert not any(tick.running for tick in ticks)

        # Nobody watches the folder now; a file made meanwhile is in the next visitor's tree.
        (project / "made-while-empty.md").write_text("# hello\n")
        host = await HostClient.connect(InProcessServer(server))
        await host.send({"t": "tree-watch"})
        async with asyncio.timeout(10):
            while "made-while-empty.md" not in (await host.expect("tree"))["paths"]:
                pass
        await host.close()
    finally:
        await server.stop()
