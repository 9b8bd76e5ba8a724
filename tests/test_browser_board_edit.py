"""What a user does on the board, in Chromium on a real `canvas serve`: each edit is checked on a
second page (so it went through the server) and, where it matters, in the store after a stop."""

from __future__ import annotations

import secrets
from pathlib import Path
from typing import Any

import pytest
from pycrdt import Map, Text

from canvasrelay.core.board import Board
from canvasrelay.protocol.board import BOARD_PART_BYTES
from canvasrelay.server.board.log import BOARD_LOG, write_log
from tests.agent_support import config
from tests.support import ServerProcess, ServerThread
from tests.test_board_serve import stored_board
from tests.test_browser_board import open_board
from tests.test_browser_guests import open_guest

pytestmark = [pytest.mark.browser, pytest.mark.timeout(90)]

WAIT_MS = 10_000
# Arrows are waited for as attached, not visible: a level arrow is a path with no height, which
# Playwright counts as hidden.

# A node's flow-space box as React Flow draws it: the position is the wrapper's translate, so it
# is the same on every page whatever each page's pan and zoom.
NODE_BOX = """id => {
  const el = document.querySelector(`.react-flow__node[data-id="${id}"]`);
  if (!el) return null;
  const m = /translate\\(([-\\d.e]+)px,\\s*([-\\d.e]+)px\\)/.exec(el.style.transform);
  return { x: +m[1], y: +m[2], w: el.offsetWidth, h: el.offsetHeight, z: +el.style.zIndex };
}"""
# The zoom React Flow draws the board at now (its viewport's scale).
VIEW_ZOOM = "+/scale\\(([\\d.e-]+)\\)/.exec(document.querySelector('.react-flow__viewport').style.transform)[1]"


def box(page: Any, item_id: str) -> dict[str, float] | None:
    return page.evaluate(NODE_BOX, item_id)


def wait_box(page: Any, item_id: str, **expected: float) -> None:
    """Until the item's box on `page` has the expected fields (to a pixel)."""
    page.wait_for_function(
        f"([id, want]) => {{ const b = ({NODE_BOX})(id);"
        " return b !== null && Object.entries(want).every(([k, v]) => Math.abs(b[k] - v) <= 1); }",
        arg=[item_id, expected],
        timeout=WAIT_MS,
    )


def wait_gone(page: Any, item_id: str) -> None:
    page.locator(f'.react-flow__node[data-id="{item_id}"]').wait_for(state="detached", timeout=WAIT_MS)


def board_point(page: Any, x: float, y: float) -> tuple[float, float]:
    area = page.get_by_test_id("board").bounding_box()
    return area["x"] + x, area["y"] + y


def add_note(page: Any, x: float, y: float, text: str) -> str:
    """Places a note at (x, y) of the board's area, types `text` and leaves the editor; its id."""
    page.get_by_test_id("board-tool-note").click()
    page.mouse.click(*board_point(page, x, y))
    editor = page.get_by_test_id("board-text-editor")
    editor.press_sequentially(text, delay=5)
    editor.press("Escape")
    editor.wait_for(state="detached", timeout=WAIT_MS)
    return node_id(page, text)


def node_id(page: Any, text: str) -> str:
    node = page.locator(".react-flow__node").filter(has=page.get_by_test_id("board-note").filter(has_text=text))
    node.wait_for(timeout=WAIT_MS)
    return node.get_attribute("data-id")


def centre(page: Any, item_id: str) -> tuple[float, float]:
    rect = page.locator(f'.react-flow__node[data-id="{item_id}"]').bounding_box()
    return rect["x"] + rect["width"] / 2, rect["y"] + rect["height"] / 2


def drag(page: Any, start: tuple[float, float], end: tuple[float, float]) -> None:
    page.mouse.move(*start)
    page.mouse.down()
    page.mouse.move(*end, steps=12)
    page.mouse.up()


def stored_items(server: ServerProcess) -> dict[str, Any]:
    """The board the server kept, read from its store after a clean stop."""
    assert server.stop() == 0
    return stored_board(server.root)


