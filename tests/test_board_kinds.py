"""The board's newer kinds (adr/0018-drawing-on-the-board.md): free arrows with a bend and a label,
groups, locks, images kept in the board; written by agents' board tools (also through the real
MCP server), read by every peer, and converging when a host and a guest edit at once."""

from __future__ import annotations

import json
from typing import Any

import pytest

from canvasrelay.core import board_edits as api
from canvasrelay.core.board import Board
from canvasrelay.protocol.board_items import MAX_IMAGE_SRC
from tests.support import InProcessServer, board_tools

PIXEL = (
    "data:image/png;base64,"
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg=="
)


def replay(board: Board, *edits: api.Edit) -> Board:
    for edit in edits:
        board.apply_update(edit.update, origin="peer")
    return board


def test_a_free_arrow_has_free_or_bound_ends_a_bend_and_a_label() -> None:
    board = Board()
    note = api.add_note(board, "target")
    arrow = api.add_free_arrow(board, x1=-100, y1=20, to_id=note.id, bend=30, label="goes here")
    item = api.read_item(board, arrow.id)
    assert (item["x1"], item["y1"], item["to"], item["from"]) == (-100.0, 20.0, note.id, None)
    assert (item["bend"], item["label"]) == (30.0, "goes here")
    assert replay(Board(), note, arrow).to_json() == board.to_json()
    # Deleting the item it is bound to deletes the arrow too, as for arrows between items.
    assert api.delete(board, note.id).removed == (arrow.id,)


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"x1": 0, "y1": 0}, "end as an item id or as a point"),
        ({"x2": 0, "y2": 0}, "start as an item id or as a point"),
        ({"x1": 0, "y1": 0, "x2": 1, "y2": 1, "label": "x" * 201}, "limit is 200"),
        ({"x1": float("nan"), "y1": 0, "x2": 1, "y2": 1}, "finite"),
    ],
)
def test_a_free_arrow_without_two_good_ends_is_refused(kwargs: dict[str, Any], message: str) -> None:
    board = Board()
    with pytest.raises(api.BoardApiError, match=message):
        api.add_free_arrow(board, **kwargs)
    assert api.list_items(board) == []


def test_groups_and_locks() -> None:
    board = Board()
    a, b = api.add_note(board, "a"), api.add_shape(board, "rect")
    group = api.group(board, [a.id, b.id])
    assert {api.read_item(board, i)["group"] for i in (a.id, b.id)} == {group.id}
    api.ungroup(board, group.id)
    assert "group" not in api.read_item(board, a.id)
    with pytest.raises(api.BoardApiError, match="between 2 and"):
        api.group(board, [a.id])

    api.set_locked(board, a.id, True)
    with pytest.raises(api.BoardApiError, match="locked"):
        api.move(board, a.id, 5, 5)
    with pytest.raises(api.BoardApiError, match="locked"):
        api.delete(board, a.id)
    api.set_locked(board, a.id, False)
    api.move(board, a.id, 5, 5)


def test_images_are_kept_within_the_bound_and_a_placeholder_says_what_belongs() -> None:
    board = Board()
    kept = api.add_image(board, "a pixel", PIXEL, x=0, y=0)
    assert api.read_item(board, kept.id)["has_image"] is True
    placeholder = api.add_image(board, "the login screen")
    assert api.read_item(board, placeholder.id) | {"has_image": False} == api.read_item(board, placeholder.id)
    with pytest.raises(api.BoardApiError, match="limit is"):
        api.add_image(board, "huge", "data:image/png;base64," + "A" * MAX_IMAGE_SRC)
    with pytest.raises(api.BoardApiError, match="data: URL"):
        api.add_image(board, "script", "javascript:alert(1)")


def test_a_host_and_a_guest_editing_the_new_kinds_at_once_converge() -> None:
    host, guest = Board(), Board()
    shared = api.add_note(host, "shared")
    replay(guest, shared)
    other = api.add_note(host, "h")
    edits_host = [other, api.group(host, [shared.id, other.id]), api.set_locked(host, shared.id, True)]
    edits_guest = [api.add_free_arrow(guest, x1=0, y1=0, to_id=shared.id, label="g"), api.add_image(guest, "later")]
    replay(host, *edits_guest)
    replay(guest, *edits_host)
    assert host.to_json() == guest.to_json()
    kinds = sorted(item["kind"] for item in api.list_items(host))
    assert kinds == ["arrow", "image", "note", "note"]


async def test_agents_draw_free_arrows_groups_locks_and_image_placeholders_through_the_mcp_server(
    served: InProcessServer,
) -> None:
    server: Any = served.server
    async with board_tools(served) as mcp:
        names = {tool.name for tool in (await mcp.list_tools()).tools}
        assert {"add_free_arrow", "add_image_placeholder", "group_items", "ungroup_items", "lock_item"} <= names

        async def call(name: str, **arguments: Any) -> str:
            result = await mcp.call_tool(name, arguments)
            assert not result.is_error, result.content
            return str(getattr(result.content[0], "text", ""))

        note = json.loads(await call("add_note", text="from the agent", x=0, y=0))["id"]
        arrow = json.loads(await call("add_free_arrow", x1=-200, y1=0, to_id=note, bend=20, label="look"))["id"]
        image = json.loads(await call("add_image_placeholder", alt="a diagram of the flow"))["id"]
        group = json.loads(await call("group_items", item_ids=[note, image]))["id"]
        await call("lock_item", item_id=note)
        refused = await mcp.call_tool("move_item", {"item_id": note, "x": 10, "y": 10})
        assert refused.is_error and "locked" in str(refused.content)

    items = {item["id"]: item for item in server.board.tools.list_items()}
    assert items[arrow]["to"] == note and items[arrow]["label"] == "look"
    assert items[image]["kind"] == "image" and items[image]["alt"] == "a diagram of the flow"
    assert items[note]["group"] == items[image]["group"] == group and items[note]["locked"] is True
