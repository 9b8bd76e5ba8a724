"""The project's `.canvas/` folder: private to its owner, and held by one server at a time.

Two servers on one folder would share the store and the secrets without knowing of each other
(sessions made on one are unknown to the other), so the first takes an OS lock on
`.canvas/serve.lock` and keeps it while it runs; the kernel lets go of it when the process ends,
however it ends. The holder writes its pid and port into the file for a second one to name.
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import json
import os
import shutil
import stat
from pathlib import Path

LOCK_FILE = "serve.lock"
IGNORE_FILE = ".gitignore"
IGNORE_ALL = b"# canvas's own state (the room's secrets among it): never committed\n*\n"
FILE_MODE = 0o600
DIR_MODE = 0o700


class FolderInUse(Exception):
    """Another `canvas serve` holds this folder; the message names it, in one line."""


class FolderLock:
    def __init__(self, canvas_dir: Path) -> None:
        self.path = canvas_dir / LOCK_FILE
        self._fd: int | None = os.open(self.path, os.O_RDWR | os.O_CREAT, FILE_MODE)
        try:
            fcntl.flock(self._fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError as exc:
            holder = _read_holder(self._fd)
            os.close(self._fd)
            self._fd = None
            if exc.errno not in (errno.EAGAIN, errno.EACCES):
                raise
            raise FolderInUse(_in_use_message(canvas_dir.parent, holder)) from None
        os.fchmod(self._fd, FILE_MODE)
        self._write({"pid": os.getpid()})

    def serving_on(self, port: int) -> None:
        """Record the port, so a second server started here can say where this one is."""
        self._write({"pid": os.getpid(), "port": port})

    def release(self) -> None:
        if self._fd is not None:
            os.close(self._fd)
            self._fd = None

    def _write(self, holder: dict[str, int]) -> None:
        assert self._fd is not None
        data = json.dumps(holder).encode("ascii")
        os.ftruncate(self._fd, 0)
        os.pwrite(self._fd, data, 0)


def _read_holder(fd: int) -> dict[str, object]:
    with contextlib.suppress(OSError, ValueError):
        holder = json.loads(os.pread(fd, 4096, 0) or b"{}")
        if isinstance(holder, dict):
            return holder
    return {}


def _in_use_message(root: Path, holder: dict[str, object]) -> str:
    pid, port = holder.get("pid"), holder.get("port")
    who = f" (pid {pid})" if isinstance(pid, int) else ""
    if isinstance(port, int):
        return f"another canvas serve{who} is already serving {root} on port {port}: use its link, or stop it first"
    return f"another canvas serve{who} is starting in {root}: use its link, or stop it first"


def tighten(canvas_dir: Path) -> None:
    """Make everything under `.canvas/` the owner's alone, whoever made it (a hand-written
    config.toml is 0644 by the usual umask). Symbolic links are left as they are."""
    for folder, dirs, files in os.walk(canvas_dir):
        os.chmod(folder, DIR_MODE)
        for name in files:
            path = os.path.join(folder, name)
            if stat.S_ISREG(os.lstat(path).st_mode):
                os.chmod(path, FILE_MODE)
        dirs[:] = [d for d in dirs if not os.path.islink(os.path.join(folder, d))]


def create_private(path: Path) -> None:
    """Create `path` (if it is missing) with mode 0600 from the first byte."""
    os.close(os.open(path, os.O_WRONLY | os.O_CREAT, FILE_MODE))


def ignore_itself(canvas_dir: Path) -> None:
    """Write `.canvas/.gitignore` saying `*` (as Python's `venv` does for its folder), at every
    start: `git add .` then stages nothing of the room's secrets, whatever was there before."""
    path = canvas_dir / IGNORE_FILE
    if path.is_dir() and not path.is_symlink():
        shutil.rmtree(path)
    elif path.is_symlink() or (path.exists() and not path.is_file()):
        path.unlink()
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_NOFOLLOW | os.O_CLOEXEC, FILE_MODE)
    try:
        os.fchmod(fd, FILE_MODE)
        os.write(fd, IGNORE_ALL)
    finally:
        os.close(fd)