@pytest.fixture
def pages(browser: Any, server: ServerProcess) -> Any:
    one, two = open_board(browser, server), open_board(browser, server)
    # The second page follows what the first does anywhere on the board: it draws every item (the
    # board's own switch; by default it draws only what is in view), so any item's box can be read.
    two.evaluate("localStorage.setItem('canvas.board.culling', 'off')")
    two.reload()
    two.get_by_test_id("connection-state").filter(has_text="Connected").wait_for(timeout=WAIT_MS)
    two.get_by_test_id("board-toolbar").wait_for(timeout=WAIT_MS)
    yield one, two
    one.close()
    two.close()


def test_a_note_is_typed_dragged_and_resized_and_the_other_page_and_the_store_follow(
    pages: Any, server: ServerProcess
) -> None:
    one, two = pages
    note = add_note(one, 300, 300, "drag me")
    two.get_by_test_id("board-note").filter(has_text="drag me").wait_for(timeout=WAIT_MS)
    before = box(one, note)

    x, y = centre(one, note)
    drag(one, (x, y), (x + 150, y + 90))
    moved = box(one, note)
    assert moved["x"] > before["x"] + 100 and moved["y"] > before["y"] + 50
    wait_box(two, note, x=moved["x"], y=moved["y"])

    # The note is selected after the drag, so its resize handles are there.
    corner = one.locator(f'.react-flow__node[data-id="{note}"] .react-flow__resize-control.handle.bottom.right')
    corner.wait_for(timeout=WAIT_MS)
    handle = corner.bounding_box()
    hx, hy = handle["x"] + handle["width"] / 2, handle["y"] + handle["height"] / 2
    drag(one, (hx, hy), (hx + 120, hy + 60))
    resized = box(one, note)
    assert resized["w"] > moved["w"] + 80 and resized["h"] > moved["h"] + 30
    wait_box(two, note, x=resized["x"], y=resized["y"], w=resized["w"], h=resized["h"])

    stored = stored_items(server)[note]
    assert stored["kind"] == "note" and str(stored["text"]) == "drag me"
    assert (stored["x"], stored["y"]) == pytest.approx((resized["x"], resized["y"]), abs=1)
    assert (stored["w"], stored["h"]) == pytest.approx((resized["w"], resized["h"]), abs=1)


def test_an_arrow_joins_two_notes_and_a_pen_stroke_is_kept(pages: Any, server: ServerProcess) -> None:
    one, two = pages
    left = add_note(one, 250, 300, "left")
    right = add_note(one, 750, 300, "right")

    source = one.locator(f'.react-flow__node[data-id="{left}"] .react-flow__handle.source')
    target = one.locator(f'.react-flow__node[data-id="{right}"] .react-flow__handle.target')
    one.locator(f'.react-flow__node[data-id="{left}"]').hover()
    start, end = source.bounding_box(), target.bounding_box()
    drag(
        one,
        (start["x"] + start["width"] / 2, start["y"] + start["height"] / 2),
        (end["x"] + end["width"] / 2, end["y"] + end["height"] / 2),
    )
    one.get_by_test_id("board-arrow").wait_for(state="attached", timeout=WAIT_MS)
    two.get_by_test_id("board-arrow").wait_for(state="attached", timeout=WAIT_MS)

    one.get_by_test_id("board-tool-pen").click()
    one.get_by_test_id("board-draw-layer").wait_for(timeout=WAIT_MS)
    drag(one, board_point(one, 300, 600), board_point(one, 600, 650))
    two.get_by_test_id("board-stroke").wait_for(timeout=WAIT_MS)

    items = stored_items(server)
    arrows = [item for item in items.values() if item["kind"] == "arrow"]
    assert [(a["from"], a["to"]) for a in arrows] == [(left, right)]
    (stroke,) = [item for item in items.values() if item["kind"] == "stroke"]
    points = stroke["points"]
    assert len(points) >= 8 and len(points) % 2 == 0
    # Relative to the stroke's corner, spanning the 300 x 50 screen pixels drawn (zoom is 1 at most).
    assert min(points) >= 0 and max(points[0::2]) == pytest.approx(stroke["w"], abs=1)
    assert stroke["w"] >= 150


