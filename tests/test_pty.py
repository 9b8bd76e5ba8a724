from __future__ import annotations

import asyncio
import os
import re
from collections.abc import AsyncIterator, Callable
from pathlib import Path

import pytest

from canvasrelay.core.terminal_output import SKIP, OutputLog, Piece, Scrollback
from canvasrelay.server.terminals import output_coalescer
from canvasrelay.server.terminals.pty import Terminal

pytestmark = pytest.mark.timeout(30)

SHELL_ENV = {
    "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
    "HOME": "/nonexistent",
    "PS1": "$ ",
    "LANG": "C.UTF-8",
}


class Recorder:
    """Collects a terminal's output and lets a test wait for a pattern in it."""

    def __init__(self) -> None:
        self.chunks: list[bytes] = []
        self.exit_codes: list[int] = []
        self._changed = asyncio.Event()

    def on_output(self, data: bytes) -> None:
        self.chunks.append(data)
        self._changed.set()

    def on_exit(self, code: int) -> None:
        self.exit_codes.append(code)
        self._changed.set()

    @property
    def text(self) -> str:
        return b"".join(self.chunks).decode("utf-8", "replace")

    async def until(self, pattern: str, timeout: float = 10.0) -> re.Match[str]:
        async def scan() -> re.Match[str]:
            while True:
                found = re.search(pattern, self.text)
                if found:
                    return found
                self._changed.clear()
                await self._changed.wait()

        return await asyncio.wait_for(scan(), timeout)


@pytest.fixture
async def term(tmp_path: Path) -> AsyncIterator[tuple[Terminal, Recorder]]:
    rec = Recorder()
    terminal = Terminal(tmp_path, on_output=rec.on_output, on_exit=rec.on_exit, shell="/bin/bash", env=SHELL_ENV)
    await terminal.start(80, 24)
    yield terminal, rec
    await asyncio.wait_for(terminal.close(), 10)


