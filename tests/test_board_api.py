"""Agents' board tools: every call, its update, and its refusals."""

from __future__ import annotations

import math
from collections.abc import Callable

import pytest
from pycrdt import Doc, Map

from canvasrelay.core import board_edits as api
from canvasrelay.core.board import Board


def replay(*edits: api.Edit) -> Board:
    """A peer that only got the returned updates must see the same board."""
    board = Board()
    for edit in edits:
        board.apply_update(edit.update, origin="peer")
    return board


def test_add_note_and_read_it_back() -> None:
    board = Board()
    edit = api.add_note(board, "héllo 😀 世界", x=10, y=-20.5, color="#ff0000")
    item = api.read_item(board, edit.id)
    assert item == {
        "id": edit.id,
        "kind": "note",
        "x": 10.0,
        "y": -20.5,
        "w": 200.0,
        "h": 200.0,
        "z": 1.0,
        "color": "#ff0000",
        "text": "héllo 😀 世界",
    }
    assert replay(edit).to_json() == board.to_json()
    assert all(isinstance(board.items[edit.id][key], float) for key in ("x", "y", "w", "h", "z"))


def test_auto_placement_goes_right_of_everything() -> None:
    board = Board()
    first = api.add_note(board, "one")
    assert (api.read_item(board, first.id)["x"], api.read_item(board, first.id)["y"]) == (0.0, 0.0)
    api.add_note(board, "two", x=500, y=100)
    third = api.add_text(board, "three")
    placed = api.read_item(board, third.id)
    assert placed["x"] == 500 + 200 + api.GAP and placed["y"] == 0.0
    assert placed["z"] == 3.0


def test_a_note_goes_beside_the_frame_of_its_session_where_that_is_free() -> None:
    board = Board()
    api.add_frame(board, "agent", "session-1", x=0, y=0)
    assert api.spot_beside(board, "session-1") == (640 + api.GAP, 0.0)
    # Taken on the right: below, then left, then above.
    api.add_note(board, "in the way", x=700, y=0)
    assert api.spot_beside(board, "session-1") == (0.0, 480 + api.GAP)
    api.add_note(board, "below", x=0, y=520)
    assert api.spot_beside(board, "session-1") == (-200 - api.GAP, 0.0)
    api.add_note(board, "left", x=-240, y=0)
    assert api.spot_beside(board, "session-1") == (0.0, -200 - api.GAP)
    api.add_note(board, "above", x=0, y=-240)
    assert api.spot_beside(board, "session-1") is None
    assert api.spot_beside(board, "no-such-session") is None


def test_add_text_shape_frame() -> None:
    board = Board()
    text = api.add_text(board, "plain", x=1, y=2)
    rect = api.add_shape(board, x=0, y=0)
    ellipse = api.add_shape(board, "ellipse", "label", x=0, y=0, w=50, h=60, color="teal")
    frame = api.add_frame(board, "file", "src/main.py", "main", x=0, y=0)
    assert api.read_item(board, text.id)["kind"] == "text"
    assert api.read_item(board, rect.id)["shape"] == "rect"
    assert api.read_item(board, ellipse.id) | {"id": ""} == {
        "id": "",
        "kind": "shape",
        "shape": "ellipse",
        "text": "label",
        "x": 0.0,
        "y": 0.0,
        "w": 50.0,
        "h": 60.0,
        "z": 3.0,
        "color": "teal",
    }
    assert api.read_item(board, frame.id)["holds"] == {"type": "file", "ref": "src/main.py"}
    assert api.read_item(board, frame.id)["title"] == "main"
    assert replay(text, rect, ellipse, frame).to_json() == board.to_json()
    assert [entry["id"] for entry in api.list_items(board)] == [text.id, rect.id, ellipse.id, frame.id]


def test_arrow_connects_existing_items() -> None:
    board = Board()
    a = api.add_note(board, "a", x=0, y=0)
    b = api.add_note(board, "b", x=400, y=100)
    arrow = api.add_arrow(board, a.id, b.id)
    item = api.read_item(board, arrow.id)
    assert (item["from"], item["to"]) == (a.id, b.id)
    assert (item["x"], item["y"], item["w"], item["h"]) == (0.0, 0.0, 600.0, 300.0)
    with pytest.raises(KeyError, match="no item with id 'gone'"):
        api.add_arrow(board, a.id, "gone")
    with pytest.raises(api.BoardApiError, match="two different"):
        api.add_arrow(board, a.id, a.id)
    with pytest.raises(api.BoardApiError, match="not other arrows"):
        api.add_arrow(board, a.id, arrow.id)