def connect(page: Any, source_id: str, target_id: str) -> None:
    """Draws an arrow as a user does: from the first note's right handle to the second's left one."""
    page.locator(f'.react-flow__node[data-id="{source_id}"]').hover()
    start = page.locator(f'.react-flow__node[data-id="{source_id}"] .react-flow__handle.source').bounding_box()
    end = page.locator(f'.react-flow__node[data-id="{target_id}"] .react-flow__handle.target').bounding_box()
    drag(
        page,
        (start["x"] + start["width"] / 2, start["y"] + start["height"] / 2),
        (end["x"] + end["width"] / 2, end["y"] + end["height"] / 2),
    )


def test_several_notes_are_moved_duplicated_restacked_and_deleted_with_their_arrow(
    pages: Any, server: ServerProcess
) -> None:
    one, two = pages
    a = add_note(one, 200, 250, "alpha")
    b = add_note(one, 450, 250, "beta")
    c = add_note(one, 700, 250, "gamma")
    connect(one, a, c)
    two.get_by_test_id("board-arrow").wait_for(state="attached", timeout=WAIT_MS)
    start = {item: box(one, item) for item in (a, b, c)}

    one.locator(f'.react-flow__node[data-id="{a}"]').click()
    one.locator(f'.react-flow__node[data-id="{b}"]').click(modifiers=["Shift"])
    x, y = centre(one, a)
    drag(one, (x, y), (x + 40, y + 200))
    dx, dy = box(one, a)["x"] - start[a]["x"], box(one, a)["y"] - start[a]["y"]
    assert dy > 100
    for item in (a, b):
        wait_box(two, item, x=start[item]["x"] + dx, y=start[item]["y"] + dy)
    assert box(two, c)["x"] == pytest.approx(start[c]["x"], abs=1)

    one.get_by_test_id("board-duplicate").click()
    two.get_by_test_id("board-note").filter(has_text="alpha").nth(1).wait_for(timeout=WAIT_MS)
    two.get_by_test_id("board-note").filter(has_text="beta").nth(1).wait_for(timeout=WAIT_MS)
    copies = [
        node.get_attribute("data-id")
        for node in two.locator(".react-flow__node").all()
        if node.get_attribute("data-id") not in (a, b, c)
    ]
    assert len(copies) == 2

    # The copies are selected after duplicating and drawn on top; send them behind everything.
    one.get_by_test_id("board-arrange").click()
    one.get_by_test_id("board-back").click()
    two.wait_for_function(
        f"([copies, others]) => copies.every(c => others.every(o => ({NODE_BOX})(c).z < ({NODE_BOX})(o).z))",
        arg=[copies, [a, b, c]],
        timeout=WAIT_MS,
    )
    # Selected nodes are drawn raised, so the copies still cover `a` until a click on the pane drops them.
    one.mouse.click(*board_point(one, 150, 650))
    one.get_by_test_id("board-duplicate").and_(one.locator(":disabled")).wait_for(timeout=WAIT_MS)
    one.locator(f'.react-flow__node[data-id="{a}"]').click()
    one.get_by_test_id("board-arrange").click()
    one.get_by_test_id("board-front").click()
    two.wait_for_function(
        f"([top, rest]) => rest.every(o => ({NODE_BOX})(o).z < ({NODE_BOX})(top).z)",
        arg=[a, [b, c, *copies]],
        timeout=WAIT_MS,
    )

    one.keyboard.press("Delete")
    wait_gone(two, a)
    two.get_by_test_id("board-arrow").wait_for(state="detached", timeout=WAIT_MS)

    items = stored_items(server)
    assert sorted(items) == sorted([b, c, *copies])
    assert not [item for item in items.values() if item["kind"] == "arrow"]
    assert {str(items[copy]["text"]) for copy in copies} == {"alpha", "beta"}
    assert max(items[copy]["z"] for copy in copies) < min(items[other]["z"] for other in (b, c))


