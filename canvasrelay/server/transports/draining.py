"""Waiting for a transport's backlog to shrink, woken by its writer rather than by a timer.

A terminal's output for a watcher that is behind waits until that watcher's transport has room;
with fifty guests behind at once, a timer each (every few milliseconds) costs the hub more than
writing does. The writer says when it took something off the backlog; only then is it read again.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable


class Draining:
    def __init__(self, backlog: Callable[[], int]) -> None:
        self._backlog = backlog
        self._lighter = asyncio.Event()

    def took(self) -> None:
        """The writer took frames off the backlog."""
        self._lighter.set()

    async def below(self, chars: int) -> None:
        """Until at most `chars` characters wait (a closed transport's waiter is cancelled with it)."""
        while self._backlog() > chars:
            self._lighter.clear()
            await self._lighter.wait()