def test_move_returns_a_small_update() -> None:
    board = Board()
    note = api.add_note(board, "x")
    moved = api.move(board, note.id, 30, 40.5)
    assert (api.read_item(board, note.id)["x"], api.read_item(board, note.id)["y"]) == (30.0, 40.5)
    assert len(moved.update) < 60
    assert replay(note, moved).to_json() == board.to_json()
    arrow = api.add_arrow(board, note.id, api.add_note(board, "y").id)
    with pytest.raises(api.BoardApiError, match="arrow follows"):
        api.move(board, arrow.id, 0, 0)
    with pytest.raises(KeyError):
        api.move(board, "nope", 0, 0)


def test_delete_removes_attached_arrows() -> None:
    board = Board()
    a, b, c = (api.add_note(board, name) for name in "abc")
    ab = api.add_arrow(board, a.id, b.id)
    ca = api.add_arrow(board, c.id, a.id)
    bc = api.add_arrow(board, b.id, c.id)
    removed = api.delete(board, a.id)
    assert set(removed.removed) == {ab.id, ca.id}
    assert {entry["id"] for entry in api.list_items(board)} == {b.id, c.id, bc.id}
    assert replay(a, b, c, ab, ca, bc, removed).to_json() == board.to_json()
    with pytest.raises(KeyError) as error:
        api.read_item(board, a.id)
    assert "list_items" in str(error.value)


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda b: api.add_note(b, "x" * (api.MAX_TEXT + 1)), "limit is 10000"),
        (lambda b: api.add_note(b, 42), "text must be a string"),
        (lambda b: api.add_note(b, "x", x=math.nan, y=0), "finite"),
        (lambda b: api.add_note(b, "x", x=math.inf, y=0), "finite"),
        (lambda b: api.add_note(b, "x", x=1e12, y=0), "finite"),
        (lambda b: api.add_note(b, "x", x=True, y=0), "must be a number"),
        (lambda b: api.add_note(b, "x", x="1", y=0), "must be a number"),
        (lambda b: api.add_note(b, "x", x=1), "both x and y"),
        (lambda b: api.add_note(b, "x", w=0), "greater than 0"),
        (lambda b: api.add_note(b, "x", h=-5), "greater than 0"),
        (lambda b: api.add_note(b, "x", w=1e9), "finite"),
        (lambda b: api.add_note(b, "x", color="url(javascript:x)"), "CSS hex colour"),
        (lambda b: api.add_text(b, "x" * (api.MAX_TEXT + 1)), "limit"),
        (lambda b: api.add_shape(b, "triangle"), "rect, ellipse"),
        (lambda b: api.add_shape(b, "rect", "x" * (api.MAX_TEXT + 1)), "limit"),
        (lambda b: api.add_frame(b, "browser", "x"), "agent, terminal, file"),
        (lambda b: api.add_frame(b, "agent", "  "), "must not be empty"),
        (lambda b: api.add_frame(b, "agent", "s", "t" * (api.MAX_TITLE + 1)), "limit is 200"),
        (lambda b: api.move(b, next(iter(b.items.keys())), math.nan, 0), "finite"),
    ],
)
def test_bad_arguments_are_refused_and_change_nothing(call: Callable[[Board], object], message: str) -> None:
    board = Board()
    api.add_note(board, "existing")
    before = board.state()
    with pytest.raises(api.BoardApiError, match=message):
        call(board)
    assert board.state() == before
    assert board.updates_since_checkpoint == 1


def test_text_at_the_limit_is_accepted() -> None:
    board = Board()
    edit = api.add_note(board, "字" * api.MAX_TEXT)
    assert api.read_item(board, edit.id)["text"] == "字" * api.MAX_TEXT


def test_items_off_schema_are_skipped() -> None:
    # A board stored before its values were typed may hold anything; readers skip what does not fit.
    peer = Doc()
    items = peer.get("items", type=Map)
    items["junk"] = "not a map"
    items["unknown"] = Map({"kind": "spaceship"})
    items["bare"] = Map({"kind": "note", "x": "left"})
    board = Board()
    board.apply_update(peer.get_update(), origin="store", bounded=False)
    listed = api.list_items(board)
    assert [entry["id"] for entry in listed] == ["bare"]
    assert listed[0]["x"] == 0.0 and listed[0]["color"] is None
    with pytest.raises(KeyError):
        api.read_item(board, "junk")
    with pytest.raises(KeyError):
        api.delete(board, "unknown")


def test_edits_count_toward_compaction() -> None:
    board = Board()
    note = api.add_note(board, "n")
    api.move(board, note.id, 1, 1)
    api.delete(board, note.id)
    assert board.updates_since_checkpoint == 3
    assert board.needs_compaction(3)