def test_undo_and_redo_take_back_only_ones_own_change(pages: Any, server: ServerProcess) -> None:
    one, two = pages
    mine = add_note(one, 250, 250, "mine")
    theirs = add_note(two, 600, 550, "theirs")
    one.get_by_test_id("board-note").filter(has_text="theirs").wait_for(timeout=WAIT_MS)
    placed = box(one, mine)

    x, y = centre(one, mine)
    drag(one, (x, y), (x + 120, y + 150))
    moved = box(one, mine)
    wait_box(two, mine, x=moved["x"], y=moved["y"])
    x, y = centre(two, theirs)
    drag(two, (x, y), (x - 100, y + 60))
    theirs_moved = box(two, theirs)
    wait_box(one, theirs, x=theirs_moved["x"], y=theirs_moved["y"])

    # Undo takes back the drag, only the drag: the note and its text stay, and so does the other page's move.
    one.keyboard.press("Control+z")
    wait_box(two, mine, x=placed["x"], y=placed["y"])
    wait_box(one, mine, x=placed["x"], y=placed["y"])
    two.get_by_test_id("board-note").filter(has_text="mine").wait_for(timeout=WAIT_MS)
    assert box(two, theirs)["x"] == pytest.approx(theirs_moved["x"], abs=1)

    one.keyboard.press("Control+Shift+z")
    wait_box(two, mine, x=moved["x"], y=moved["y"])
    # The toolbar does the same as the keys.
    one.get_by_test_id("board-undo").click()
    wait_box(two, mine, x=placed["x"], y=placed["y"])
    one.get_by_test_id("board-redo").click()
    wait_box(two, mine, x=moved["x"], y=moved["y"])

    items = stored_items(server)
    assert (items[mine]["x"], items[mine]["y"]) == pytest.approx((moved["x"], moved["y"]), abs=1)
    assert (items[theirs]["x"], items[theirs]["y"]) == pytest.approx((theirs_moved["x"], theirs_moved["y"]), abs=1)
    assert str(items[mine]["text"]) == "mine" and str(items[theirs]["text"]) == "theirs"


def test_a_view_guest_sees_the_board_live_but_cannot_change_it(browser: Any, server: ServerProcess) -> None:
    host = open_board(browser, server)
    guest = open_guest(browser, server, "Viewer")
    try:
        note = add_note(host, 300, 300, "look, don't touch")
        guest.get_by_test_id("board-note").filter(has_text="look, don't touch").wait_for(timeout=WAIT_MS)
        guest.get_by_test_id("board-toolbar").filter(has_text="View only").wait_for(timeout=WAIT_MS)
        assert guest.get_by_test_id("board-tool-note").count() == 0
        assert guest.get_by_test_id("board-delete").count() == 0
        placed = box(host, note)

        # Everything a user would try: drag, edit, delete, connect, undo.
        x, y = centre(guest, note)
        drag(guest, (x, y), (x + 150, y + 100))
        assert box(guest, note)["x"] == pytest.approx(placed["x"], abs=1)
        guest.locator(f'.react-flow__node[data-id="{note}"]').dblclick()
        assert guest.get_by_test_id("board-text-editor").count() == 0
        guest.keyboard.type("typed by the guest")
        guest.locator(f'.react-flow__node[data-id="{note}"]').click()
        guest.keyboard.press("Delete")
        guest.keyboard.press("Backspace")
        guest.keyboard.press("Control+d")
        guest.keyboard.press("Control+z")
        assert guest.locator(f'.react-flow__node[data-id="{note}"] .react-flow__resize-control').count() == 0
        assert guest.locator(f'.react-flow__node[data-id="{note}"] .react-flow__handle.connectable').count() == 0
        handle = guest.locator(f'.react-flow__node[data-id="{note}"] .react-flow__handle.source').bounding_box()
        drag(guest, (handle["x"] + 4, handle["y"] + 4), (handle["x"] + 300, handle["y"] + 200))
        assert guest.locator(".react-flow__connectionline").count() == 0

        # A later host edit reaches the guest, so the guest is live and anything it had sent is in.
        later = add_note(host, 700, 500, "after the guest tried")
        guest.get_by_test_id("board-note").filter(has_text="after the guest tried").wait_for(timeout=WAIT_MS)
        assert guest.locator(".react-flow__node").count() == 2
        assert box(guest, note)["x"] == pytest.approx(placed["x"], abs=1)
        assert {k: box(host, note)[k] for k in "xywh"} == {k: placed[k] for k in "xywh"}
    finally:
        host.close()
        guest.context.close()

    items = stored_items(server)
    assert sorted(items) == sorted([note, later])
    assert str(items[note]["text"]) == "look, don't touch"
    assert (items[note]["x"], items[note]["y"]) == pytest.approx((placed["x"], placed["y"]), abs=1)


