"""What agents' board tools do: read and edit the board through its schema (adr/0003-board-schema.md).

Every edit is one transaction on the server's `Board` and returns the exact Yjs update it made,
for the server to store and broadcast like a peer's update. Inputs are checked before anything
is written, so a refused call changes nothing.
"""

from __future__ import annotations

import math
import secrets
from collections.abc import Iterable
from dataclasses import dataclass
from typing import NotRequired, TypedDict, cast

from pycrdt import Array, Map, Text

from canvasrelay.core.board import Board
from canvasrelay.core.board_values import is_colour, is_image_src
from canvasrelay.protocol.board_items import HOLDS_TYPES, KINDS, MAX_IMAGE_SRC, SHAPES

MAX_TEXT = 10_000
MAX_TITLE = 200
MAX_REF = 4096
MAX_COORDINATE = 1e7
MAX_SIZE = 1e5
GAP = 40.0

DEFAULTS: dict[str, tuple[float, float, str]] = {
    "note": (200.0, 200.0, "#ffd43b"),
    "text": (240.0, 60.0, "#1e1e1e"),
    "shape": (160.0, 100.0, "#4dabf7"),
    "arrow": (1.0, 1.0, "#495057"),
    "frame": (640.0, 480.0, "#868e96"),
    "image": (320.0, 240.0, "#868e96"),
}
MAX_LABEL = 200
MAX_GROUP = 500


class BoardApiError(ValueError):
    """A board tool call with bad arguments; the board is unchanged."""


class UnknownItemError(KeyError):
    """No item with that id (it may have been deleted by someone else meanwhile)."""

    def __init__(self, item_id: str) -> None:
        super().__init__(item_id)
        self.item_id = item_id

    def __str__(self) -> str:
        # KeyError's own str() is the repr of its argument, not a message a model can act on.
        return f"no item with id {self.item_id!r} on the board (list_items shows the current ones)"


@dataclass(frozen=True)
class Edit:
    """The item an edit was about, the items it removed, and the update to store and broadcast."""

    id: str
    update: bytes
    removed: tuple[str, ...] = ()


def _number(name: str, value: object, limit: float, positive: bool = False) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise BoardApiError(f"{name} must be a number, got {type(value).__name__}")
    number = float(value)
    if not math.isfinite(number) or abs(number) > limit:
        raise BoardApiError(f"{name} must be a finite number within ±{limit:g}, got {value!r}")
    if positive and number <= 0:
        raise BoardApiError(f"{name} must be greater than 0, got {value!r}")
    return number


def _string(name: str, value: object, limit: int, allow_empty: bool = True) -> str:
    if not isinstance(value, str):
        raise BoardApiError(f"{name} must be a string, got {type(value).__name__}")
    if len(value) > limit:
        raise BoardApiError(f"{name} is {len(value)} characters long; the limit is {limit}")
    if not allow_empty and not value.strip():
        raise BoardApiError(f"{name} must not be empty")
    return value


def _color(value: str | None, kind: str) -> str:
    if value is None:
        return DEFAULTS[kind][2]
    if not is_colour(value):
        raise BoardApiError(f"color must be a CSS hex colour like '#ffd43b' or a colour name, got {value!r}")
    return value


ItemValue = float | str | bool | Text | Map | Array
"""What one field of an item holds in the document: a number, a word, or a shared text, map or list."""
ItemFields = dict[str, ItemValue]
"""A new item's fields, as written into the document (adr/0003-board-schema.md)."""

ItemSummary = TypedDict(
    "ItemSummary",
    {
        "id": str,
        "kind": str,
        "x": float,
        "y": float,
        "w": float,
        "h": float,
        "z": float,
        "color": str | None,
        "text": NotRequired[str],
        "shape": NotRequired[str],
        "group": NotRequired[str],
        "locked": NotRequired[bool],
        "from": NotRequired[str | None],
        "to": NotRequired[str | None],
        "x1": NotRequired[float],
        "y1": NotRequired[float],
        "x2": NotRequired[float],
        "y2": NotRequired[float],
        "bend": NotRequired[float],
        "label": NotRequired[str],
        "alt": NotRequired[str],
        "has_image": NotRequired[bool],
        "points": NotRequired[list[float]],
        "holds": NotRequired[dict[str, str] | None],
        "title": NotRequired[str | None],
    },
)
"""An item as the board tools describe it to an agent: its place and what it says, by kind."""


def _item(board: Board, item_id: str) -> Map:
    item = board.items.get(item_id) if isinstance(item_id, str) else None
    if not isinstance(item, Map) or item.get("kind") not in KINDS:
        raise UnknownItemError(str(item_id))
    return item


