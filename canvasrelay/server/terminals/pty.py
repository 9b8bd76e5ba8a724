"""A terminal whose shell is canvas's own child, in a real PTY: it ends when canvas stops.

Used where tmux is missing (see `terminals/tmux.py` for shells that outlive the server).
"""

from __future__ import annotations

import asyncio
import contextlib
import fcntl
import logging
import os
import pty
import signal
import struct
import termios
from collections.abc import Callable, Mapping
from pathlib import Path

from canvasrelay.core.terminal_output import SCROLLBACK_BYTES, Scrollback
from canvasrelay.server.terminals.output_coalescer import OutputCoalescer, read_ready
from canvasrelay.server.terminals.shell_processes import MARK, ShellProcesses

log = logging.getLogger(__name__)

READ_BYTES = 64 * 1024
MAX_PENDING_INPUT = 1024 * 1024
CLOSE_GRACE_S = 0.5
# After the shell exits, background jobs may still hold the PTY open; output they already
# wrote is collected for this long before the session is torn down.
DRAIN_AFTER_EXIT_S = 0.2


def _take_controlling_tty() -> None:
    # Runs in the child after setsid(): the PTY slave on fd 0 becomes the session's
    # controlling terminal, which job control and SIGWINCH delivery need.
    fcntl.ioctl(0, termios.TIOCSCTTY, 0)


def _set_winsize(fd: int, cols: int, rows: int) -> None:
    fcntl.ioctl(fd, termios.TIOCSWINSZ, struct.pack("HHHH", rows, cols, 0, 0))


def _clamp(value: int) -> int:
    return max(1, min(int(value), 10_000))


