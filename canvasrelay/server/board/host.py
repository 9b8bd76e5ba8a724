"""The board's adapters: the store behind `BoardRoom`'s effects, the board for agents' tools, the presence tick."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from pathlib import Path
from typing import Concatenate, ParamSpec

from canvasrelay.core import board_edits as board_api
from canvasrelay.core.board import EMPTY_UPDATE, Board, BoardBounds
from canvasrelay.core.board_edits import Edit
from canvasrelay.core.board_room import AwarenessDue, BoardRoom, CompactBoard, StoreBoardUpdate
from canvasrelay.core.recording import agent_author
from canvasrelay.core.room import Room
from canvasrelay.server.background import Background
from canvasrelay.server.board.log import BoardLog, set_aside
from canvasrelay.server.config import CanvasConfig
from canvasrelay.server.runtime import Adapter, Runtime

log = logging.getLogger(__name__)

_acting: ContextVar[str | None] = ContextVar("board_tools_acting_for", default=None)


def board_bounds(config: CanvasConfig) -> BoardBounds:
    """`[board] max_bytes` and `max_items` from `.canvas/config.toml`; the defaults otherwise."""
    return BoardBounds(config.board.max_bytes, config.board.max_items)


class BoardStore:
    """Carries out the board's store effects: an update is in the log before it is sent on."""

    def __init__(self, board_log: BoardLog, board: Board, warning: str | None = None) -> None:
        self.log = board_log
        self.board = board
        self.warning = warning
        """What the host should know about what was loaded: rows set aside, a board past its bound."""

    @classmethod
    def load(cls, path: Path, bounds: BoardBounds | None = None) -> BoardStore:
        """The stored board, whatever the log holds: a row that cannot be applied is kept aside
        (in `board.log.unusable`) and the rest loads; a board past its bound loads as it is."""
        board_log, updates = BoardLog.open(path)
        board, unusable = Board.load(updates, bounds)
        notes = []
        if unusable:
            aside = set_aside(path, [updates[index] for index in unusable])
            log.warning("%d board update(s) could not be applied and were set aside in %s", len(unusable), aside)
            notes.append(
                f"{len(unusable)} stored board change(s) could not be loaded; they were kept in .canvas/{aside.name}"
            )
        if (over := board.over_bounds()) is not None:
            log.warning("the stored board is past its bound: %s", over)
            notes.append(f"{over}: new items are refused until some are removed")
        return cls(board_log, board, "; ".join(notes) or None)

    async def append(self, effect: StoreBoardUpdate) -> None:
        self.log.append(effect.update)

    async def compact(self, _effect: CompactBoard | None = None) -> None:
        if self.board.updates_since_checkpoint == 0:
            return
        # The board holds every stored update (they are applied before they are stored), so its
        # state can replace them all.
        self.log.replace(self.board.checkpoint())


P = ParamSpec("P")


def _tool(fn: Callable[Concatenate[Board, P], Edit]) -> Callable[Concatenate[BoardTools, P], Awaitable[Edit]]:
    async def call(self: BoardTools, *args: P.args, **kwargs: P.kwargs) -> Edit:
        return await self.edit(fn, *args, **kwargs)

    call.__doc__ = fn.__doc__
    call.__name__ = fn.__name__
    return call


class BoardTools:
    """The board for other features (agents' `/note` and board tools): each edit is applied,
    stored and sent to every client, exactly like a peer's update, and meets the board's bound
    as one does. Errors are board_api's (`BoardApiError`, `UnknownItemError`) and the bound's
    (`BoardFullError`), raised before anything changed."""

    def __init__(self, board_room: BoardRoom, runtime: Runtime) -> None:
        self.board_room = board_room
        self.runtime = runtime
        self.edited_by: Callable[[str | None], None] = lambda _session_id: None
        """Told the agent session behind each edit through the board's tools (None: not known)."""

    @property
    def board(self) -> Board:
        return self.board_room.board

    def list_items(self) -> list[board_api.ItemSummary]:
        return board_api.list_items(self.board)

    def read_item(self, item_id: str) -> board_api.ItemSummary:
        return board_api.read_item(self.board, item_id)

    async def edit(self, fn: Callable[Concatenate[Board, P], Edit], *args: P.args, **kwargs: P.kwargs) -> Edit:
        session_id = _acting.get()
        return await self.edit_by(agent_author(session_id) if session_id else None, fn, *args, **kwargs)

    @contextmanager
    def acting_for(self, session_id: str | None) -> Iterator[None]:
        """The edits awaited inside are the agent session `session_id`'s (the recording credits them
        to it); a context variable, so concurrent tool calls of other sessions keep their own."""
        token = _acting.set(session_id)
        try:
            yield
        finally:
            _acting.reset(token)

    async def edit_by(
        self, peer: str | None, fn: Callable[Concatenate[Board, P], Edit], *args: P.args, **kwargs: P.kwargs
    ) -> Edit:
        """An edit made for `peer` (None: an agent's tools, session unknown), which every page receives."""
        with self.board.within_bounds():
            edit = fn(self.board, *args, **kwargs)
        if edit.update != EMPTY_UPDATE:
            await self.runtime.run(self.board_room.applied(edit.update, exclude=None, by=peer))
        return edit

    add_note = _tool(board_api.add_note)
    add_text = _tool(board_api.add_text)
    add_shape = _tool(board_api.add_shape)
    connect = _tool(board_api.add_arrow)
    add_frame = _tool(board_api.add_frame)
    move = _tool(board_api.move)
    delete = _tool(board_api.delete)
    add_free_arrow = _tool(board_api.add_free_arrow)
    add_image = _tool(board_api.add_image)
    group = _tool(board_api.group)
    ungroup = _tool(board_api.ungroup)
    set_locked = _tool(board_api.set_locked)


class BoardHost:
    """The board's adapter: its store effects and presence timer around the Room's side (`BoardRoom`)."""

    def __init__(self, room: Room, runtime: Runtime, board_log: Path, bounds: BoardBounds | None = None) -> None:
        self.runtime = runtime
        self.store = BoardStore.load(board_log, bounds)
        self.board_room = BoardRoom(room, self.store.board)
        self.board_room.warning = self.store.warning
        self.tools = BoardTools(self.board_room, runtime)
        self._flushes = Background("board presence")
        self._due: asyncio.TimerHandle | None = None

    async def _awareness_due(self, effect: AwarenessDue) -> None:
        # The room asks for one flush at a time, so this holds at most one timer.
        self._due = asyncio.get_running_loop().call_later(effect.delay, self._flush_awareness)

    def _flush_awareness(self) -> None:
        self._due = None
        self._flushes.spawn(self.runtime.run(self.board_room.flush_awareness()))

    def adapter(self) -> Adapter:
        return Adapter(
            "the board",
            effects={
                StoreBoardUpdate: self.store.append,
                CompactBoard: self.store.compact,
                AwarenessDue: self._awareness_due,
            },
            close=self.stop,
        )

    async def stop(self) -> None:
        """Stopping compacts what the log holds since the last checkpoint."""
        if self._due is not None:
            self._due.cancel()
        await self._flushes.close()
        await self.store.compact()
        self.store.log.close()
