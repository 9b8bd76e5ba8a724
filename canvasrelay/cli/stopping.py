"""What stops a running `canvas` command: Ctrl-C, SIGTERM, the terminal closing (SIGHUP), and
the loss of its stdout or stderr (a closed terminal, a `| tee` that died). Each is a clean stop:
the agents and terminals are ended before canvas exits, never left to run without it."""

from __future__ import annotations

import asyncio
import contextlib
import os
import select
import signal
import stat
import sys
import threading

STOP_SIGNALS = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)


def stop_event() -> asyncio.Event:
    """An event set by any of the stops above."""
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for signum in STOP_SIGNALS:
        loop.add_signal_handler(signum, stop.set)
    watched = [fd for fd in (sys.stdout.fileno(), sys.stderr.fileno()) if _can_hang_up(fd)]
    if watched:
        threading.Thread(target=_wait_hang_up, args=(watched, loop, stop), daemon=True).start()
    return stop


def _can_hang_up(fd: int) -> bool:
    try:
        mode = os.fstat(fd).st_mode
    except OSError:
        return False
    return stat.S_ISFIFO(mode) or stat.S_ISSOCK(mode) or os.isatty(fd)


def _wait_hang_up(fds: list[int], loop: asyncio.AbstractEventLoop, stop: asyncio.Event) -> None:
    # Registered for no event, poll reports only errors and hang-ups: the reader of a pipe gone,
    # a socket's peer closed, a terminal closed.
    poll = select.poll()
    for fd in fds:
        poll.register(fd, 0)
    poll.poll()
    with contextlib.suppress(RuntimeError):  # the loop closed first
        loop.call_soon_threadsafe(stop.set)


def say(text: str) -> None:
    """Print a line, unless nobody reads stdout any more."""
    with contextlib.suppress(OSError, ValueError):
        print(text, flush=True)
