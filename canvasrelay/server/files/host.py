"""Shared files, the adapter's side: the shared set, reading files and the folder watcher.

Judging a path may run git and reading a file touches the disk, so both run in a thread;
what they find goes back to the Room's side (`SharedFiles`) through `runtime.run`.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

from canvasrelay.core.shared_files import LoadFile, SharedFiles, UnwatchFile
from canvasrelay.server.background import Background
from canvasrelay.server.files.reader import FileWatcher, read_resolution
from canvasrelay.server.files.shared_set import SharedSet
from canvasrelay.server.runtime import Adapter, Runtime


class FileHost:
    def __init__(self, runtime: Runtime, room_side: SharedFiles, root: Path) -> None:
        self.runtime = runtime
        self.room_side = room_side
        self.root = root
        self.shared: SharedSet | None = None
        self.watcher: FileWatcher | None = None
        self._switching = asyncio.Lock()
        self._switches = Background("file watcher")

    def adapter(self) -> Adapter:
        return Adapter("the shared files", effects={LoadFile: self._load, UnwatchFile: self._unwatch}, close=self.stop)

    async def start(self) -> None:
        self.shared = await asyncio.to_thread(SharedSet, self.root)
        self.watcher = FileWatcher(self.shared, self._file_changed, self._tree_changed)
        self.room_side.tree = self.shared.paths()
        # The folder is watched only while someone is in the room: its threads wake several times
        # a second, for nobody, otherwise.
        self.runtime.occupancy.register(self._follow_occupancy, self._follow_occupancy)

    def _follow_occupancy(self) -> None:
        self._switches.spawn(self._switch())

    async def _switch(self) -> None:
        """Start or stop watching as the room is now; one switch at a time, so a quick leave and
        return ends watching."""
        async with self._switching:
            if self.watcher is None:
                return
            if self.runtime.occupancy.occupied:
                await self.watcher.start()
            else:
                await self.watcher.stop()

    async def stop(self) -> None:
        await self._switches.close()
        if self.watcher is not None:
            await self.watcher.stop()
        if self.shared is not None:
            await asyncio.to_thread(self.shared.close)

    def _watch_and_read(self, path: str) -> dict[str, object]:
        assert self.shared is not None and self.watcher is not None
        resolution = self.shared.check(path)
        # Watch first, then read: a change between the two is then seen, not lost.
        watching = self.watcher.open(path, resolution)
        payload = read_resolution(resolution)
        if watching and payload["kind"] == "denied":
            self.watcher.close(path)
        return payload

    async def _load(self, effect: LoadFile) -> None:
        payload = await asyncio.to_thread(self._watch_and_read, effect.path)
        await self.runtime.run(self.room_side.loaded(effect.path, payload, effect.requester))

    async def _unwatch(self, effect: UnwatchFile) -> None:
        if self.watcher is not None and effect.path not in self.room_side.holders:
            self.watcher.close(effect.path)

    async def _file_changed(self, path: str) -> None:
        if path in self.room_side.holders:
            await self._load(LoadFile(path, None))

    async def _tree_changed(self, paths: list[str]) -> None:
        await self.runtime.run(self.room_side.tree_changed(paths))
