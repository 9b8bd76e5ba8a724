"""The board document's item schema (see adr/0003-board-schema.md): the names every writer of
the Yjs document shares, Python's board edits and the web app alike (generated to TypeScript)."""

from __future__ import annotations

from typing import Literal, get_args

ITEMS = "items"
"""The document's one root: a map of item id to item."""

ItemKind = Literal["note", "text", "shape", "arrow", "stroke", "frame", "image"]
ShapeKind = Literal["rect", "ellipse"]
HoldsType = Literal["agent", "terminal", "file"]
"""What a frame holds: an agent session, a terminal or a shared file."""

KINDS: tuple[str, ...] = get_args(ItemKind)
SHAPES: tuple[str, ...] = get_args(ShapeKind)
HOLDS_TYPES: tuple[str, ...] = get_args(HoldsType)
DashKind = Literal["solid", "dashed", "dotted"]
DASHES: tuple[str, ...] = get_args(DashKind)
STROKE_WIDTHS = (1.0, 2.0, 4.0, 8.0)
"""The style bar's widths, in board units: thin, normal, bold, extra bold."""
FONT_SIZES = (12.0, 16.0, 24.0, 36.0)
MAX_IMAGE_SRC = 400_000
"""An image kept in the board is a data: URL of at most this many characters (about 300 KB), so
one paste fits one board update frame and a board stays within its size bound."""
MAX_STROKE_WIDTH = 64.0
MAX_FONT_SIZE = 200.0
COLOUR_PATTERN = r"#(?:[0-9a-fA-F]{3}|[0-9a-fA-F]{4}|[0-9a-fA-F]{6}|[0-9a-fA-F]{8})|[a-zA-Z]{1,20}"
"""A colour an item may hold (`color`, `fill`): hex digits or a colour's name, so that drawn into a
style or an exported SVG it can only ever be a colour (never `url(…)` nor the end of an attribute).
Matched whole: `re.fullmatch`, or `^(?:…)$` in the web app."""
IMAGE_SRC_PATTERN = r"data:image/(?:png|jpeg|gif|webp);base64,[A-Za-z0-9+/]+={0,2}"
"""An image's `src`: a raster picture held in the board, which loads nothing. Not SVG, which may
hold scripts and links of its own."""
