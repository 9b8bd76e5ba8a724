"""Drawing on the board as tldraw and Excalidraw users do, in Chromium on a real `canvas serve`:
drag out shapes, free arrows bound by dropping them on items, copy and paste through the system
clipboard (also into another browser context), groups, align, scrolling to pan, export."""

from __future__ import annotations

import re
import struct
from pathlib import Path
from typing import Any

import pytest

from tests.browser_pages import add_agent, add_frame, open_host
from tests.support import ServerProcess
from tests.test_browser_board_edit import (
    NODE_BOX,
    WAIT_MS,
    add_note,
    board_point,
    box,
    centre,
    drag,
    stored_items,
    wait_box,
)

pytestmark = [pytest.mark.browser, pytest.mark.timeout(120)]

VIEWPORT = """() => {
  const m = /translate\\(([-\\d.e]+)px, ([-\\d.e]+)px\\) scale\\(([-\\d.e]+)\\)/.exec(
    document.querySelector('.react-flow__viewport').style.transform);
  return { x: +m[1], y: +m[2], zoom: +m[3] };
}"""


def viewport(page: Any) -> dict[str, float]:
    return page.evaluate(VIEWPORT)


def node(page: Any, item_id: str) -> Any:
    return page.locator(f'.react-flow__node[data-id="{item_id}"]')


def ids(page: Any, kind: str) -> list[str]:
    return [n.get_attribute("data-id") for n in page.locator(f".react-flow__node-{kind}").all()]


def new_id(page: Any, kind: str, before: list[str]) -> str:
    page.wait_for_function(
        "([kind, n]) => document.querySelectorAll(`.react-flow__node-${kind}`).length > n",
        arg=[kind, len(before)],
        timeout=WAIT_MS,
    )
    (added,) = [i for i in ids(page, kind) if i not in before]
    return added


@pytest.fixture
def host(browser: Any, server: ServerProcess) -> Any:
    page = open_host(browser, server, 1440, 900)
    yield page
    page.context.close()


def test_a_rectangle_is_dragged_out_at_its_size_and_a_click_gives_the_default(host: Any, server: ServerProcess) -> None:
    assert viewport(host)["zoom"] == pytest.approx(1)
    host.get_by_test_id("board-tool-rect").click()
    start, end = board_point(host, 300, 220), board_point(host, 540, 390)
    drag(host, start, end)
    rect = new_id(host, "shape", [])
    drawn = node(host, rect).bounding_box()
    assert drawn["x"] == pytest.approx(start[0], abs=2) and drawn["y"] == pytest.approx(start[1], abs=2)
    assert drawn["width"] == pytest.approx(240, abs=2) and drawn["height"] == pytest.approx(170, abs=2)

    host.get_by_test_id("board-tool-ellipse").click()
    host.mouse.click(*board_point(host, 800, 300))
    ellipse = new_id(host, "shape", [rect])
    assert (box(host, ellipse)["w"], box(host, ellipse)["h"]) == (160, 100)

    stored = stored_items(server)
    assert (stored[rect]["w"], stored[rect]["h"]) == pytest.approx((240, 170), abs=2)
    assert stored[ellipse]["shape"] == "ellipse"


# A point of the board with no item on it and nothing floating over it (the minimap, lower right,
# would pan the view on a click).
EMPTY = (300, 120)