def test_notes_caught_in_a_selection_box_move_together(pages: Any, server: ServerProcess) -> None:
    one, two = pages
    a = add_note(one, 250, 300, "boxed a")
    b = add_note(one, 500, 300, "boxed b")
    start = {item: box(one, item) for item in (a, b)}
    one.mouse.click(*board_point(one, 700, 650))

    # A drag on the empty pane draws the box; then the box itself is dragged.
    drag(one, board_point(one, 60, 120), board_point(one, 660, 480))
    rect = one.locator(".react-flow__nodesselection-rect")
    rect.wait_for(timeout=WAIT_MS)
    x, y = centre(one, a)
    drag(one, (x, y), (x + 60, y + 150))
    dx, dy = box(one, a)["x"] - start[a]["x"], box(one, a)["y"] - start[a]["y"]
    assert dy > 100
    for item in (a, b):
        wait_box(two, item, x=start[item]["x"] + dx, y=start[item]["y"] + dy)

    items = stored_items(server)
    for item in (a, b):
        assert items[item]["y"] == pytest.approx(start[item]["y"] + dy, abs=1)


# The last moves and the release in one task, as a busy page gets them: nothing renders between.
LAST_MOVES_AND_RELEASE = """([points, end]) => {
  const at = ([x, y]) => ({ clientX: x, clientY: y, bubbles: true, view: window });
  for (const point of points) window.dispatchEvent(new MouseEvent("mousemove", { ...at(point), buttons: 1 }));
  window.dispatchEvent(new MouseEvent("mouseup", { ...at(end), button: 0 }));
}"""


def test_a_selection_dropped_at_once_lands_snapped_where_the_pointer_let_go(pages: Any, server: ServerProcess) -> None:
    one, two = pages
    target = add_note(one, 250, 620, "snap target")
    a = add_note(one, 250, 300, "fast a")
    b = add_note(one, 500, 300, "fast b")
    start = {item: box(one, item) for item in (a, b)}
    one.mouse.click(*board_point(one, 700, 650))
    drag(one, board_point(one, 60, 120), board_point(one, 660, 480))
    one.locator(".react-flow__nodesselection-rect").wait_for(timeout=WAIT_MS)

    x, y = centre(one, a)
    one.mouse.move(x, y)
    one.mouse.down()
    one.mouse.move(x + 10, y + 5, steps=2)
    one.wait_for_function(f"id => ({NODE_BOX})(id).y > {start[a]['y']}", arg=a, timeout=WAIT_MS)
    held = box(one, a)
    # Let go 4 px right of where the target's left edge is (a snaps back onto it) and 25 px lower.
    end = (x + 4, y + 30)
    one.evaluate(LAST_MOVES_AND_RELEASE, [[(x + 20, y + 10), end], end])
    one.mouse.up()

    want = {a: {"x": box(one, target)["x"], "y": held["y"] + 25}}
    want[b] = {"x": want[a]["x"] + start[b]["x"] - start[a]["x"], "y": want[a]["y"]}
    for item in (a, b):
        wait_box(two, item, **want[item])
        wait_box(one, item, **want[item])
    items = stored_items(server)
    for item in (a, b):
        assert (items[item]["x"], items[item]["y"]) == pytest.approx((want[item]["x"], want[item]["y"]), abs=1)