class Terminal:
    """The user's shell in a PTY, in `cwd`, with coalesced output and a scrollback ring.

    `on_output` gets the chunks an `OutputCoalescer` gathers; `on_exit` gets the shell's
    exit status (128 + n when killed by signal n), once, after the last output.
    """

    def __init__(
        self,
        cwd: Path,
        on_output: Callable[[bytes], None] | None = None,
        on_exit: Callable[[int], None] | None = None,
        shell: str | None = None,
        env: Mapping[str, str] | None = None,
        scrollback_bytes: int = SCROLLBACK_BYTES,
    ) -> None:
        self.cwd = cwd
        self.on_exit = on_exit
        self.shell = shell or os.environ.get("SHELL") or "/bin/bash"
        self._env = dict(os.environ if env is None else env)
        self._env["TERM"] = "xterm-256color"
        self.scrollback = Scrollback(scrollback_bytes)
        self._output = OutputCoalescer(self.scrollback, on_output)
        self.exit_code: int | None = None
        self.pid: int | None = None
        self._proc: asyncio.subprocess.Process | None = None
        self._master: int | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._in = bytearray()
        self._writing = False
        self._eof = asyncio.Event()
        self._exited = asyncio.Event()
        self._waiter: asyncio.Task[None] | None = None

    async def start(self, cols: int = 80, rows: int = 24) -> None:
        if self._proc is not None:
            raise RuntimeError("terminal already started")
        self._loop = asyncio.get_running_loop()
        self._output.start(self._loop)
        master, slave = pty.openpty()
        try:
            _set_winsize(slave, _clamp(cols), _clamp(rows))
            self._proc = await asyncio.create_subprocess_exec(
                self.shell,
                stdin=slave,
                stdout=slave,
                stderr=slave,
                cwd=self.cwd,
                env=self._env,
                start_new_session=True,
                preexec_fn=_take_controlling_tty,
            )
        except BaseException:
            os.close(master)
            raise
        finally:
            # Only the child may hold the slave, or reading the master never sees EOF.
            os.close(slave)
        self.pid = self._proc.pid
        self._master = master
        os.set_blocking(master, False)
        self._loop.add_reader(master, self._on_readable)
        self._waiter = asyncio.create_task(self._wait_exit())
        if self._in:
            self._output.input_sent()
            self._drain_input()

    @property
    def running(self) -> bool:
        return self._proc is not None and not self._exited.is_set()

    def write(self, data: str | bytes) -> bool:
        """Queue input for the shell (what comes while it starts waits for it); False when dropped
        (exited, or input backlog full)."""
        if self._exited.is_set():
            return False
        raw = data.encode("utf-8") if isinstance(data, str) else data
        if len(self._in) + len(raw) > MAX_PENDING_INPUT:
            log.warning("terminal %s: input backlog full, dropping %d bytes", self.pid, len(raw))
            return False
        self._in += raw
        if self._master is not None:
            self._output.input_sent()
            self._drain_input()
        return True

    def resize(self, cols: int, rows: int) -> None:
        if not self.running or self._master is None or self.pid is None:
            return
        _set_winsize(self._master, _clamp(cols), _clamp(rows))
        # The kernel signals the foreground job; the shell's own group is told as well.
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(self.pid, signal.SIGWINCH)

    async def wait(self) -> int:
        await self._exited.wait()
        assert self.exit_code is not None
        return self.exit_code

    async def close(self) -> None:
        """Hang up the session, kill what is left after a short grace, and reap."""
        if self._proc is None or self._waiter is None:
            return
        if not self._exited.is_set():
            self._signal_session(signal.SIGHUP)
            self._signal_session(signal.SIGCONT)
            try:
                await asyncio.wait_for(asyncio.shield(self._proc.wait()), CLOSE_GRACE_S)
            except TimeoutError:
                self._signal_session(signal.SIGKILL)
        await self._waiter

    def _signal_session(self, sig: signal.Signals) -> None:
        """Signal every process of the shell's session (background jobs have their own
        process groups) and, where the shell carries canvas's mark, every process that inherited
        it (those that left the session with setsid())."""
        if self.pid is None or self._proc is None:
            return
        # Once the shell is reaped its pid may be reused: its group is signalled only while
        # it lives, and the scan skips that pid.
        if self._proc.returncode is None:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(self.pid, sig)
        for pid in ShellProcesses(self._env.get(MARK), {self.pid}).pids() - {self.pid}:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.kill(pid, sig)

    def _drain_input(self) -> None:
        if self._master is None or not self._in:
            return
        try:
            written = os.write(self._master, self._in)
        except BlockingIOError:
            written = 0
        except OSError:
            self._in.clear()
            return
        del self._in[:written]
        if self._in and not self._writing and self._loop is not None:
            self._writing = True
            self._loop.add_writer(self._master, self._on_writable)

    def _on_writable(self) -> None:
        self._drain_input()
        if not self._in and self._writing and self._loop is not None and self._master is not None:
            self._writing = False
            self._loop.remove_writer(self._master)

    def _on_readable(self) -> None:
        assert self._master is not None
        data = read_ready(self._master, READ_BYTES)
        if data is None:
            return
        if not data:
            self._stop_reading()
            self._output.flush()
            self._eof.set()
            return
        self._output.feed(data)

    def _stop_reading(self) -> None:
        if self._master is not None and self._loop is not None:
            self._loop.remove_reader(self._master)
            if self._writing:
                self._loop.remove_writer(self._master)
                self._writing = False

    async def _wait_exit(self) -> None:
        assert self._proc is not None
        status = await self._proc.wait()
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(self._eof.wait(), DRAIN_AFTER_EXIT_S)
        # No orphans: whatever the shell left running in its session goes with it.
        self._signal_session(signal.SIGHUP)
        self._signal_session(signal.SIGKILL)
        self._stop_reading()
        self._output.flush()
        if self._master is not None:
            os.close(self._master)
            self._master = None
        self._in.clear()
        self.exit_code = 128 - status if status < 0 else status
        self._exited.set()
        if self.on_exit is not None:
            try:
                self.on_exit(self.exit_code)
            except Exception:
                log.exception("terminal on_exit failed")
