"""Ending asyncio tasks: what every adapter that keeps a task of its own needs when it closes."""

from __future__ import annotations

import asyncio
import contextlib
from typing import Any


async def cancelled(task: asyncio.Task[Any] | None) -> None:
    """Cancel one task and wait until it has ended (its cancellation is not an error)."""
    if task is not None:
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await task
