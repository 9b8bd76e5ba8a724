"""Bring back the board, or one item, as it was at a moment: a new change on top of the present,
so every page receives it and nothing in the history is rewritten (adr/0031-the-room-replayable.md)."""

from __future__ import annotations

from pycrdt import Array, Doc, Map, Text

from canvasrelay.core.board import Board
from canvasrelay.core.board_edits import BoardApiError, Edit
from canvasrelay.protocol.board_items import ITEMS


def _copy(value: object) -> object:
    """A value of another document, made anew for this one."""
    if isinstance(value, Text):
        return Text(str(value))
    if isinstance(value, Map):
        return Map({key: _copy(inner) for key, inner in value.items()})
    if isinstance(value, Array):
        return Array([_copy(inner) for inner in value])
    return value


def _plain(value: object) -> object:
    return value.to_py() if isinstance(value, Map | Array | Text) else value


def restore(board: Board, past: bytes, item_id: str | None) -> Edit:
    """The board (or `item_id`) made as it was in `past` (a whole state, a Yjs update): items that
    were there and differ or have gone are put back, items added since are removed."""
    doc: Doc = Doc()
    doc.apply_update(past)
    then: Map = doc.get(ITEMS, type=Map)
    if item_id is not None and item_id not in then:
        raise BoardApiError("that item was not on the board at that moment")
    wanted = [item_id] if item_id is not None else list(then.keys())
    removed = [] if item_id is not None else [key for key in list(board.items.keys()) if key not in then]
    with board.change() as change:
        for key in removed:
            del board.items[key]
        for key in wanted:
            value = then[key]
            if key not in board.items or _plain(board.items[key]) != _plain(value):
                board.items[key] = _copy(value)
    return Edit(item_id or "", change.update, tuple(removed))
