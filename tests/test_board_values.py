"""The board's values are typed whoever writes them: a colour that is not a colour, a picture that
is not a raster image held in the board, a width that is not a number are refused with words that
name what was wrong, the board stays as it was, and the connection that sent them stays up."""

from __future__ import annotations

import base64
import json
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
from pycrdt import Array, Doc, Map, Text

from canvasrelay.client.guest import Guest
from canvasrelay.core import board_edits as board_api
from canvasrelay.core.board import Board, BoardValueError
from canvasrelay.core.board_values import is_colour, is_image_src
from tests.agent_support import serving
from tests.support import HostClient, InProcessServer

PNG = "data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR4nGP4z8DwHwAFAAH/iZk9HQAAAABJRU5ErkJggg=="  # noqa: E501
HOSTILE = [
    ("shape", "fill", '"/><script>alert(1)</script>', "A shape's fill must be a colour"),
    ("note", "color", "url(http://127.0.0.1:9/leak)", "A note's colour must be a colour"),
    ("shape", "color", "red;background:url(//x)", "A shape's colour must be a colour"),
    ("image", "src", "http://127.0.0.1:9/leak.png", "An image's picture must be a PNG, JPEG, GIF or WebP"),
    ("image", "src", "data:image/svg+xml;base64,PHN2Zz48L3N2Zz4=", "An image's picture must be"),
    ("stroke", "strokeWidth", "2px", "A drawing's line width must be a number above 0"),
    ("note", "fontSize", float("nan"), "A note's text size must be a number above 0"),
    ("arrow", "dash", "0;stroke:url(#x)", "An arrow's line style must be solid, dashed or dotted"),
    ("shape", "shape", "<rect", "A shape's outline must be rect or ellipse"),
    ("note", "x", "left", "A note's position must be a number"),
    ("frame", "locked", "yes", "A frame's lock must be true or false"),
    ("spaceship", "color", "javascript:alert(1)", "A board item's colour must be a colour"),
]
FITTING: dict[str, Any] = {
    "color": "#1971c2",
    "fill": "none",
    "strokeWidth": 4.0,
    "fontSize": 24.0,
    "dash": "dotted",
    "shape": "ellipse",
    "x": -12.5,
    "locked": True,
}


def update_adding(doc: Doc, item_id: str, fields: dict[str, Any]) -> bytes:
    items = doc.get("items", type=Map)
    before = doc.get_state()
    items[item_id] = Map({"x": 0.0, "y": 0.0, "w": 10.0, "h": 10.0, **fields})
    return doc.get_update(before)


def update_setting(doc: Doc, item_id: str, key: str, value: Any) -> bytes:
    item = doc.get("items", type=Map)[item_id]
    before = doc.get_state()
    item[key] = value
    return doc.get_update(before)


@pytest.mark.parametrize(("kind", "key", "value", "words"), HOSTILE, ids=[f"{k}.{key}" for k, key, _, _ in HOSTILE])
def test_a_value_of_the_wrong_type_is_refused_in_words_and_the_board_stays(
    kind: str, key: str, value: Any, words: str
) -> None:
    board = Board()
    peer: Doc = Doc()
    with pytest.raises(BoardValueError) as refusal:
        board.apply_update(update_adding(peer, "bad", {"kind": kind, key: value}), origin="peer")
    assert str(refusal.value).startswith(words), refusal.value
    assert "bad" not in board.to_json()
    # The board took nothing of it: an update after it, from another peer, applies as usual.
    board.apply_update(update_adding(Doc(), "good", {"kind": "note", "color": "#ffd43b"}), origin="other")
    assert set(board.to_json()) == {"good"}


def test_the_refusal_quotes_the_value_as_visible_text_and_cut_short() -> None:
    board = Board()
    value = "\x1b[31m" + "u" * 100
    with pytest.raises(BoardValueError) as refusal:
        board.apply_update(update_adding(Doc(), "bad", {"kind": "note", "color": value}), origin="peer")
    assert "“\\x1b[31m" in str(refusal.value) and "…”" in str(refusal.value) and "\x1b" not in str(refusal.value)


def test_a_change_to_an_item_is_held_to_the_types_too() -> None:
    board = Board()
    peer: Doc = Doc()
    board.apply_update(update_adding(peer, "s", {"kind": "shape", "shape": "rect", "color": "#1971c2"}), origin="p")
    for key, value in FITTING.items():
        board.apply_update(update_setting(peer, "s", key, value), origin="p")
    for key, value, words in (
        ("fill", "url(#x)", "A shape's fill must be a colour"),
        ("holds", Map({"type": "web page", "ref": "x"}), "A shape's content must be what it shows"),
    ):
        later: Doc = Doc()
        later.apply_update(board.state())
        with pytest.raises(BoardValueError, match=words):
            board.apply_update(update_setting(later, "s", key, value), origin="p")
    assert board.to_json()["s"]["fill"] == "none" and "holds" not in board.to_json()["s"]


