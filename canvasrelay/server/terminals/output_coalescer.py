"""A shell's output, gathered into chunks for the watchers: shared by the PTY and the tmux terminals."""

from __future__ import annotations

import asyncio
import logging
import os
from collections.abc import Callable

from canvasrelay.core.terminal_output import Scrollback

log = logging.getLogger(__name__)

COALESCE_S = 0.005
COALESCE_BYTES = 64 * 1024


def read_ready(fd: int, size: int) -> bytes | None:
    """A non-blocking read of a shell's output: None when nothing is there yet, b"" at its end
    (EIO too: a PTY whose every slave is closed)."""
    try:
        return os.read(fd, size)
    except BlockingIOError:
        return None
    except OSError:
        return b""


class OutputCoalescer:
    """Gathers output for up to `COALESCE_S` or `COALESCE_BYTES`, whichever comes first.

    The first output after a quiet spell or after input goes at once, so typing echoes without
    that delay, however fast the keys come. Every chunk is in `scrollback` before `emit` sees it.
    """

    def __init__(self, scrollback: Scrollback, emit: Callable[[bytes], None] | None) -> None:
        self.scrollback = scrollback
        self.emit = emit
        self._loop: asyncio.AbstractEventLoop | None = None
        self._out = bytearray()
        self._flush_handle: asyncio.TimerHandle | None = None
        self._last_flush = 0.0
        self._answering_input = False

    def start(self, loop: asyncio.AbstractEventLoop) -> None:
        self._loop = loop

    def input_sent(self) -> None:
        self._answering_input = True

    def feed(self, data: bytes) -> None:
        self._out += data
        if len(self._out) >= COALESCE_BYTES:
            self.flush()
        elif self._answering_input:
            # A keystroke's echo: the person typing waits for it, however soon after the last
            # output it comes.
            self._answering_input = False
            self.flush()
        elif self._flush_handle is None and self._loop is not None:
            # Leading edge: output after a quiet spell goes at once; only what follows within
            # COALESCE_S waits to be gathered.
            if self._loop.time() - self._last_flush >= COALESCE_S:
                self.flush()
            else:
                self._flush_handle = self._loop.call_later(COALESCE_S, self.flush)

    def flush(self) -> None:
        if self._loop is not None:
            self._last_flush = self._loop.time()
        if self._flush_handle is not None:
            self._flush_handle.cancel()
            self._flush_handle = None
        if not self._out:
            return
        chunk = bytes(self._out)
        self._out.clear()
        self.scrollback.append(chunk)
        if self.emit is not None:
            try:
                self.emit(chunk)
            except Exception:
                log.exception("terminal output listener failed")