def test_a_free_arrow_dropped_on_a_note_stays_bound_as_the_note_moves(host: Any, server: ServerProcess) -> None:
    note = add_note(host, 700, 300, "target")
    host.get_by_test_id("board-tool-arrow").click()
    drag(host, board_point(host, 200, 500), board_point(host, 420, 560))
    arrow = host.get_by_test_id("board-free-arrow")
    arrow.wait_for(timeout=WAIT_MS)
    # The new arrow is selected: its end handle is dragged onto the note.
    handle = host.get_by_test_id("board-arrow-end").bounding_box()
    drag(host, (handle["x"] + handle["width"] / 2, handle["y"] + handle["height"] / 2), centre(host, note))

    def end() -> tuple[float, float]:
        x, y = host.get_by_test_id("board-arrow").first.get_attribute("data-end").split(",")
        return float(x), float(y)

    host.wait_for_function(
        "id => { const b = document.querySelector(`.react-flow__node[data-id='${id}']`); "
        "const e = document.querySelector('[data-testid=board-arrow]').dataset.end.split(',').map(Number); "
        "const x = +/translate\\(([-\\d.]+)px/.exec(b.style.transform)[1]; return Math.abs(e[0] - x) < 2; }",
        arg=note,
        timeout=WAIT_MS,
    )
    before = end()
    host.mouse.click(*board_point(host, *EMPTY))
    x, y = centre(host, note)
    drag(host, (x, y), (x + 100, y + 150))
    moved = box(host, note)
    host.wait_for_function(
        "before => { const e = document.querySelector('[data-testid=board-arrow]').dataset.end.split(',').map(Number);"
        " return e[1] > before[1] + 100; }",
        arg=list(before),
        timeout=WAIT_MS,
    )
    after = end()
    assert moved["x"] <= after[0] <= moved["x"] + moved["w"] and moved["y"] <= after[1] <= moved["y"] + moved["h"]

    (stored,) = [item for item in stored_items(server).values() if item["kind"] == "arrow"]
    assert stored["to"] == note and "from" not in stored and "x2" not in stored
    assert (stored["x1"], stored["y1"]) == pytest.approx(before_start(before), abs=400)


def wait_bend(page: Any, words: str) -> None:
    """Until the selected arrow's bend handle says `words` (what a screen reader reads of it)."""
    page.wait_for_function(
        "words => document.querySelector('[data-testid=board-arrow-bend]').getAttribute('aria-valuetext') === words",
        arg=words,
        timeout=WAIT_MS,
    )


def test_a_selected_arrow_is_bent_by_keyboard_as_by_its_handle(host: Any, server: ServerProcess) -> None:
    host.get_by_test_id("board-tool-arrow").click()
    drag(host, board_point(host, 200, 500), board_point(host, 520, 500))
    bend = host.get_by_test_id("board-arrow-bend")
    bend.wait_for(timeout=WAIT_MS)
    straight = float(bend.get_attribute("cy"))
    # From the arrow, Tab reaches its bend handle.
    host.locator(".react-flow__node-arrow").focus()
    host.keyboard.press("Tab")
    assert bend.evaluate("el => el === document.activeElement")
    host.keyboard.press("ArrowUp")
    host.keyboard.press("Shift+ArrowUp")
    wait_bend(host, "bent by 88")
    # Up, as the keys said: the arrow's middle is 88 units above its straight line.
    assert float(bend.get_attribute("cy")) == pytest.approx(straight - 88, abs=1)
    host.keyboard.press("ArrowDown")
    wait_bend(host, "bent by 80")
    (stored,) = [item for item in stored_items(server).values() if item["kind"] == "arrow"]
    assert abs(stored["bend"]) == 80


def before_start(end: tuple[float, float]) -> tuple[float, float]:
    """The free start is where the drag began, a few hundred units left of the bound end."""
    return end[0] - 300, end[1]