def _float(item: Map, key: str) -> float:
    value = item.get(key)
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
        return 0.0
    return float(value)


def _describe(item_id: str, item: Map) -> ItemSummary:
    kind = item.get("kind")
    out: dict[str, object] = {
        "id": item_id,
        "kind": kind,
        "x": _float(item, "x"),
        "y": _float(item, "y"),
        "w": _float(item, "w"),
        "h": _float(item, "h"),
        "z": _float(item, "z"),
        "color": item.get("color") if isinstance(item.get("color"), str) else None,
    }
    text = item.get("text")
    if isinstance(text, Text | str):
        out["text"] = str(text)
    if kind == "shape":
        out["shape"] = item.get("shape")
    for key in ("group", "locked"):
        if item.get(key) is not None:
            out[key] = item.get(key)
    if kind == "arrow":
        out["from"] = item.get("from")
        out["to"] = item.get("to")
        for key in ("x1", "y1", "x2", "y2", "bend"):
            value = item.get(key)
            if isinstance(value, int | float) and not isinstance(value, bool):
                out[key] = float(value)
        label = item.get("label")
        if isinstance(label, str) and label:
            out["label"] = label
    if kind == "image":
        out["alt"] = item.get("alt") if isinstance(item.get("alt"), str) else ""
        out["has_image"] = isinstance(item.get("src"), str)
    if kind == "stroke":
        points = item.get("points")
        numbers: Iterable[object] = points if isinstance(points, Array) else []
        out["points"] = [float(p) for p in numbers if isinstance(p, int | float) and not isinstance(p, bool)]
    if kind == "frame":
        holds = item.get("holds")
        out["holds"] = holds.to_py() if isinstance(holds, Map) else None
        out["title"] = item.get("title")
    # Built key by key: which keys an item has depends on its kind.
    return cast(ItemSummary, out)


def list_items(board: Board) -> list[ItemSummary]:
    """Every item that fits the schema, back to front."""
    found = []
    for item_id, item in board.items.items():
        if isinstance(item, Map) and item.get("kind") in KINDS:
            found.append(_describe(item_id, item))
    found.sort(key=lambda entry: (entry["z"], entry["id"]))
    return found


def read_item(board: Board, item_id: str) -> ItemSummary:
    return _describe(item_id, _item(board, item_id))


def _free_spot(board: Board) -> tuple[float, float]:
    """Right of everything on the board, top-aligned with it, so a new item covers nothing."""
    items = list_items(board)
    if not items:
        return 0.0, 0.0
    right = max(entry["x"] + entry["w"] for entry in items)
    top = min(entry["y"] for entry in items)
    return min(right + GAP, MAX_COORDINATE), top


def spot_beside(board: Board, ref: str, kind: str = "note") -> tuple[float, float] | None:
    """Where a new `kind` item goes touching the frame that holds `ref` (an agent's session): right
    of it, else below, left or above it, the first spot that covers nothing; None without one."""
    items = [entry for entry in list_items(board) if entry["kind"] != "arrow"]
    frame = next((e for e in items if e["kind"] == "frame" and (e.get("holds") or {}).get("ref") == ref), None)
    if frame is None:
        return None
    w, h, _ = DEFAULTS[kind]
    x, y, fw, fh = frame["x"], frame["y"], frame["w"], frame["h"]
    for left, top in ((x + fw + GAP, y), (x, y + fh + GAP), (x - w - GAP, y), (x, y - h - GAP)):
        if not any(_overlaps((left, top, w, h), other) for other in items):
            return left, top
    return None


def _overlaps(box: tuple[float, float, float, float], item: ItemSummary) -> bool:
    left, top, w, h = box
    across = left < item["x"] + item["w"] + GAP and item["x"] < left + w + GAP
    return across and top < item["y"] + item["h"] + GAP and item["y"] < top + h + GAP


def _next_z(board: Board) -> float:
    return max((entry["z"] for entry in list_items(board)), default=0.0) + 1.0


def _place(
    board: Board, kind: str, x: float | None, y: float | None, w: float | None, h: float | None
) -> tuple[float, float, float, float]:
    default_w, default_h, _ = DEFAULTS[kind]
    width = default_w if w is None else _number("w", w, MAX_SIZE, positive=True)
    height = default_h if h is None else _number("h", h, MAX_SIZE, positive=True)
    if (x is None) != (y is None):
        raise BoardApiError("give both x and y, or neither to let the board place the item")
    if x is None or y is None:
        left, top = _free_spot(board)
    else:
        left, top = _number("x", x, MAX_COORDINATE), _number("y", y, MAX_COORDINATE)
    return left, top, width, height