def test_what_the_board_draws_passes() -> None:
    board = Board()
    peer: Doc = Doc()
    items = [
        {"kind": "note", "color": "#ffd43b", "text": Text("hello"), "fontSize": 16.0, "group": "g1"},
        {"kind": "shape", "shape": "ellipse", "color": "#e03131", "fill": "#a5d8ff", "strokeWidth": 8.0},
        {"kind": "arrow", "x1": 0.0, "y1": 0.0, "x2": 5.0, "y2": 5.0, "bend": 3.0, "label": "a", "dash": "dashed"},
        {"kind": "stroke", "color": "#1e1e1e", "points": Array([0.0, 0.0, 1.5, 2.5])},
        {"kind": "frame", "title": "shell", "holds": Map({"type": "terminal", "ref": "t1"}), "color": "Grey"},
        {"kind": "image", "src": PNG, "alt": "a dot"},
        {"kind": "image", "alt": "a placeholder", "src": None},
    ]
    for index, fields in enumerate(items):
        board.apply_update(update_adding(peer, f"i{index}", fields), origin="peer")
    assert len(board.to_json()) == len(items)


def test_a_board_stored_before_values_were_typed_still_loads() -> None:
    peer: Doc = Doc()
    stored = update_adding(peer, "old", {"kind": "shape", "fill": "url(http://127.0.0.1:9/x)"})
    board, unusable = Board.load([stored])
    assert unusable == [] and "old" in board.to_json()
    # Moving it touches only its place, which is a number: the move is taken.
    board.apply_update(update_setting(peer, "old", "x", 40.0), origin="peer")


def test_an_agents_board_tools_take_colours_and_pictures_only() -> None:
    board = Board()
    with pytest.raises(board_api.BoardApiError, match="color must be a CSS hex colour"):
        board_api.add_note(board, "hi", color="url(http://127.0.0.1:9/x)")
    with pytest.raises(board_api.BoardApiError, match="src must be a data: URL"):
        board_api.add_image(board, "a picture", src="data:image/svg+xml;base64,PHN2Zz48L3N2Zz4=")
    assert board_api.read_item(board, board_api.add_note(board, "hi", color="tomato").id)["color"] == "tomato"
    assert board.to_json() and all(entry["color"] == "tomato" for entry in board.to_json().values())


VECTORS = json.loads((Path(__file__).parent / "vectors" / "board_values.json").read_text(encoding="utf-8"))
"""Shared with web/src/board/values.test.ts: both ends judge a value alike."""


@pytest.mark.parametrize("colour", VECTORS["colours"]["fit"])
def test_a_colour_fits(colour: str) -> None:
    assert is_colour(colour)


@pytest.mark.parametrize("colour", VECTORS["colours"]["unfit"])
def test_what_is_no_colour_does_not(colour: str) -> None:
    assert not is_colour(colour)


@pytest.mark.parametrize("src", VECTORS["images"]["fit"])
def test_a_raster_picture_held_in_the_board_fits(src: str) -> None:
    assert is_image_src(src)


@pytest.mark.parametrize("src", VECTORS["images"]["unfit"])
def test_a_picture_from_elsewhere_or_of_another_kind_does_not(src: str) -> None:
    assert not is_image_src(src)


# -- over the wire ----------------------------------------------------------------------------


def b64(data: bytes) -> str:
    return base64.b64encode(data).decode()


@pytest.fixture
async def edit_room(project: Path) -> AsyncIterator[InProcessServer]:
    async with serving(project) as served:
        yield served


async def test_a_guest_and_the_host_get_an_error_in_words_and_stay_connected(edit_room: InProcessServer) -> None:
    host = await HostClient.connect(edit_room)
    await host.send({"t": "room-set-access", "access": "edit"})
    await host.expect("guests", defaultAccess="edit")
    guest = await Guest(edit_room.room_link, name="Eve").connect()
    await guest.expect("access")
    await guest.board_loaded.wait()
    doc: Doc = Doc()
    doc.apply_update(bytes(guest.board.data))

    hostile = update_adding(doc, "evil", {"kind": "shape", "fill": '"/><script>alert(1)</script>'})
    await guest.send({"t": "board-update", "update": b64(hostile)})
    refusal = await guest.expect("error", ref="board-update")
    assert refusal["kind"] == "conflict" and refusal["message"].startswith("A shape's fill must be a colour")
    await host.send({"t": "board-update", "update": b64(update_adding(Doc(), "h", {"kind": "note", "color": "u(x)"}))})
    assert (await host.expect("error", ref="board-update"))["message"].startswith("A note's colour must be")

    fine: Doc = Doc()
    fine.apply_update(bytes(guest.board.data))
    await guest.send({"t": "board-update", "update": b64(update_adding(fine, "ok", {"kind": "note", "color": "red"}))})
    await host.expect("board-update")
    assert set(edit_room.server.board.store.board.to_json()) == {"ok"}
    await guest.close()
    await host.close()