def test_copy_and_paste_land_at_an_offset_here_and_on_a_page_in_another_browser_context(
    browser: Any, host: Any, server: ServerProcess
) -> None:
    note = add_note(host, 300, 300, "copy me")
    node(host, note).click()
    host.keyboard.press("Control+c")
    host.keyboard.press("Control+v")
    copy = new_id(host, "note", [note])
    original, pasted = box(host, note), box(host, copy)
    assert (pasted["x"] - original["x"], pasted["y"] - original["y"]) == (24, 24)
    assert host.get_by_test_id("board-note").filter(has_text="copy me").count() == 2

    # A second browser context, as another board or browser would be: the copy travels as text.
    other = open_host(browser, server, 1280, 800)
    try:
        other.get_by_test_id("board-note").filter(has_text="copy me").nth(1).wait_for(timeout=WAIT_MS)
        other.get_by_test_id("board").focus()
        before = ids(other, "note")
        other.evaluate(
            "text => { const data = new DataTransfer(); data.setData('text/plain', text);"
            " document.querySelector('[data-testid=board]').dispatchEvent("
            "new ClipboardEvent('paste', { clipboardData: data, bubbles: true })); }",
            copied_text(host, note),
        )
        third = new_id(other, "note", before)
        assert box(other, third)["x"] - original["x"] == 24
        other.get_by_test_id("board-note").filter(has_text="copy me").nth(2).wait_for(timeout=WAIT_MS)

        # Text from elsewhere pastes as a text item.
        other.evaluate(
            "() => { const data = new DataTransfer(); data.setData('text/plain', 'plain words');"
            " document.querySelector('[data-testid=board]').dispatchEvent("
            "new ClipboardEvent('paste', { clipboardData: data, bubbles: true })); }"
        )
        other.get_by_test_id("board-textitem").filter(has_text="plain words").wait_for(timeout=WAIT_MS)
    finally:
        other.context.close()
    notes = [item for item in stored_items(server).values() if item["kind"] == "note"]
    assert sorted(str(item["text"]) for item in notes) == ["copy me"] * 3


def copied_text(page: Any, item_id: str) -> str:
    """What Ctrl+C puts on the system clipboard for the item, caught from the copy event."""
    corner = node(page, item_id).bounding_box()
    # Its top left corner: the pasted copy covers the rest.
    page.mouse.click(corner["x"] + 8, corner["y"] + 8)
    page.evaluate(
        # Added after the board's own listener, so it runs after it within the same event.
        "() => document.addEventListener('copy', e => { window.__copied = e.clipboardData.getData('text/plain'); },"
        " { once: true })"
    )
    page.keyboard.press("Control+c")
    page.wait_for_function("() => typeof window.__copied === 'string' && window.__copied.length > 0", timeout=WAIT_MS)
    text: str = page.evaluate("() => window.__copied")
    assert "copy me" in text
    return text


def test_two_items_grouped_move_together_and_undo_puts_them_back(host: Any, server: ServerProcess) -> None:
    a = add_note(host, 250, 300, "first")
    b = add_note(host, 550, 300, "second")
    node(host, a).click()
    node(host, b).click(modifiers=["Shift"])
    host.keyboard.press("Control+g")
    host.get_by_role("button", name="Ungroup").wait_for(timeout=WAIT_MS)
    host.mouse.click(*board_point(host, *EMPTY))
    start = {item: box(host, item) for item in (a, b)}

    # A click on one member picks the group; dragging it moves both.
    node(host, a).click()
    x, y = centre(host, a)
    drag(host, (x, y), (x + 80, y + 160))
    host.wait_for_function(
        f"([a, b, sa, sb]) => {{ const [ba, bb] = [({NODE_BOX})(a), ({NODE_BOX})(b)];"
        " return ba.y - sa.y > 100 && Math.abs((ba.x - sa.x) - (bb.x - sb.x)) < 1"
        " && Math.abs((ba.y - sa.y) - (bb.y - sb.y)) < 1; }",
        arg=[a, b, start[a], start[b]],
        timeout=WAIT_MS,
    )

    host.keyboard.press("Control+z")
    for item in (a, b):
        wait_box(host, item, x=start[item]["x"], y=start[item]["y"])
    stored = stored_items(server)
    assert stored[a]["group"] == stored[b]["group"]
    assert stored[a]["y"] == pytest.approx(start[a]["y"], abs=1)


def test_three_items_are_aligned_left(host: Any, server: ServerProcess) -> None:
    notes = [add_note(host, x, y, f"n{i}") for i, (x, y) in enumerate([(250, 200), (500, 420), (800, 640)])]
    node(host, notes[0]).click()
    for item in notes[1:]:
        node(host, item).click(modifiers=["Shift"])
    host.get_by_test_id("board-arrange").click()
    host.get_by_test_id("board-arrange-left").click()
    left = box(host, notes[0])["x"]
    for item in notes[1:]:
        wait_box(host, item, x=left)
    stored = stored_items(server)
    assert [stored[item]["x"] for item in notes] == pytest.approx([left] * 3, abs=1)