def _add(board: Board, fields: ItemFields) -> Edit:
    item_id = secrets.token_hex(6)
    fields["z"] = _next_z(board)
    with board.change() as change:
        board.items[item_id] = Map(fields)
    return Edit(item_id, change.update)


def _add_with_text(
    board: Board,
    kind: str,
    text: str,
    x: float | None,
    y: float | None,
    color: str | None,
    w: float | None,
    h: float | None,
    extra: ItemFields | None = None,
) -> Edit:
    body = _string("text", text, MAX_TEXT)
    left, top, width, height = _place(board, kind, x, y, w, h)
    fields = {"kind": kind, **(extra or {}), "x": left, "y": top, "w": width, "h": height}
    return _add(board, {**fields, "color": _color(color, kind), "text": Text(body)})


def add_note(
    board: Board,
    text: str,
    x: float | None = None,
    y: float | None = None,
    color: str | None = None,
    w: float | None = None,
    h: float | None = None,
) -> Edit:
    return _add_with_text(board, "note", text, x, y, color, w, h)


def add_text(
    board: Board,
    text: str,
    x: float | None = None,
    y: float | None = None,
    color: str | None = None,
    w: float | None = None,
    h: float | None = None,
) -> Edit:
    return _add_with_text(board, "text", text, x, y, color, w, h)


def add_shape(
    board: Board,
    shape: str = "rect",
    text: str = "",
    x: float | None = None,
    y: float | None = None,
    w: float | None = None,
    h: float | None = None,
    color: str | None = None,
) -> Edit:
    if shape not in SHAPES:
        raise BoardApiError(f"shape must be one of {', '.join(SHAPES)}, got {shape!r}")
    return _add_with_text(board, "shape", text, x, y, color, w, h, {"shape": shape})


def add_arrow(board: Board, from_id: str, to_id: str, color: str | None = None) -> Edit:
    """Connect two items with an arrow."""
    ends = [_item(board, from_id), _item(board, to_id)]
    if from_id == to_id:
        raise BoardApiError("an arrow needs two different items")
    if any(end.get("kind") == "arrow" for end in ends):
        raise BoardApiError("an arrow connects items, not other arrows")
    boxes = [read_item(board, end_id) for end_id in (from_id, to_id)]
    left = min(box["x"] for box in boxes)
    top = min(box["y"] for box in boxes)
    width = max(max(box["x"] + box["w"] for box in boxes) - left, 1.0)
    height = max(max(box["y"] + box["h"] for box in boxes) - top, 1.0)
    fields: ItemFields = {"kind": "arrow", "from": from_id, "to": to_id, "x": left, "y": top, "w": width, "h": height}
    return _add(board, {**fields, "color": _color(color, "arrow")})


def add_frame(
    board: Board,
    holds_type: str,
    ref: str,
    title: str = "",
    x: float | None = None,
    y: float | None = None,
    w: float | None = None,
    h: float | None = None,
    color: str | None = None,
) -> Edit:
    """A frame showing an agent session, a terminal or a file on the board."""
    if holds_type not in HOLDS_TYPES:
        raise BoardApiError(f"holds_type must be one of {', '.join(HOLDS_TYPES)}, got {holds_type!r}")
    reference = _string("ref", ref, MAX_REF, allow_empty=False)
    caption = _string("title", title, MAX_TITLE)
    left, top, width, height = _place(board, "frame", x, y, w, h)
    fields: ItemFields = {"kind": "frame", "x": left, "y": top, "w": width, "h": height, "title": caption}
    holds = Map({"type": holds_type, "ref": reference})
    return _add(board, {**fields, "color": _color(color, "frame"), "holds": holds})


def _end(board: Board, name: str, item_id: str | None, point: tuple[float, float] | None) -> ItemFields:
    """One end of an arrow: bound to an item (it follows the item) or free at a board point."""
    if item_id is not None:
        if _item(board, item_id).get("kind") == "arrow":
            raise BoardApiError("an arrow connects items, not other arrows")
        return {"from" if name == "1" else "to": item_id}
    if point is None:
        raise BoardApiError(f"give the arrow's {'start' if name == '1' else 'end'} as an item id or as a point")
    return {
        f"x{name}": _number(f"x{name}", point[0], MAX_COORDINATE),
        f"y{name}": _number(f"y{name}", point[1], MAX_COORDINATE),
    }


