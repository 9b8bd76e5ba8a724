from __future__ import annotations

import asyncio
import subprocess
from collections.abc import AsyncIterator, Callable
from pathlib import Path

import pytest

from canvasrelay.server.files.reader import FileWatcher, read_shared_file
from canvasrelay.server.files.shared_set import SharedSet

pytestmark = pytest.mark.timeout(60)


class Events:
    def __init__(self) -> None:
        self.changed: list[str] = []
        self.trees: list[list[str]] = []
        self._signal = asyncio.Event()

    def on_file_changed(self, path: str) -> None:
        self.changed.append(path)
        self._signal.set()

    async def on_tree_changed(self, paths: list[str]) -> None:
        self.trees.append(paths)
        self._signal.set()

    async def until(self, condition: Callable[[], bool], poke: Callable[[], None], timeout: float = 10.0) -> None:
        """Wait for `condition`, redoing `poke` now and then: the OS watch may still be
        settling when a test makes its first change."""

        async def wait() -> None:
            poke()
            while not condition():
                self._signal.clear()
                try:
                    await asyncio.wait_for(self._signal.wait(), 1.0)
                except TimeoutError:
                    poke()

        await asyncio.wait_for(wait(), timeout)


@pytest.fixture
async def watched(tmp_path: Path) -> AsyncIterator[tuple[Path, FileWatcher, Events]]:
    (tmp_path / "a.py").write_text("one\n")
    (tmp_path / ".gitignore").write_text("*.log\n")
    events = Events()
    watcher = FileWatcher(SharedSet(tmp_path), events.on_file_changed, events.on_tree_changed, debounce_s=0.1)
    await watcher.start()
    yield tmp_path, watcher, events
    await asyncio.wait_for(watcher.stop(), 5)


async def test_open_file_change_is_reported(watched: tuple[Path, FileWatcher, Events]) -> None:
    root, watcher, events = watched
    assert watcher.open("a.py")
    assert not watcher.open("../etc/passwd")
    text = iter(f"edit {n}\n" for n in range(1000))
    await events.until(lambda: "a.py" in events.changed, lambda: (root / "a.py").write_text(next(text)))
    assert read_shared_file(watcher._shared, "a.py")["kind"] == "text"
    watcher.close("a.py")


async def test_tree_follows_new_and_deleted_files(watched: tuple[Path, FileWatcher, Events]) -> None:
    root, watcher, events = watched
    await events.until(lambda: "b.py" in watcher.tree, lambda: (root / "b.py").write_text("x"))
    assert events.trees[-1] == [".gitignore", "a.py", "b.py"]
    await events.until(lambda: "b.py" not in watcher.tree, lambda: (root / "b.py").unlink(missing_ok=True))
    assert events.trees[-1] == [".gitignore", "a.py"]
    (root / "noise.log").write_text("ignored")
    await events.until(lambda: "c.py" in watcher.tree, lambda: (root / "c.py").write_text("x"))
    assert "noise.log" not in watcher.tree


async def test_new_canvasignore_line_prunes_the_tree(watched: tuple[Path, FileWatcher, Events]) -> None:
    root, watcher, events = watched
    await events.until(lambda: "b.py" in watcher.tree, lambda: (root / "b.py").write_text("x"))
    await events.until(lambda: "b.py" not in watcher.tree, lambda: (root / ".canvasignore").write_text("b.py\n"))
    assert events.trees[-1] == [".canvasignore", ".gitignore", "a.py"]


async def test_git_churn_does_not_spam_recomputes(tmp_path: Path) -> None:
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    (tmp_path / "a.py").write_text("x")
    subprocess.run(["git", "-C", str(tmp_path), "add", "a.py"], check=True)
    index = (tmp_path / ".git" / "index").read_bytes()
    shared = SharedSet(tmp_path)
    refreshes = 0
    real_refresh = shared.refresh

    def counting_refresh() -> list[str]:
        nonlocal refreshes
        refreshes += 1
        return real_refresh()

    shared.refresh = counting_refresh  # type: ignore[method-assign]
    events = Events()
    watcher = FileWatcher(shared, events.on_file_changed, events.on_tree_changed, debounce_s=0.2)
    await watcher.start()
    try:
        loop = asyncio.get_running_loop()
        start = loop.time()
        for n in range(200):
            (tmp_path / ".git" / f"objects-{n}").write_text("x")
            (tmp_path / ".git" / "index").write_bytes(index)
            if n % 20 == 0:
                await asyncio.sleep(0.01)
        await events.until(lambda: "z.py" in watcher.tree, lambda: (tmp_path / "z.py").write_text("x"))
        elapsed = loop.time() - start
        assert refreshes <= elapsed / 0.2 + 2
    finally:
        await watcher.stop()


async def test_a_new_top_level_folder_is_watched(watched: tuple[Path, FileWatcher, Events]) -> None:
    """Top-level folders are watched one by one (so `.canvas/` is not); a new one joins the watch."""
    root, watcher, events = watched
    (root / "src").mkdir()
    await events.until(lambda: "src/first.py" in watcher.tree, lambda: (root / "src" / "first.py").write_text("1"))
    (root / "src" / "deep").mkdir()
    await events.until(
        lambda: "src/deep/second.py" in watcher.tree, lambda: (root / "src" / "deep" / "second.py").write_text("2")
    )
    assert watcher.open("src/deep/second.py")
    text = iter(f"edit {n}\n" for n in range(1000))
    await events.until(
        lambda: "src/deep/second.py" in events.changed,
        lambda: (root / "src" / "deep" / "second.py").write_text(next(text)),
    )


async def test_the_store_folder_is_not_watched(tmp_path: Path) -> None:
    (tmp_path / "a.py").write_text("one\n")
    (tmp_path / ".canvas").mkdir()
    watcher = FileWatcher(SharedSet(tmp_path), lambda path: None, lambda paths: None)
    await watcher.start()
    try:
        _, tasks = watcher._generation
        assert len(tasks) == 1, "only the root's own entries: .canvas/ is the one top-level folder"
    finally:
        await asyncio.wait_for(watcher.stop(), 5)