def _alive(pid: int) -> bool:
    """Alive and not a zombie (a container's init may be slow to reap orphans)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except FileNotFoundError:
        return False


def _group_alive(pgid: int) -> bool:
    """Some process of the group lives (zombies waiting for a slow init do not count)."""
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except (FileNotFoundError, ProcessLookupError):
            continue
        if fields[2] == str(pgid) and fields[0] != "Z":
            return True
    return False


async def _until_dead(pid: int, timeout: float = 5.0, alive: Callable[[int], bool] = _alive) -> None:
    async def poll() -> None:
        while alive(pid):
            await asyncio.sleep(0.02)

    await asyncio.wait_for(poll(), timeout)


async def test_echo_round_trip(term: tuple[Terminal, Recorder]) -> None:
    terminal, rec = term
    # The quotes keep the typed command (echoed back by the tty) from matching.
    terminal.write("echo hel''lo-$((40+2))\n")
    await rec.until(r"hello-42")


async def test_each_key_echoes_at_once_however_soon_after_the_last_output(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # With a gathering window of a minute, output soon after output waits that minute, unless it
    # answers input: each key's echo (the line discipline's, under `cat`) must come at once.
    monkeypatch.setattr(output_coalescer, "COALESCE_S", 60.0)
    rec = Recorder()
    terminal = Terminal(tmp_path, on_output=rec.on_output, shell="/bin/cat", env=SHELL_ENV)
    await terminal.start(80, 24)
    try:
        typed = ""
        for key in "abc":
            terminal.write(key)
            typed += key
            await rec.until(re.escape(typed))
    finally:
        await asyncio.wait_for(terminal.close(), 10)


async def test_runs_in_cwd_with_term(term: tuple[Terminal, Recorder], tmp_path: Path) -> None:
    terminal, rec = term
    terminal.write(b'echo "at:$(pwd):$TERM:"\n')
    found = await rec.until(r"at:([^\r\n]*):([\w-]+):")
    assert Path(found.group(1)).resolve() == tmp_path.resolve()
    assert found.group(2) == "xterm-256color"


async def test_stty_size_follows_resize(term: tuple[Terminal, Recorder]) -> None:
    terminal, rec = term
    terminal.write("echo size-$(stty size)-end\n")
    await rec.until(r"size-24 80-end")
    terminal.resize(132, 43)
    terminal.resize(101, 37)
    terminal.write("echo size-$(stty size)-end\n")
    await rec.until(r"size-37 101-end")


async def test_sigwinch_reaches_foreground_job(term: tuple[Terminal, Recorder]) -> None:
    terminal, rec = term
    terminal.write("trap 'echo win-$(stty size)-ch' WINCH; echo armed-''ok\n")
    await rec.until("armed-ok")
    terminal.resize(90, 30)
    await rec.until(r"win-30 90-ch")


async def test_late_snapshot_equals_what_an_early_reader_saw(term: tuple[Terminal, Recorder]) -> None:
    terminal, rec = term
    terminal.write("for i in $(seq 1 2000); do echo line-$i-é; done; echo do''ne\n")
    await rec.until("done")
    terminal.write("echo sec''ond\n")
    await rec.until("second")
    assert b"".join(rec.chunks) == terminal.scrollback.snapshot()
    assert len(rec.chunks) < 2000, "output is coalesced into larger chunks"


async def test_exit_code_is_reported(tmp_path: Path) -> None:
    rec = Recorder()
    terminal = Terminal(tmp_path, rec.on_output, rec.on_exit, shell="/bin/bash", env=SHELL_ENV)
    await terminal.start(80, 24)
    terminal.write("exit 3\n")
    assert await asyncio.wait_for(terminal.wait(), 10) == 3
    assert rec.exit_codes == [3]
    assert terminal.exit_code == 3
    assert terminal.pid is not None
    await _until_dead(terminal.pid)
    assert terminal.write("echo too late\n") is False
    await terminal.close()
    assert rec.exit_codes == [3]


async def test_close_leaves_no_process(term: tuple[Terminal, Recorder]) -> None:
    terminal, rec = term
    terminal.write("sleep 1000 & echo bg-pid-$!-x; sleep 1001\n")
    found = await rec.until(r"bg-pid-(\d+)-x")
    background = int(found.group(1))
    assert terminal.pid is not None and _alive(background)
    await asyncio.wait_for(terminal.close(), 10)
    assert not _alive(terminal.pid)
    await _until_dead(background)
    await _until_dead(terminal.pid, alive=_group_alive)
    assert len(rec.exit_codes) == 1


async def test_shell_exit_takes_background_jobs_with_it(tmp_path: Path) -> None:
    rec = Recorder()
    terminal = Terminal(tmp_path, rec.on_output, rec.on_exit, shell="/bin/bash", env=SHELL_ENV)
    await terminal.start(80, 24)
    terminal.write("nohup sleep 1000 >/dev/null 2>&1 & echo bg-pid-$!-x; exit 0\n")
    found = await rec.until(r"bg-pid-(\d+)-x")
    assert await asyncio.wait_for(terminal.wait(), 10) == 0
    await _until_dead(int(found.group(1)))


async def test_ring_stays_bounded_under_10_mb(tmp_path: Path) -> None:
    rec = Recorder()
    seen = 0
    tail = b""

    def count(data: bytes) -> None:
        # Only a tail is kept: the test checks the ring, not a copy of 10 MB.
        nonlocal seen, tail
        seen += len(data)
        tail = (tail + data)[-512:]
        if b"fin" in tail:
            rec.on_output(b"fin")

    terminal = Terminal(tmp_path, count, shell="/bin/bash", env=SHELL_ENV, scrollback_bytes=256 * 1024)
    await terminal.start(80, 24)
    try:
        terminal.write("head -c 10000000 /dev/zero | tr '\\0' 'x'; echo; echo f''in\n")
        await rec.until("fin", timeout=25)
        ring = terminal.scrollback
        assert seen >= 10_000_000
        assert ring.total == seen
        assert ring.capacity <= len(ring) <= ring.capacity + ring.slack
    finally:
        await terminal.close()


def test_scrollback_cuts_after_a_newline() -> None:
    ring = Scrollback(capacity=100, slack=10)
    ring.append(b"a" * 60 + b"\n")
    ring.append(b"b" * 30 + b"\n" + b"c" * 30)
    assert ring.snapshot() == b"b" * 30 + b"\n" + b"c" * 30
    assert ring.total == 122


def test_scrollback_never_starts_inside_utf8() -> None:
    ring = Scrollback(capacity=101, slack=0)
    ring.append("é".encode() * 200)
    snap = ring.snapshot()
    assert snap.decode("utf-8") == "é" * 50
    ring.append("€".encode() * 7)
    assert ring.snapshot().decode("utf-8").endswith("€" * 7)


def test_scrollback_huge_single_append() -> None:
    ring = Scrollback(capacity=1000, slack=100)
    ring.append(b"x" * 5000)
    assert len(ring) == 1000


def test_clients_behind_are_sent_the_same_blocks_once_they_reach_one() -> None:
    log = OutputLog(limit=100, block_chars=10)
    for part in ("abcd", "efgh", "ijkl", "mnop", "qrst", "uv", "wx"):
        log.append(part)
    early = log.take(0)
    assert early is not None and early.block is not None and early.block.text == "abcdefghijkl"
    late = log.take(5)
    assert late == Piece(12, text="fghijkl"), "a client inside a block gets the rest of it as its own"
    first, second = log.take(early.end), log.take(late.end)
    assert first is not None and second is not None and first.block is not None
    assert first.block is second.block, "then both get the same block"
    assert first.block.text == "mnopqrstuv"
    assert log.take(first.end) == Piece(24, text="wx"), "output not yet in a block goes as it is"
    assert log.take(24) is None


def test_a_client_further_behind_than_the_log_keeps_skips_ahead() -> None:
    log = OutputLog(limit=10, block_chars=4)
    for part in ("1234", "5678", "9012", "3456"):
        log.append(part)
    assert log.start > 0 and log.take(0) is SKIP
    log.forget()
    assert log.take(log.start) is None and log.start == log.end == 16


async def test_what_is_typed_before_the_shell_starts_reaches_it(tmp_path: Path) -> None:
    rec = Recorder()
    terminal = Terminal(tmp_path, on_output=rec.on_output, shell="/bin/bash", env=SHELL_ENV)
    assert terminal.write("echo ear''ly-$((3+4))\n")
    await terminal.start(80, 24)
    try:
        await rec.until("early-7")
    finally:
        await asyncio.wait_for(terminal.close(), 10)
