"""`canvas attach` (the host's own terminal in a shell of the room) and `canvas stop`."""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import fcntl
import json
import os
import signal
import sys
import time
from pathlib import Path
from typing import Any

from canvasrelay.cli.usage import UsageError

COMMANDS = ("attach", "stop")
STOP_WAIT_S = 15.0
STOP_POLL_S = 0.05


def add_commands(commands: Any) -> None:
    attach = commands.add_parser("attach", help="put this terminal into a shell of the board (needs tmux)")
    attach.add_argument("terminal", nargs="?", help="its name on the board, e.g. 'Terminal 1' (default: the only one)")
    attach.add_argument("--dir", type=Path, default=Path.cwd(), help="the project folder (default: here)")
    stop = commands.add_parser("stop", help="stop the canvas serving this folder; its shells run on")
    stop.add_argument("--dir", type=Path, default=Path.cwd(), help="the project folder (default: here)")
    stop.add_argument(
        "--terminals", action="store_true", help="end every shell of the room too, and every program they started"
    )


def run(args: argparse.Namespace) -> int:
    canvas_dir = args.dir.resolve() / ".canvas"
    if not canvas_dir.is_dir():
        raise UsageError(f"canvas has not served {args.dir.resolve()} (no .canvas/ there)")
    if args.command == "attach":
        return _attach(canvas_dir, args.terminal)
    return _stop(canvas_dir, args.terminals)


def _tmux(canvas_dir: Path) -> Any:
    from canvasrelay.server.terminals.tmux import TmuxServer, tmux_executable

    executable = tmux_executable()
    if executable is None:
        raise UsageError("tmux is not installed, so no shell outlives canvas or can be attached (apt install tmux)")
    return TmuxServer(canvas_dir, executable)


def _attach(canvas_dir: Path, wanted: str | None) -> int:
    tmux = _tmux(canvas_dir)
    running = asyncio.run(tmux.sessions())
    names = {tid: name for tid, name in _recorded_names(canvas_dir).items() if tid in running}
    names.update({tid: tid for tid in running if tid not in names})
    if not names:
        raise UsageError(f"no shell is running in {canvas_dir.parent}: open a terminal on the board first")
    if wanted is None:
        if len(names) > 1:
            listed = ", ".join(f"'{name}'" for name in sorted(names.values()))
            raise UsageError(f"say which terminal: {listed}")
        tid = next(iter(names))
    else:
        matches = [tid for tid, name in names.items() if wanted in (tid, name) or wanted.lower() == name.lower()]
        if not matches:
            listed = ", ".join(f"'{name}'" for name in sorted(names.values()))
            raise UsageError(f"no running terminal is called {wanted!r}; running: {listed}")
        tid = matches[0]
    sys.stdout.flush()
    os.chdir(canvas_dir)
    os.execve(tmux.executable, tmux.argv("attach-session", "-t", f"={tid}"), tmux.env())


def _recorded_names(canvas_dir: Path) -> dict[str, str]:
    from canvasrelay.server.terminals.host import RECORD

    with contextlib.suppress(OSError, ValueError):
        rows = json.loads((canvas_dir / RECORD).read_text(encoding="utf-8"))
        return {row["id"]: row["name"] for row in rows if isinstance(row, dict) and "id" in row and "name" in row}
    return {}


def _stop(canvas_dir: Path, terminals: bool) -> int:
    from canvasrelay.server.terminals.tmux import tmux_executable

    # Without tmux every shell is the server's child, and ends with it.
    if terminals and tmux_executable() is not None:
        # First, while canvas still watches them: the board then says they ended.
        tmux = _tmux(canvas_dir)
        ended = asyncio.run(tmux.kill())
        print("canvas: every shell of the room ended" if ended else "canvas: no shell was running")
    pid = _serving_pid(canvas_dir)
    if pid is None:
        print(f"canvas: nothing serves {canvas_dir.parent}")
        if terminals:
            from canvasrelay.server.terminals.host import RECORD

            (canvas_dir / RECORD).unlink(missing_ok=True)
        return 0
    os.kill(pid, signal.SIGTERM)
    deadline = time.monotonic() + STOP_WAIT_S
    while _serving_pid(canvas_dir) is not None:
        if time.monotonic() > deadline:
            raise UsageError(f"canvas serve (pid {pid}) did not stop within {STOP_WAIT_S:.0f} s")
        time.sleep(STOP_POLL_S)
    print(f"canvas: stopped serving {canvas_dir.parent}")
    return 0


def _serving_pid(canvas_dir: Path) -> int | None:
    """The pid of the canvas serve holding the folder's lock, or None when nobody holds it."""
    from canvasrelay.server.canvas_dir import LOCK_FILE

    try:
        fd = os.open(canvas_dir / LOCK_FILE, os.O_RDONLY)
    except FileNotFoundError:
        return None
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
        except BlockingIOError:
            with contextlib.suppress(ValueError):
                pid = json.loads(os.pread(fd, 4096, 0) or b"{}").get("pid")
                return pid if isinstance(pid, int) else None
            return None
        return None
    finally:
        os.close(fd)