def test_the_wheel_pans_and_ctrl_wheel_zooms_with_the_level_shown(host: Any) -> None:
    level = host.get_by_test_id("board-zoom-level")
    assert level.inner_text() == "100 %"
    before = viewport(host)
    host.mouse.move(*board_point(host, 500, 400))
    host.mouse.wheel(0, 200)
    host.wait_for_function(f"y => ({VIEWPORT})().y !== y", arg=before["y"], timeout=WAIT_MS)
    panned = viewport(host)
    assert panned["zoom"] == before["zoom"] and panned["y"] < before["y"]

    host.keyboard.down("Control")
    host.mouse.wheel(0, -200)
    host.keyboard.up("Control")
    host.wait_for_function(f"z => ({VIEWPORT})().zoom > z", arg=panned["zoom"], timeout=WAIT_MS)
    zoomed = viewport(host)["zoom"]
    host.wait_for_function(
        "() => document.querySelector('[data-testid=board-zoom-level]').textContent !== '100 %'", timeout=WAIT_MS
    )
    assert level.inner_text() == f"{round(zoomed * 100)} %"

    host.get_by_test_id("board").focus()
    host.keyboard.press("Shift+Digit0")
    host.wait_for_function(
        "() => document.querySelector('[data-testid=board-zoom-level]').textContent === '100 %'", timeout=WAIT_MS
    )


def test_ctrl_wheel_over_a_terminal_frame_zooms_the_board_and_the_plain_wheel_scrolls_the_frame(host: Any) -> None:
    terminal = add_frame(host, "terminal")
    terminal.locator(".xterm").wait_for(timeout=WAIT_MS)
    body = terminal.locator(".board-frame-body").bounding_box()
    host.mouse.move(body["x"] + body["width"] / 2, body["y"] + body["height"] / 2)
    before = viewport(host)
    host.keyboard.down("Control")
    host.mouse.wheel(0, -200)
    host.keyboard.up("Control")
    host.wait_for_function(f"z => ({VIEWPORT})().zoom > z", arg=before["zoom"], timeout=WAIT_MS)
    # The page itself is not zoomed: the browser's own Ctrl+wheel zoom was held back.
    assert host.evaluate("() => window.visualViewport.scale") == 1

    zoomed = viewport(host)
    host.mouse.wheel(0, 200)
    host.evaluate("() => new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)))")
    assert viewport(host) == zoomed


def png_size(data: bytes) -> tuple[int, int]:
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    width, height = struct.unpack(">II", data[16:24])
    return width, height


def test_export_draws_the_selection_as_png_and_the_board_as_svg_with_its_texts(host: Any, tmp_path: Path) -> None:
    note = add_note(host, 250, 250, "exported words")
    add_agent(host)
    frame = host.locator(".react-flow__node-frame").first.get_attribute("data-id")
    host.get_by_test_id("board-tool-arrow").click()
    host.mouse.click(*centre(host, note))
    host.mouse.click(*centre(host, frame))
    host.get_by_test_id("board-arrow").wait_for(state="attached", timeout=WAIT_MS)

    host.mouse.click(*board_point(host, 5, 600))
    node(host, note).click()
    selected = box(host, note)
    host.get_by_test_id("board-export").click()
    with host.expect_download() as png:
        host.get_by_test_id("board-export-png").click()
    assert png_size(Path(png.value.path()).read_bytes()) == (selected["w"] + 32, selected["h"] + 32)

    host.keyboard.press("Escape")
    host.mouse.click(*board_point(host, 5, 600))
    host.get_by_test_id("board-export").click()
    with host.expect_download() as svg:
        host.get_by_test_id("board-export-svg").click()
    text = Path(svg.value.path()).read_text(encoding="utf-8")
    assert "exported words" in text
    # The agent frame is drawn with what it shows, not as an empty box.
    shown = host.locator(f'.react-flow__node[data-id="{frame}"] .board-frame-body').inner_text()
    first_line = next(line.strip() for line in shown.splitlines() if len(line.strip()) > 3)
    assert re.sub(r"\s+", " ", first_line)[:20] in text.replace("&#39;", "'")
    assert text.count("<path") >= 2