def add_free_arrow(
    board: Board,
    x1: float | None = None,
    y1: float | None = None,
    x2: float | None = None,
    y2: float | None = None,
    from_id: str | None = None,
    to_id: str | None = None,
    bend: float = 0.0,
    label: str = "",
    color: str | None = None,
) -> Edit:
    """An arrow from anywhere to anywhere: each end is an item (bound, it follows the item) or a
    point; `bend` pushes its middle sideways (board units), `label` is written along it."""
    start = _end(board, "1", from_id, None if x1 is None or y1 is None else (x1, y1))
    end = _end(board, "2", to_id, None if x2 is None or y2 is None else (x2, y2))
    if from_id is not None and from_id == to_id:
        raise BoardApiError("an arrow needs two different items")
    xs = [v for v in (start.get("x1"), end.get("x2")) if isinstance(v, float)]
    ys = [v for v in (start.get("y1"), end.get("y2")) if isinstance(v, float)]
    fields: ItemFields = {
        "kind": "arrow",
        **start,
        **end,
        "x": min(xs, default=0.0),
        "y": min(ys, default=0.0),
        "w": max(max(xs, default=1.0) - min(xs, default=0.0), 1.0),
        "h": max(max(ys, default=1.0) - min(ys, default=0.0), 1.0),
        "bend": _number("bend", bend, MAX_SIZE),
        "label": _string("label", label, MAX_LABEL),
    }
    return _add(board, {**fields, "color": _color(color, "arrow")})


def add_image(
    board: Board,
    alt: str,
    src: str | None = None,
    x: float | None = None,
    y: float | None = None,
    w: float | None = None,
    h: float | None = None,
) -> Edit:
    """An image kept in the board (a data: URL of a PNG, JPEG, GIF or WebP within `MAX_IMAGE_SRC`),
    or without `src` a placeholder that says what belongs there."""
    words = _string("alt", alt, MAX_TITLE, allow_empty=False)
    left, top, width, height = _place(board, "image", x, y, w, h)
    fields: ItemFields = {"kind": "image", "x": left, "y": top, "w": width, "h": height, "alt": words}
    if src is not None:
        if len(src) > MAX_IMAGE_SRC:
            raise BoardApiError(f"the image is {len(src)} characters long; the limit is {MAX_IMAGE_SRC}")
        if not is_image_src(src):
            raise BoardApiError("src must be a data: URL of a base64 PNG, JPEG, GIF or WebP image")
        fields["src"] = src
    return _add(board, {**fields, "color": _color(None, "image")})


def group(board: Board, item_ids: list[str]) -> Edit:
    """Group items: selecting one selects them all, and they move together. Returns the group's id."""
    if not isinstance(item_ids, list) or not 2 <= len(set(item_ids)) <= MAX_GROUP:
        raise BoardApiError(f"a group needs between 2 and {MAX_GROUP} different item ids")
    items = [_item(board, item_id) for item_id in item_ids]
    group_id = secrets.token_hex(6)
    with board.change() as change:
        for item in items:
            item["group"] = group_id
    return Edit(group_id, change.update)


def ungroup(board: Board, group_id: str) -> Edit:
    members = [item for item in board.items.values() if isinstance(item, Map) and item.get("group") == group_id]
    if not members:
        raise BoardApiError(f"no group with id {group_id!r} on the board")
    with board.change() as change:
        for item in members:
            del item["group"]
    return Edit(group_id, change.update)


def set_locked(board: Board, item_id: str, locked: bool) -> Edit:
    """A locked item cannot be moved, resized, edited or deleted until someone unlocks it."""
    item = _item(board, item_id)
    with board.change() as change:
        item["locked"] = bool(locked)
    return Edit(item_id, change.update)


def move(board: Board, item_id: str, x: float, y: float) -> Edit:
    item = _item(board, item_id)
    if item.get("kind") == "arrow":
        raise BoardApiError("an arrow follows the items it connects; move those instead")
    if item.get("locked") is True:
        raise BoardApiError("that item is locked; unlock it first")
    left, top = _number("x", x, MAX_COORDINATE), _number("y", y, MAX_COORDINATE)
    with board.change() as change:
        item["x"] = left
        item["y"] = top
    return Edit(item_id, change.update)


def delete(board: Board, item_id: str) -> Edit:
    """Delete an item and the arrows attached to it, in one update."""
    if _item(board, item_id).get("locked") is True:
        raise BoardApiError("that item is locked; unlock it first")
    attached = [
        other_id
        for other_id, other in board.items.items()
        if isinstance(other, Map) and other.get("kind") == "arrow" and item_id in (other.get("from"), other.get("to"))
    ]
    with board.change() as change:
        for other_id in attached:
            del board.items[other_id]
        del board.items[item_id]
    return Edit(item_id, change.update, tuple(attached))
