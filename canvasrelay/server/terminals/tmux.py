"""Terminals kept by tmux: each shell lives in the room's own tmux server and outlives canvas.

The room's tmux server listens on `.canvas/tmux.sock`. Each canvas terminal is a tmux session
named by the terminal's id, whose one pane runs the user's shell under `sh`, which writes the
shell's exit status to `.canvas/terminal-exits/<id>` when it ends: a shell that ends while
canvas is stopped still leaves its code. canvas watches a session through a control-mode client
(`tmux -C`), which takes input as `send-keys -H` (every byte in hex, so each arrives exactly as
typed), the view's size as `refresh-client -C`, and answers for tmux's own screen and history
(`capture-pane`), a restart's replay. The pane's output does not come through that client
(control mode writes at most 8 KiB a round, escaped, and holds the pane meanwhile): tmux pipes it
as it is (`pipe-pane -O`) into a FIFO of canvas's, in the same command as the capture, so the
capture and the pipe meet at the same byte.

Every tmux command runs in `.canvas/` with the socket named relative to it: a socket's path
may be at most 107 bytes, and a project's folder can be deeper than that allows.
"""

from __future__ import annotations

import asyncio
import contextlib
import fcntl
import logging
import os
import re
import shlex
import shutil
from collections import deque
from collections.abc import Callable
from pathlib import Path

from canvasrelay.core.terminal_output import SCROLLBACK_BYTES, Scrollback
from canvasrelay.server.canvas_dir import FILE_MODE
from canvasrelay.server.terminals.output_coalescer import OutputCoalescer, read_ready
from canvasrelay.server.terminals.shell_processes import MARK, ShellProcesses, mark

log = logging.getLogger(__name__)

SOCKET = "tmux.sock"
EXITS = "terminal-exits"
OUTPUTS = "terminal-output"
"""The FIFOs the panes' output comes through, one per terminal."""
READ_BYTES = 256 * 1024
FIFO_BYTES = 1024 * 1024
"""The FIFO's buffer (Linux lets anyone raise it to 1 MiB): fewer turns between `cat` and canvas."""
HISTORY_LINES = 10_000
SEND_BYTES = 4096
"""Input bytes per `send-keys` command (each byte is three characters of the command)."""
MAX_PENDING_INPUT = 1024 * 1024
READ_LIMIT = 16 * 1024 * 1024
"""The longest line tmux writes: a command's answer (a capture) is lines of a pane's width."""
LEAVE_S = 2.0
ANSWER_S = 10.0
"""How long canvas waits for tmux to answer for a pane it starts watching."""
MAX_REWATCHES = 3
"""Times canvas attaches again to a shell whose client tmux dropped, before it calls the shell lost."""
HANGUP = 129
"""The exit code of a shell ended by a hang-up (128 + SIGHUP): it was ended, so it wrote no code."""
SERVER_OPTIONS = [
    ["set-option", "-g", "history-limit", str(HISTORY_LINES)],
    ["set-option", "-g", "status", "off"],
    # The pane's output reaches the page's xterm as it is: programs should write for an xterm.
    ["set-option", "-s", "default-terminal", "xterm-256color"],
    ["set-option", "-s", "escape-time", "10"],
]
SHELL_SCRIPT = f'{MARK}="$3" "$1"; echo "$?" > "$2"'
"""Runs the shell marked as the terminal's (see `shell_processes`) and writes its exit status."""
_BLOCK_END = re.compile(rb"^%(end|error) (\d+ \d+) 1$")


NO_TMUX = "CANVAS_NO_TMUX"
"""Set (to anything but 0) to keep shells as canvas's own children even where tmux is installed."""


def tmux_executable() -> str | None:
    if os.environ.get(NO_TMUX, "") not in ("", "0"):
        return None
    return shutil.which("tmux")


