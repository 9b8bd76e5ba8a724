"""The board document's item schema (see adr/0003-board-schema.md): the names every writer of
the Yjs document shares, Python's board edits and the web app alike (generated to TypeScript)."""

from __future__ import annotations

from typing import Literal, get_args

ITEMS = "items"
"""The document's one root: a map of item id to item."""

ItemKind = Literal["note", "text", "shape", "arrow", "stroke", "frame"]
ShapeKind = Literal["rect", "ellipse"]
HoldsType = Literal["agent", "terminal", "file"]
"""What a frame holds: an agent session, a terminal or a shared file."""

KINDS: tuple[str, ...] = get_args(ItemKind)
SHAPES: tuple[str, ...] = get_args(ShapeKind)
HOLDS_TYPES: tuple[str, ...] = get_args(HoldsType)
