"""Shared files, read-only: reading one as a wire-ready dict, and watching the folder."""

from __future__ import annotations

import asyncio
import contextlib
import inspect
import logging
import os
import stat
from collections.abc import AsyncGenerator, Awaitable, Callable
from pathlib import Path

from watchfiles import Change, awatch

from .shared_set import Allowed, Denied, Missing, Resolution, SharedSet

log = logging.getLogger(__name__)

MAX_TEXT_BYTES = 1024 * 1024

FileChanged = Callable[[str], Awaitable[None] | None]
TreeChanged = Callable[[list[str]], Awaitable[None] | None]


def read_shared_file(shared: SharedSet, path: str) -> dict[str, object]:
    """One of the `file` payloads: text, binary, too-large, missing or denied."""
    return read_resolution(shared.check(path))


def read_resolution(resolution: Resolution) -> dict[str, object]:
    """`read_shared_file` for a path already judged."""
    if isinstance(resolution, Denied):
        return {"kind": "denied", "reason": resolution.reason}
    if isinstance(resolution, Missing):
        return {"kind": "missing"}
    return _read_resolved(resolution)


def _read_resolved(resolution: Allowed) -> dict[str, object]:
    # O_NOFOLLOW and O_NONBLOCK: a file swapped for a link or a FIFO after the check must
    # neither be followed nor hang the server.
    flags = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC
    try:
        fd = os.open(resolution.path, flags)
    except FileNotFoundError:
        return {"kind": "missing"}
    except OSError:
        return {"kind": "denied", "reason": "cannot open"}
    with os.fdopen(fd, "rb") as handle:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            return {"kind": "denied", "reason": "not a regular file"}
        if not _opened_what_was_checked(fd, resolution.path):
            return {"kind": "denied", "reason": "file moved while opening"}
        if st.st_size > MAX_TEXT_BYTES:
            return {"kind": "too-large", "size": st.st_size}
        data = handle.read(MAX_TEXT_BYTES + 1)
    if len(data) > MAX_TEXT_BYTES:
        return {"kind": "too-large", "size": len(data)}
    if b"\0" in data:
        return {"kind": "binary", "size": len(data)}
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        return {"kind": "binary", "size": len(data)}
    return {"kind": "text", "text": text, "size": len(data)}


def _opened_what_was_checked(fd: int, expected: Path) -> bool:
    # A folder on the way could have been swapped for a link between check and open;
    # /proc tells where the descriptor really points. Without /proc the check stands.
    try:
        actual = os.readlink(f"/proc/self/fd/{fd}")
    except OSError:
        return True
    return actual == str(expected)


async def _call(callback: Callable[..., Awaitable[None] | None], *args: object) -> None:
    try:
        result = callback(*args)
        if inspect.isawaitable(result):
            await result
    except Exception:
        log.exception("file watcher callback failed")


