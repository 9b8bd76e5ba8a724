"""Work that runs only while someone is in the room, so an empty room costs (almost) no CPU.

A room nobody has open still answers offers and keeps its links, but nothing in it needs a timer:
presence to expire, approvals to time out, latency figures to show, files to watch for readers.
`Runtime` tells an `Occupancy` when the first peer arrives and when the last one leaves; what
registered with it starts and stops then.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable

from canvasrelay.net.tasks import cancelled

log = logging.getLogger(__name__)


class Occupancy:
    """Calls each `on_first` when the room goes from empty to occupied, each `on_last` the other way."""

    def __init__(self) -> None:
        self.occupied = False
        self._first: list[Callable[[], None]] = []
        self._last: list[Callable[[], None]] = []

    def register(self, on_first: Callable[[], None], on_last: Callable[[], None]) -> None:
        self._first.append(on_first)
        self._last.append(on_last)
        if self.occupied:
            on_first()

    def changed(self, peers: int) -> None:
        occupied = peers > 0
        if occupied == self.occupied:
            return
        self.occupied = occupied
        for hook in self._first if occupied else self._last:
            hook()


class Periodic:
    """`step()` every `interval` seconds between `start()` and `stop()`; nothing at all otherwise.

    A step that fails is logged and the next one runs as usual."""

    def __init__(self, name: str, interval: float, step: Callable[[], Awaitable[None]]) -> None:
        self.name = name
        self.interval = interval
        self.step = step
        self._task: asyncio.Task[None] | None = None
        self._stepping = False

    @property
    def running(self) -> bool:
        return self._task is not None

    def while_occupied(self, occupancy: Occupancy) -> Periodic:
        occupancy.register(self.start, self.stop)
        return self

    def start(self) -> None:
        if self._task is None:
            self._task = asyncio.get_running_loop().create_task(self._run())

    def stop(self) -> None:
        task, self._task = self._task, None
        # A step under way finishes (it may be sending what it decided); the loop ends after it.
        if task is not None and not self._stepping:
            task.cancel()

    async def close(self) -> None:
        task, self._task = self._task, None
        await cancelled(task)

    async def _run(self) -> None:
        me = asyncio.current_task()
        while True:
            await asyncio.sleep(self.interval)
            if self._task is not me:
                return
            self._stepping = True
            try:
                await self.step()
            except Exception:
                log.exception("%s failed", self.name)
            finally:
                self._stepping = False