class TmuxServer:
    """The room's tmux server: where its socket is, and the commands run against it."""

    def __init__(self, canvas_dir: Path, executable: str) -> None:
        self.canvas_dir = canvas_dir
        self.executable = executable
        self.exits = canvas_dir / EXITS

    @property
    def socket(self) -> Path:
        return self.canvas_dir / SOCKET

    def argv(self, *args: str) -> list[str]:
        # No user configuration: canvas relies on its own options (sizes, no status line).
        return [self.executable, "-S", SOCKET, "-f", "/dev/null", *args]

    def env(self) -> dict[str, str]:
        # Inside someone's own tmux, $TMUX would make tmux refuse to attach ("nested"); a canvas
        # started in a terminal of the room must not pass that terminal's mark to tmux's server.
        return {k: v for k, v in os.environ.items() if k not in ("TMUX", MARK)}

    async def run(self, *args: str) -> tuple[int, bytes]:
        proc = await asyncio.create_subprocess_exec(
            *self.argv(*args),
            stdin=asyncio.subprocess.DEVNULL,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.DEVNULL,
            cwd=self.canvas_dir,
            env=self.env(),
        )
        out, _ = await proc.communicate()
        return proc.returncode or 0, out

    async def sessions(self) -> set[str]:
        """The sessions alive now (none when no server runs)."""
        code, out = await self.run("list-sessions", "-F", "#{session_name}")
        return set(out.decode("utf-8", "replace").splitlines()) if code == 0 else set()

    def exit_file(self, tid: str) -> Path:
        return self.exits / tid

    def output_fifo(self, tid: str) -> Path:
        return self.canvas_dir / OUTPUTS / tid

    def prepare(self, tid: str) -> None:
        """Before a new shell under `tid`: no code of an earlier shell may be read as its own."""
        self.exits.mkdir(mode=0o700, exist_ok=True)
        self.exit_file(tid).unlink(missing_ok=True)

    def take_exit_code(self, tid: str) -> int | None:
        path = self.exit_file(tid)
        try:
            text = path.read_text().strip()
        except OSError:
            return None
        path.unlink(missing_ok=True)
        return int(text) if text.isdigit() else None

    def tighten_socket(self) -> None:
        # tmux toggles the owner's execute bit as a flag (clients attached); the rest stays closed.
        with contextlib.suppress(OSError):
            os.chmod(self.socket, FILE_MODE | (os.stat(self.socket).st_mode & 0o100))

    async def pane_pids(self, tid: str | None = None) -> set[int]:
        """The pids of the processes tmux runs in the panes of session `tid` (or of them all)."""
        scope = ["-a"] if tid is None else ["-s", "-t", f"={tid}"]
        code, out = await self.run("list-panes", *scope, "-F", "#{pane_pid}")
        return {int(word) for word in out.split() if word.isdigit()} if code == 0 else set()

    async def processes(self, tid: str | None = None) -> ShellProcesses:
        """What the shell `tid` (or every shell of the room) started, wherever it went since."""
        sessions = await self.pane_pids(tid)
        if tid is None:
            return ShellProcesses.of_room(self.canvas_dir, sessions)
        return ShellProcesses.of_terminal(self.canvas_dir, tid, sessions)

    async def kill(self) -> bool:
        """End every shell it keeps, and every program they started; False when none was running."""
        processes = await self.processes()
        code, _ = await self.run("kill-server")
        await processes.end()
        return code == 0