def test_a_page_opened_on_a_board_fits_its_items_in_view(browser: Any, pages: Any, server: ServerProcess) -> None:
    one, two = pages
    note = add_note(one, 300, 300, "far away")
    # Zoomed out, the note is dropped far off where a fresh page's default view looks. Each click
    # animates: the next waits until the view has reached the zoom it asked for.
    for step in range(1, 5):
        one.get_by_role("button", name="Zoom out").click()
        one.wait_for_function(f"() => Math.abs({VIEW_ZOOM} - {1 / 1.2**step}) < 1e-3", timeout=WAIT_MS)
    drag(one, centre(one, note), board_point(one, 880, 700))
    dropped = box(one, note)
    assert dropped["x"] > 1000
    wait_box(two, note, x=dropped["x"], y=dropped["y"])
    later = open_board(browser, server)
    try:
        node = later.locator(f'.react-flow__node[data-id="{note}"]')
        node.wait_for(timeout=WAIT_MS)
        assert box(later, note)["x"] == pytest.approx(dropped["x"], abs=1)
        area, rect = later.get_by_test_id("board").bounding_box(), node.bounding_box()
        assert area["x"] <= rect["x"] and rect["x"] + rect["width"] <= area["x"] + area["width"]
        assert area["y"] <= rect["y"] and rect["y"] + rect["height"] <= area["y"] + area["height"]
    finally:
        later.close()


def test_a_board_that_comes_in_parts_opens_with_its_items_in_view(browser: Any, project: Path) -> None:
    # Long notes far from where a fresh page looks: more than the welcome's first part holds.
    ServerThread(project).start().stop()
    board = Board()
    with board.change():
        for index in range(24):
            board.items[secrets.token_hex(6)] = Map(
                {
                    "kind": "note",
                    "x": 6000.0 + (index % 6) * 260,
                    "y": 5000.0 + (index // 6) * 260,
                    "w": 200.0,
                    "h": 200.0,
                    "color": "#ffd43b",
                    "text": Text(f"far note {index} " + "words " * 1500),
                    "z": float(index),
                }
            )
    state = board.checkpoint()
    assert len(state) > BOARD_PART_BYTES
    write_log(project / ".canvas" / BOARD_LOG, [state])
    served = ServerThread(project).start()
    try:
        page = open_board(browser, served)
        # Too many to read whole, they open at the one made last, once the whole board has come.
        last = page.get_by_test_id("board-note").filter(has_text="far note 23 ")
        last.wait_for(timeout=WAIT_MS)
        area, rect = page.get_by_test_id("board").bounding_box(), last.bounding_box()
        assert area["x"] <= rect["x"] and rect["x"] + rect["width"] <= area["x"] + area["width"]
        assert area["y"] <= rect["y"] and rect["y"] + rect["height"] <= area["y"] + area["height"]
        page.close()
    finally:
        served.stop()


@pytest.fixture
def small_board(project: Path) -> Any:
    """A room whose board holds at most two items."""
    config(project, "[board]\nmax_items = 2\n")
    server = ServerThread(project).start()
    yield server
    server.stop()


def test_a_change_past_the_boards_bound_is_taken_back_on_the_page_and_later_ones_still_reach_everyone(
    browser: Any, small_board: ServerThread
) -> None:
    one, two = open_board(browser, small_board), open_board(browser, small_board)
    try:
        first = add_note(one, 200, 200, "first")
        add_note(one, 420, 200, "second")
        one.get_by_test_id("board-tool-note").click()
        one.mouse.click(*board_point(one, 640, 200))
        one.get_by_test_id("notice").filter(has_text="the board is full").wait_for(timeout=WAIT_MS)
        # The refused note goes from the page that made it: the page shows the board everyone has.
        one.get_by_test_id("board-note").nth(2).wait_for(state="detached", timeout=WAIT_MS)
        assert two.get_by_test_id("board-note").count() == 2
        # With room made, the same page's next note reaches the other page.
        one.locator(f'.react-flow__node[data-id="{first}"]').click()
        one.keyboard.press("Delete")
        wait_gone(two, first)
        add_note(one, 640, 200, "third")
        two.get_by_test_id("board-note").filter(has_text="third").wait_for(timeout=WAIT_MS)
        assert sorted(two.get_by_test_id("board-note").all_inner_texts()) == ["second", "third"]
    finally:
        one.close()
        two.close()