class FileWatcher:
    """Watches the shared folder: open files that change, and the shared tree.

    Tree recomputes are rate-limited to one per `debounce_s`; events inside `.git/` and
    `.canvas/` are dropped before they reach Python's side, except the two git files that
    can change which paths are shared (the index and info/exclude).
    """

    def __init__(
        self,
        shared: SharedSet,
        on_file_changed: FileChanged,
        on_tree_changed: TreeChanged,
        debounce_s: float = 0.15,
    ) -> None:
        self._shared = shared
        self._on_file_changed = on_file_changed
        self._on_tree_changed = on_tree_changed
        self._debounce_s = debounce_s
        self._open: dict[str, str] = {}
        self._stop = asyncio.Event()
        self._task: asyncio.Task[None] | None = None
        self._refresh_task: asyncio.Task[None] | None = None
        self._dirty = False
        self._folders_changed = asyncio.Event()
        self._folders: set[str] = set()
        self._generation: tuple[asyncio.Event, list[asyncio.Task[None]]] = (asyncio.Event(), [])
        self._last_tree = shared.paths()
        self._root = str(shared.root)

    @property
    def tree(self) -> list[str]:
        return list(self._last_tree)

    def open(self, path: str, resolution: Resolution | None = None) -> bool:
        """Watch `path` (judged now, unless `resolution` is its judgement); False when it may not be
        shared (a missing file may be watched)."""
        resolution = resolution or self._shared.check(path)
        if isinstance(resolution, Denied):
            return False
        self._open[path] = str(resolution.path)
        return True

    def close(self, path: str) -> None:
        self._open.pop(path, None)

    async def start(self) -> None:
        if self._task is not None:
            return
        self._stop.clear()
        self._generation = self._watch_generation()
        self._task = asyncio.create_task(self._supervise())
        # Nothing was watched before this (the server started, or the room was empty): what
        # changed meanwhile is found by a recompute.
        self._schedule_refresh()
        # awatch sets up its inotify watches synchronously on its first step; letting the
        # tasks run once means changes made right after start() are seen.
        await asyncio.sleep(0)

    def _watch_generation(self) -> tuple[asyncio.Event, list[asyncio.Task[None]]]:
        """Watch the root's own entries, and every top-level folder but `.canvas/` below them.

        `.canvas/` is never watched at all: the store commits there on every edit, and each
        commit would otherwise wake this watcher (and its thread) for nothing.
        """
        done = asyncio.Event()
        # Each watcher's thread wakes every `step` to look for changes and for `done`, also in a
        # room where nothing changes: at the debounce (150 ms, not watchfiles' 50) that is a
        # third of the wake-ups, and a change still reaches readers within two steps.
        step = int(self._debounce_s * 1000)

        def watch(*paths: str, recursive: bool = True) -> AsyncGenerator[set[tuple[Change, str]], None]:
            return awatch(
                *paths, recursive=recursive, watch_filter=self._wanted, debounce=step, step=step, stop_event=done
            )

        watchers = [watch(self._root, recursive=False)]
        self._folders = set(self._top_folders())
        if self._folders:
            watchers.append(watch(*sorted(self._folders)))
        return done, [asyncio.create_task(self._consume(changes)) for changes in watchers]

    def _is_top_folder_event(self, change: Change, path: str) -> bool:
        if change == Change.modified or os.path.dirname(path) != self._root:
            return False
        return path in self._folders or os.path.isdir(path)

    def _top_folders(self) -> list[str]:
        with os.scandir(self._root) as entries:
            return sorted(
                entry.path for entry in entries if entry.name != ".canvas" and entry.is_dir(follow_symlinks=False)
            )

    async def _supervise(self) -> None:
        """Start a new generation of watchers whenever a top-level folder comes or goes."""
        while True:
            done, tasks = self._generation
            stop = asyncio.create_task(self._stop.wait())
            again = asyncio.create_task(self._folders_changed.wait())
            try:
                await asyncio.wait([stop, again], return_when=asyncio.FIRST_COMPLETED)
            finally:
                stop.cancel()
                again.cancel()
                done.set()
                for task in tasks:
                    task.cancel()
                await asyncio.gather(*tasks, return_exceptions=True)
            if self._stop.is_set():
                return
            self._folders_changed.clear()
            self._generation = self._watch_generation()
            # What changed while no watch was set up is found by a recompute and a re-read.
            self._schedule_refresh()
            for rel in list(self._open):
                await _call(self._on_file_changed, rel)

    async def stop(self) -> None:
        self._stop.set()
        for task in (self._task, self._refresh_task):
            if task is not None:
                task.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await task
        self._task = None
        self._refresh_task = None

    def _wanted(self, change: Change, path: str) -> bool:
        rel = os.path.relpath(path, self._root).replace(os.sep, "/")
        parts = rel.split("/")
        if parts[0] == ".git":
            return rel in (".git/index", ".git/info/exclude")
        return parts[0] != ".canvas" and ".git" not in parts

    async def _consume(self, changes: AsyncGenerator[set[tuple[Change, str]], None]) -> None:
        async for batch in changes:
            if any(self._is_top_folder_event(change, path) for change, path in batch):
                self._folders_changed.set()
            changed_abs = {path for _, path in batch}
            for rel, target in list(self._open.items()):
                if target in changed_abs or os.path.join(self._root, rel) in changed_abs:
                    await _call(self._on_file_changed, rel)
            if any(self._affects_tree(change, path) for change, path in batch):
                self._schedule_refresh()

    def _affects_tree(self, change: Change, path: str) -> bool:
        if change != Change.modified:
            return True
        name = os.path.basename(path)
        return name in (".gitignore", ".canvasignore", "index", "exclude")

    def _schedule_refresh(self) -> None:
        if self._refresh_task is not None and not self._refresh_task.done():
            self._dirty = True
            return
        self._refresh_task = asyncio.create_task(self._refresh_loop())

    async def _refresh_loop(self) -> None:
        while True:
            await asyncio.sleep(self._debounce_s)
            # Events that arrive while the set is recomputed earn one more round.
            self._dirty = False
            try:
                tree = await asyncio.to_thread(self._shared.refresh)
            except Exception:
                log.exception("recomputing the shared set failed")
                tree = self._last_tree
            if tree != self._last_tree:
                self._last_tree = tree
                await _call(self._on_tree_changed, list(tree))
            if not self._dirty:
                return