class TmuxTerminal:
    """One canvas terminal: a tmux session, watched and typed into through a control client.

    The same face as the PTY's `Terminal`: `on_output` gets coalesced chunks (each in
    `scrollback` first), `on_exit` the shell's exit status once. `leave` lets go of the session
    (canvas stops); `close` ends the shell.
    """

    def __init__(
        self,
        server: TmuxServer,
        tid: str,
        cwd: Path,
        on_output: Callable[[bytes], None] | None = None,
        on_exit: Callable[[int], None] | None = None,
        shell: str | None = None,
        scrollback_bytes: int = SCROLLBACK_BYTES,
    ) -> None:
        self.server = server
        self.tid = tid
        self.cwd = cwd
        self.on_exit = on_exit
        self.shell = shell or os.environ.get("SHELL") or "/bin/bash"
        self.scrollback = Scrollback(scrollback_bytes)
        self.exit_code: int | None = None
        self._output = OutputCoalescer(self.scrollback, on_output)
        self._proc: asyncio.subprocess.Process | None = None
        self._reader: asyncio.Task[None] | None = None
        # Each command sent, in order, with who waits for its answer, the keys it types (to type
        # again if tmux's client goes before answering) and the line it was sent on: tmux drops the
        # rest of a line's commands after one fails, and answers none of them.
        self._replies: deque[tuple[asyncio.Future[list[bytes]] | None, bytes, int]] = deque()
        self._lines = 0
        self._attached = asyncio.Event()
        # The pane's output, read from the FIFO tmux pipes it to (see `_follow`); set once it ended.
        self._fifo: int | None = None
        self._fifo_ended = asyncio.Event()
        # Input typed while canvas's control client is not attached (starting, or watching the
        # shell again) waits here, not in a pipe nobody reads.
        self._held = bytearray()
        self._watching = False
        self._leaving = False
        self._rewatches = 0
        self._ending: asyncio.Future[None] | None = None
        self._size = (80, 24)
        self._exited = asyncio.Event()

    async def start(self, cols: int = 80, rows: int = 24) -> None:
        """A new shell, or (a session of that id alive already) that one: never a second."""
        if self._proc is not None:
            raise RuntimeError("terminal already started")
        self.server.prepare(self.tid)
        await self._attach((cols, rows), follow=True)

    async def reattach(self) -> None:
        """Watch a session that outlived the last canvas; its screen and history come first."""
        await self._attach(None, follow=True)

    async def _attach(self, size: tuple[int, int] | None, follow: bool) -> None:
        """Attach a control client; with `follow`, pipe the pane's output to canvas (once per
        canvas: the pipe stays when tmux drops a control client, and one is attached again)."""
        self._output.start(asyncio.get_running_loop())
        cols, rows = size or (80, 24)
        options = [word for option in SERVER_OPTIONS for word in (*option, ";")]
        shell = ["/bin/sh", "-c", SHELL_SCRIPT, "canvas-terminal", self.shell, str(self.server.exit_file(self.tid))]
        shell.append(mark(self.server.canvas_dir, self.tid))
        new = ["new-session", "-A", "-s", self.tid, "-x", str(cols), "-y", str(rows), "-c", str(self.cwd), "--"]
        # The output comes through the pipe: the client need not get it, nor hold the pane for it
        # (tmux before 3.2 refuses the flag and sends it anyway, and `_read` passes over it).
        quiet = [";", "refresh-client", "-f", "no-output"]
        self._proc = await asyncio.create_subprocess_exec(
            *self.server.argv("-C", *options, *new, *shell, *quiet),
            stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.DEVNULL,
            cwd=self.server.canvas_dir,
            env=self.server.env(),
            limit=READ_LIMIT,
            start_new_session=True,
        )
        self._attached.clear()
        self._reader = asyncio.create_task(self._read())
        # tmux may read a command sent now before the session exists: canvas waits until its
        # client is attached (a client that ended meanwhile has been dealt with by `_read`).
        attached = asyncio.ensure_future(self._attached.wait())
        done, _ = await asyncio.wait({attached, self._reader}, timeout=ANSWER_S, return_when=asyncio.FIRST_COMPLETED)
        attached.cancel()
        if not done:
            log.warning("terminal %s: tmux did not attach canvas's client in time", self.tid)
        elif attached not in done:
            return
        self._watching = True
        self.server.tighten_socket()
        if size is not None:
            self.resize(*size)
        if follow:
            await self._follow()
        held, self._held = bytes(self._held), bytearray()
        self._send_keys(held)

    async def _follow(self) -> None:
        """Pipe the pane's output into canvas's FIFO, and put tmux's screen and history in the ring
        first, as a page would have seen them. One command line: tmux reads nothing from the pane
        between its commands, so the pipe starts at the byte the capture ends with."""
        self._open_fifo()
        # Named, not left to tmux's current session: a command read before this client has attached
        # would act on whichever session was used last (another terminal, after a restart).
        pane = f"-t ={self.tid}:"
        relay = f"exec cat > {shlex.quote(str(self.server.output_fifo(self.tid)))}"
        fields = "#{alternate_on} #{cursor_x} #{cursor_y} #{pane_height}"
        replies = self._commands(
            f"pipe-pane -O {pane} {_tmux_quoted(relay)}",
            f"display-message {pane} -p '{fields}'",
            f"capture-pane {pane} -p -e -q -a -S -{HISTORY_LINES}",
            f"capture-pane {pane} -p -e -S -{HISTORY_LINES}",
        )
        try:
            # Bounded: the page that opened the terminal waits for this, and so do its next frames.
            answers = await asyncio.wait_for(asyncio.gather(*replies, return_exceptions=True), ANSWER_S)
            _, state, normal, captured = (_answer(answer) for answer in answers)
            words = b" ".join(state).split()
            alternate, x, y, rows = (int(w) for w in words) if len(words) == 4 else (0, 0, 0, 0)
            if alternate:
                replay = _lines(normal) + b"\x1b[?1049h\x1b[H" + _lines(captured) + b"\x1b[%d;%dH" % (y + 1, x + 1)
            else:
                # Up to the cursor's line, and the cursor put back in it relative to where it is: a page
                # narrower than tmux's pane wraps its long lines, so a row counted in tmux's is not its own.
                replay = (
                    _lines(captured[: max(1, len(captured) - rows + y + 1)]) + b"\r" + (b"\x1b[%dC" % x if x else b"")
                )
            if alternate or x or y or b"".join(captured).strip():
                # As output: whoever already watches a new shell sees its first prompt too.
                self._output.feed(replay)
        except (ConnectionError, ValueError, TimeoutError) as exc:
            log.warning("terminal %s: no replay from tmux: %s", self.tid, str(exc) or "no answer in time")
        # Read only now: what the pipe brought meanwhile follows the capture, in the FIFO.
        if self._fifo is not None:
            asyncio.get_running_loop().add_reader(self._fifo, self._on_output)

    def _open_fifo(self) -> None:
        path = self.server.output_fifo(self.tid)
        path.parent.mkdir(mode=0o700, exist_ok=True)
        # A new FIFO: a relay left by an earlier canvas writes to the old one, which nobody reads.
        path.unlink(missing_ok=True)
        os.mkfifo(path, FILE_MODE)
        # Non-blocking, so opening needs no writer yet; Linux reports no end before a writer came.
        self._fifo = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
        with contextlib.suppress(OSError):
            fcntl.fcntl(self._fifo, fcntl.F_SETPIPE_SZ, FIFO_BYTES)

    def _on_output(self) -> None:
        assert self._fifo is not None
        data = read_ready(self._fifo, READ_BYTES)
        if data:
            self._output.feed(data)
        elif data is not None:
            self._close_fifo()

    def _close_fifo(self) -> None:
        if self._fifo is not None:
            asyncio.get_running_loop().remove_reader(self._fifo)
            os.close(self._fifo)
            self._fifo = None
            self.server.output_fifo(self.tid).unlink(missing_ok=True)
        self._fifo_ended.set()

    def _commands(self, *commands: str) -> list[asyncio.Future[list[bytes]]]:
        """Send commands as one line (tmux runs them in one go), each with its own answer."""
        loop = asyncio.get_running_loop()
        replies: list[asyncio.Future[list[bytes]]] = [loop.create_future() for _ in commands]
        if self._send(" ; ".join(commands), *replies):
            return replies
        for reply in replies:
            reply.set_exception(ConnectionError("tmux's control client ended"))
        return replies

    def _send(self, line: str, *replies: asyncio.Future[list[bytes]] | None, keys: bytes = b"") -> bool:
        if self._proc is None or self._proc.stdin is None or self._exited.is_set():
            return False
        self._lines += 1
        self._replies.extend((reply, keys, self._lines) for reply in replies or (None,))
        self._proc.stdin.write(line.encode("utf-8") + b"\n")
        return True

    @property
    def running(self) -> bool:
        return self._proc is not None and not self._exited.is_set()

    def write(self, data: str | bytes) -> bool:
        """Queue input for the shell (what comes while canvas attaches waits for it); False when
        dropped (ended, or input backlog full)."""
        if self._exited.is_set():
            return False
        raw = data.encode("utf-8") if isinstance(data, str) else data
        stdin = self._proc.stdin if self._watching and self._proc is not None else None
        # Sent as hex: three bytes in the pipe for each byte typed.
        backlog = len(self._held) if stdin is None else stdin.transport.get_write_buffer_size() // 3
        if backlog + len(raw) > MAX_PENDING_INPUT:
            log.warning("terminal %s: input backlog full, dropping %d bytes", self.tid, len(raw))
            return False
        if stdin is None:
            self._held += raw
        else:
            self._send_keys(raw)
        return True

    def _send_keys(self, raw: bytes) -> None:
        if raw:
            self._output.input_sent()
        for start in range(0, len(raw), SEND_BYTES):
            chunk = raw[start : start + SEND_BYTES]
            self._send(f"send-keys -t ={self.tid}: -H " + chunk.hex(" "), keys=chunk)

    def resize(self, cols: int, rows: int) -> None:
        self._size = (max(1, min(cols, 10_000)), max(1, min(rows, 10_000)))
        self._send(f"refresh-client -C {self._size[0]}x{self._size[1]}")

    async def wait(self) -> int:
        await self._exited.wait()
        assert self.exit_code is not None
        return self.exit_code

    async def close(self) -> None:
        """End the shell and every program it started (background, `nohup` and `setsid` jobs too)."""
        if self._exited.is_set() or self._ending is not None:
            return
        processes = await self.server.processes(self.tid)
        # The end is told once they are gone too: whoever sees it may count on that.
        self._ending = asyncio.ensure_future(processes.end())
        if self._send("kill-session"):
            await self._exited.wait()
        await self._ending

    async def leave(self) -> None:
        """canvas stops: let go of the session, which runs on."""
        if self._proc is None or self._reader is None or self._exited.is_set():
            return
        self._leaving = True
        # The pipe's relay would wait for output to pass to nobody: the next canvas pipes anew.
        self._send(f"pipe-pane -t ={self.tid}:")
        if self._proc.stdin is not None:
            self._proc.stdin.close()
        try:
            await asyncio.wait_for(asyncio.shield(self._proc.wait()), LEAVE_S)
        except TimeoutError:
            self._proc.kill()
        await self._reader

    async def _read(self) -> None:
        assert self._proc is not None and self._proc.stdout is not None
        stdout = self._proc.stdout
        block: list[bytes] | None = None
        block_id = b""
        try:
            while line := await stdout.readline():
                line = line.rstrip(b"\n")
                if block is not None:
                    end = _BLOCK_END.match(line)
                    if end and end.group(2) == block_id:
                        self._answered(block, failed=end.group(1) == b"error")
                        block = None
                    else:
                        block.append(line)
                elif line.startswith(b"%begin ") and line.endswith(b" 1"):
                    block, block_id = [], b" ".join(line.split(b" ")[1:3])
                elif line.startswith(b"%session-changed "):
                    self._attached.set()
        except (ValueError, ConnectionError) as exc:
            log.warning("terminal %s: tmux's control client failed: %s", self.tid, exc)
        self._watching = False
        await self._proc.wait()
        unanswered = b"".join(keys for _, keys, _ in self._replies)
        self._held[:0] = unanswered
        for reply, _, _ in self._replies:
            if reply is not None and not reply.done():
                reply.set_exception(ConnectionError("tmux's control client ended"))
        self._replies.clear()
        if self._leaving:
            self._close_fifo()
            self._output.flush()
            self._exited.set()
            return
        code = self.server.take_exit_code(self.tid)
        if code is None and self._rewatches < MAX_REWATCHES and self.tid in await self.server.sessions():
            # The shell lives, only canvas's client went (detached by someone, or it failed).
            self._rewatches += 1
            log.warning("terminal %s: tmux let go of canvas's client; watching the shell again", self.tid)
            try:
                await self._attach(self._size, follow=False)
                return
            except OSError as exc:
                log.warning("terminal %s: cannot watch it again: %s", self.tid, exc)
        # tmux passes all of a pane's output to the pipe before it ends the pane; the relay may
        # still be writing the last of it.
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(self._fifo_ended.wait(), LEAVE_S)
        self._close_fifo()
        self._output.flush()
        if self._ending is not None:
            await self._ending
        self._ended(code)
        self._exited.set()

    def _answered(self, lines: list[bytes], failed: bool) -> None:
        if not self._replies:
            return
        reply, _, line = self._replies.popleft()
        answered = [(reply, [] if failed else lines)]
        if failed:
            log.warning("terminal %s: tmux refused a command: %s", self.tid, b" ".join(lines)[:200])
            while self._replies and self._replies[0][2] == line:
                answered.append((self._replies.popleft()[0], []))
        for waiting, answer in answered:
            if waiting is not None and not waiting.done():
                waiting.set_result(answer)

    def _ended(self, code: int | None) -> None:
        self.exit_code = HANGUP if code is None else code
        if self.on_exit is not None:
            try:
                self.on_exit(self.exit_code)
            except Exception:
                log.exception("terminal on_exit failed")


def _answer(answer: list[bytes] | BaseException) -> list[bytes]:
    if isinstance(answer, BaseException):
        raise answer
    return answer


def _tmux_quoted(text: str) -> str:
    """`text` as one argument of a tmux command, unexpanded: tmux's parser reads `\\`, `"` and `$`
    in double quotes, and `pipe-pane` expands `#` formats and `%` time formats in its command."""
    text = text.replace("#", "##").replace("%", "%%")
    return '"' + re.sub(r'([\\"$])', r"\\\1", text) + '"'


def _lines(captured: list[bytes]) -> bytes:
    """Captured lines as a terminal draws them: each from the line's start, attributes reset."""
    return b"\x1b[0m\r\n".join(captured) + b"\x1b[0m"
