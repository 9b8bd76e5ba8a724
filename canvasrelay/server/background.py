"""Background work an adapter starts and must end: one place that tracks it, reports its
failures, and cancels and awaits all of it at shutdown.

`asyncio.TaskGroup` ends every task when one fails, which is right for a unit of work and
wrong for a server whose shells, guests and agents fail one at a time; `Background` keeps
TaskGroup's promise that nothing started outlives its owner, without that coupling.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Coroutine
from typing import Any, TypeVar

log = logging.getLogger(__name__)

T = TypeVar("T")


class Background:
    def __init__(self, owner: str) -> None:
        self.owner = owner
        self._tasks: set[asyncio.Task[Any]] = set()

    def __len__(self) -> int:
        return len(self._tasks)

    def spawn(self, work: Coroutine[Any, Any, T]) -> asyncio.Task[T]:
        task = asyncio.get_running_loop().create_task(work)
        self._tasks.add(task)
        task.add_done_callback(self._done)
        return task

    def _done(self, task: asyncio.Task[Any]) -> None:
        self._tasks.discard(task)
        if not task.cancelled() and task.exception() is not None:
            log.error("%s: background task failed", self.owner, exc_info=task.exception())

    async def close(self) -> None:
        """Cancel everything still running and wait until it has ended."""
        while self._tasks:
            tasks = list(self._tasks)
            for task in tasks:
                task.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)
