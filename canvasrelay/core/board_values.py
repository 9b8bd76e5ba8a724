"""The board's values by their type (adr/0003-board-schema.md, adr/0028-pages-fetch-nothing.md).

Every page draws an item's colours into styles, and an export writes them into SVG attributes, so
a colour that is not a colour (`url(…)`, `"/><script>`) would fetch or inject there. Whoever writes
the board (a guest's page, the host's, an agent's tools) is held to the same types: a key the
schema knows must hold a value of its kind. Keys and kinds it does not know pass, as ADR 0003 lets
new ones come; readers skip them.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable

from pycrdt import Array, Map, Text

from canvasrelay.protocol.board_items import (
    COLOUR_PATTERN,
    DASHES,
    HOLDS_TYPES,
    IMAGE_SRC_PATTERN,
    MAX_FONT_SIZE,
    MAX_IMAGE_SRC,
    MAX_STROKE_WIDTH,
    SHAPES,
)
from canvasrelay.protocol.visible_text import visible

COLOUR = re.compile(COLOUR_PATTERN)
IMAGE_SRC = re.compile(IMAGE_SRC_PATTERN)
SHOWN_CHARS = 40
"""How much of a refused value the message quotes."""
KIND_WORDS = {
    "note": "A note",
    "text": "A text",
    "shape": "A shape",
    "arrow": "An arrow",
    "stroke": "A drawing",
    "frame": "A frame",
    "image": "An image",
}


def is_colour(value: object) -> bool:
    return isinstance(value, str) and COLOUR.fullmatch(value) is not None


def is_image_src(value: object) -> bool:
    return isinstance(value, str) and len(value) <= MAX_IMAGE_SRC and IMAGE_SRC.fullmatch(value) is not None


def _number(value: object) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value)


def _within(limit: float) -> Callable[[object], bool]:
    def fits(value: object) -> bool:
        return isinstance(value, int | float) and _number(value) and 0 < value <= limit

    return fits


def _holds(value: object) -> bool:
    return isinstance(value, Map) and value.get("type") in HOLDS_TYPES and isinstance(value.get("ref"), str)


def _points(value: object) -> bool:
    return isinstance(value, Array) and all(_number(point) for point in value)


def _words(value: object) -> bool:
    return isinstance(value, str)


def _either(words: tuple[str, ...]) -> str:
    return f"{', '.join(words[:-1])} or {words[-1]}"


RULES: dict[str, tuple[Callable[[object], bool], str, str]] = {
    "kind": (_words, "kind", "a word"),
    "color": (is_colour, "colour", "a colour such as #1971c2 or red"),
    "fill": (is_colour, "fill", "a colour such as #ffd43b, or none"),
    "strokeWidth": (_within(MAX_STROKE_WIDTH), "line width", f"a number above 0 and at most {MAX_STROKE_WIDTH:g}"),
    "fontSize": (_within(MAX_FONT_SIZE), "text size", f"a number above 0 and at most {MAX_FONT_SIZE:g}"),
    "dash": (lambda value: value in DASHES, "line style", _either(DASHES)),
    "shape": (lambda value: value in SHAPES, "outline", _either(SHAPES)),
    "src": (is_image_src, "picture", f"a PNG, JPEG, GIF or WebP in the board, {MAX_IMAGE_SRC:,} characters at most"),
    "text": (lambda value: isinstance(value, Text | str), "text", "words"),
    "holds": (_holds, "content", "what it shows (an agent, a terminal or a file) and which one"),
    "points": (_points, "line", "a list of numbers"),
    "locked": (lambda value: isinstance(value, bool), "lock", "true or false"),
    **{key: (_number, "position", "a number") for key in ("x", "y", "x1", "y1", "x2", "y2")},
    **{key: (_number, "size", "a number") for key in ("w", "h")},
    "z": (_number, "place in front or behind", "a number"),
    "bend": (_number, "bend", "a number"),
    **{key: (_words, word, "words") for key, word in (("label", "label"), ("title", "title"), ("alt", "description"))},
    **{key: (_words, "link", "an item's id") for key in ("from", "to", "group")},
}
"""For each key the schema knows: whether a value fits, what the key is called, what it must be."""


def item_problem(item: Map, keys: set[str] | None = None) -> str | None:
    """What is wrong with `item` (only its `keys`, given them), in words a person reads; or None."""
    kind = item.get("kind")
    for key in item.keys() if keys is None else keys:
        rule = RULES.get(key)
        value = item.get(key)
        # Yjs may hold null, which every reader takes for an absent key.
        if rule is None or value is None:
            continue
        fits, name, expected = rule
        if not fits(value):
            whose = KIND_WORDS.get(kind, "A board item") if isinstance(kind, str) else "A board item"
            return f"{whose}'s {name} must be {expected}; it was {_shown(value)}."
    return None


def _shown(value: object) -> str:
    if isinstance(value, str):
        text, _ = visible(value[:SHOWN_CHARS])
        return f"“{text}…”" if len(value) > SHOWN_CHARS else f"“{text}”"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return f"{value:g}" if _number(value) else "not a number"
    if isinstance(value, Map):
        return "a map"
    return "a list" if isinstance(value, Array) else "something else"
