"""Shared files, the Room's side: who has which file open, who watches the tree.

Sans-I/O: `canvasrelay.file_host` reads files and watches the folder, and reports back
through `loaded` and `tree_changed`. An open file is the room's: its content goes to every
peer (a view guest sees the files on the board), and opening a file that is already open
is only viewing it. The tree goes only to peers that may browse.
"""

from __future__ import annotations

from dataclasses import dataclass

from pydantic import ConfigDict, TypeAdapter

from canvasrelay.core.effects import AnyEffect, Broadcast, Effect, Send
from canvasrelay.core.feature import Feature, Route
from canvasrelay.core.peer import Peer
from canvasrelay.core.policy import Request
from canvasrelay.core.room import Room
from canvasrelay.protocol.access import Access, Action
from canvasrelay.protocol.core import ErrorFrame
from canvasrelay.protocol.files import DeniedFile, File, FileClose, FileContent, FileOpen, Tree, TreeWatch

_content = TypeAdapter[FileContent](FileContent, config=ConfigDict(defer_build=True))

MAX_OPEN_PER_PEER = 64
"""Files one peer holds open at once; opening another closes the one it opened longest ago."""


@dataclass(frozen=True)
class LoadFile(Effect):
    """Judge and read `path` (and watch it). `requester` opened it; None for a change on disk."""

    path: str
    requester: str | None


@dataclass(frozen=True)
class UnwatchFile(Effect):
    path: str


class SharedFiles:
    def __init__(self, room: Room) -> None:
        self.room = room
        self.holders: dict[str, set[str]] = {}
        self.held: dict[str, dict[str, None]] = {}
        """Per peer, the paths it holds, oldest first; a peer holding none has no entry."""
        self.contents: dict[str, FileContent] = {}
        """The last content sent of every open file."""
        self.tree: list[str] = []
        self.tree_watchers: set[str] = set()

    def feature(self) -> Feature:
        return Feature(
            "the shared files",
            routes={
                FileOpen: Route(self._open, request=self._open_request),
                FileClose: Route(self._close),
                TreeWatch: Route(self._watch_tree),
            },
            joined=self._joined,
            left=self._left,
        )

    def _open_request(self, _peer: Peer, frame: FileOpen) -> Request:
        return Request(Action.READ if frame.path in self.contents else Action.BROWSE_FILES)

    def _open(self, peer: Peer, frame: FileOpen) -> list[AnyEffect]:
        content = self.contents.get(frame.path)
        if content is None:
            return [LoadFile(frame.path, peer.id)]
        return [*self._hold(peer.id, frame.path), Send(peer.id, File(path=frame.path, file=content))]

    def _hold(self, peer_id: str, path: str) -> list[AnyEffect]:
        self.holders.setdefault(path, set()).add(peer_id)
        held = self.held.setdefault(peer_id, {})
        held.pop(path, None)
        held[path] = None
        if len(held) <= MAX_OPEN_PER_PEER:
            return []
        oldest = next(iter(held))
        notice = f"{oldest} no longer follows changes: at most {MAX_OPEN_PER_PEER} files stay open for one person"
        return [*self._release(peer_id, oldest), Send(peer_id, ErrorFrame(message=notice, ref="file-open"))]

    def _close(self, peer: Peer, frame: FileClose) -> list[AnyEffect]:
        return self._release(peer.id, frame.path)

    def _release(self, peer_id: str, path: str) -> list[AnyEffect]:
        holders = self.holders.get(path)
        if holders is None or peer_id not in holders:
            return []
        holders.discard(peer_id)
        self._unheld(peer_id, path)
        if holders:
            return []
        del self.holders[path]
        self.contents.pop(path, None)
        return [UnwatchFile(path)]

    def _unheld(self, peer_id: str, path: str) -> None:
        held = self.held.get(peer_id)
        if held is not None:
            held.pop(path, None)
            if not held:
                del self.held[peer_id]

    def loaded(self, path: str, payload: dict[str, object], requester: str | None) -> list[AnyEffect]:
        """The adapter read `path`: `payload` is `read_shared_file`'s answer."""
        content = _content.validate_python(payload)
        frame = File(path=path, file=content)
        if isinstance(content, DeniedFile):
            if path not in self.holders:
                return [Send(requester, frame)] if requester is not None else []
            # Shared a moment ago, not any more (a new .canvasignore line): everyone is told.
            for holder in self.holders.pop(path):
                self._unheld(holder, path)
            self.contents.pop(path, None)
            return [Broadcast(frame), UnwatchFile(path)]
        effects: list[AnyEffect] = []
        if requester is not None:
            if requester not in self.room.peers:
                return [] if path in self.holders else [UnwatchFile(path)]
            effects = self._hold(requester, path)
        elif path not in self.holders:
            return []
        if self.contents.get(path) == content:
            return [*effects, Send(requester, frame)] if requester is not None else []
        self.contents[path] = content
        return [*effects, Broadcast(frame)]

    def tree_changed(self, paths: list[str]) -> list[AnyEffect]:
        self.tree = paths
        frame = Tree(paths=paths)
        effects: list[AnyEffect] = [Send(peer_id, frame) for peer_id in sorted(self._browsers())]
        # The rules may have changed too: open files are judged again.
        return effects + [LoadFile(path, None) for path in self.holders]

    def _browsers(self) -> set[str]:
        """Tree watchers that may still browse (access can be lowered after they asked)."""
        peers = self.room.peers
        return {p for p in self.tree_watchers if p in peers and peers[p].access.rank >= Access.EDIT.rank}

    def _watch_tree(self, peer: Peer, _frame: TreeWatch) -> list[AnyEffect]:
        self.tree_watchers.add(peer.id)
        return [Send(peer.id, Tree(paths=self.tree))]

    def _joined(self, peer: Peer) -> list[AnyEffect]:
        return [Send(peer.id, File(path=path, file=content)) for path, content in self.contents.items()]

    def _left(self, peer: Peer) -> list[AnyEffect]:
        self.tree_watchers.discard(peer.id)
        effects: list[AnyEffect] = []
        for path in list(self.holders):
            effects += self._release(peer.id, path)
        return effects
