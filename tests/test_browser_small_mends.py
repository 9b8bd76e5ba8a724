"""Chromium: the smaller things a walk through the room found, each as a person would check it. An
empty board has no blank map, and a phone's hint names taps, not keys; a notice lies over the board
rather than pushing it down; the host's second browser shows the name the first one set; no id
is shared by two controls; a guest's terminal request that waits offers no "Start a shell" beside
it; a terminal's notes lie under its screen, never over the prompt line; an arrow's line stops at
its label; a note the agent adds reads as words in its thread, not as JSON; a dark board exports dark,
and its menu says so."""

from __future__ import annotations

import base64
import re
from pathlib import Path
from typing import Any

import pytest

from tests.browser_pages import (
    WAIT_MS,
    add_agent,
    add_frame,
    assert_plain,
    box,
    drag,
    open_host,
    overlap,
    prompt,
    serious_violations,
)
from tests.support import ServerProcess
from tests.test_browser_board_edit import add_note, board_point
from tests.test_browser_invites import join_with, open_room_panel, shot

pytestmark = [pytest.mark.browser, pytest.mark.timeout(180)]


@pytest.mark.parametrize(("width", "scheme"), [(390, "light"), (1440, "dark")])
def test_an_empty_board_has_no_blank_map_and_its_hint_fits_the_screen(
    browser: Any, server: ServerProcess, width: int, scheme: str
) -> None:
    host = open_host(browser, server, width=width, height=844, scheme=scheme)
    hint = host.get_by_test_id("board-hint")
    hint.wait_for(timeout=WAIT_MS)
    assert host.locator(".react-flow__minimap, .board-map").count() == 0, "a map of nothing"
    words = hint.inner_text()
    if width == 390:
        assert "Press" not in words and host.locator("[data-testid=board-hint] kbd").count() == 0, words
        assert "More" in words and "Room" in words, words
    else:
        assert "Press N" in words.replace("\n", " "), words
    shot(host, f"empty-board-{width}-{scheme}")
    add_frame(host, "terminal")
    # A phone has no room for a map at all; wider, one is drawn once there is something on it.
    host.locator(".react-flow__minimap, .board-map").first.wait_for(state="attached", timeout=WAIT_MS)
    host.context.close()


def test_a_notice_lies_over_the_board_and_the_hosts_second_browser_knows_its_name(
    browser: Any, server: ServerProcess
) -> None:
    first = open_host(browser, server, width=1440)
    open_room_panel(first)
    first.get_by_test_id("host-name").fill("Grace")
    first.get_by_test_id("host-name").press("Tab")
    second = open_host(browser, server, width=1024, scheme="dark")
    open_room_panel(second)
    second.wait_for_function("document.querySelector('[data-testid=host-name]')?.value === 'Grace'", timeout=WAIT_MS)

    board = second.get_by_test_id("board")
    before = box(board)
    # A guest whose request the first page answers after the guest left: the other page is told.
    guest = join_with(browser, server.room_link, 390, name="Ada")
    guest.get_by_test_id("access-banner").get_by_test_id("ask-edit").click()
    second.get_by_test_id("attention-count").filter(has_text="1 waiting").wait_for(timeout=WAIT_MS)
    first.locator('[data-testid="guest"][data-name="Ada"] [data-testid="kick"]').click()
    first.locator('[data-testid="guest"][data-name="Ada"] [data-testid="kick-yes"]').click()
    second.get_by_test_id("notice").first.wait_for(timeout=WAIT_MS)
    assert box(board) == before, "the notice moved the board"
    for control in ("board-toolbar", "board-zoom"):
        assert not overlap(box(second.get_by_test_id("notices")), box(second.get_by_test_id(control))), control
    shot(second, "notice-over-board-1024-dark")
    for page in (first, second, guest):
        page.context.close()


def test_no_two_controls_share_an_id_with_the_agent_menu_open_beside_the_agents_list(
    browser: Any, server: ServerProcess
) -> None:
    host = open_host(browser, server, width=1440)
    host.get_by_role("button", name="Add agent").click()
    host.get_by_test_id("agent-menu").wait_for(timeout=WAIT_MS)
    shared = host.evaluate(
        """() => {
          const ids = [...document.querySelectorAll('[aria-describedby]')].map(e => e.getAttribute('aria-describedby'));
          return ids.filter((id, i) => ids.indexOf(id) !== i || document.querySelectorAll(`[id="${id}"]`).length > 1);
        }"""
    )
    assert shared == [], f"controls described by one id: {shared}"
    found = [v for v in serious_violations(host) if "duplicate-id" in v or "aria-allowed-role" in v]
    assert found == [], found
    host.context.close()


def test_a_waiting_terminal_request_offers_no_second_start_and_notes_sit_under_the_screen(
    browser: Any, server: ServerProcess
) -> None:
    host = open_host(browser, server, width=1440)
    add_agent(host)
    ada = join_with(browser, server.room_link, 1024, name="Ada")
    host.locator('[data-testid="guest"][data-name="Ada"] [data-testid="guest-access"]').select_option("edit")
    ada.locator('[data-testid="access-banner"][data-access="edit"]').wait_for(timeout=WAIT_MS)
    ada.get_by_test_id("board-add-terminal").click()
    empty = ada.get_by_test_id("terminal-none")
    empty.get_by_test_id("request-waiting").wait_for(timeout=WAIT_MS)
    assert empty.get_by_role("button", name="Start a shell").count() == 0
    shot(ada, "terminal-request-waiting-1024")

    view = add_frame(host, "terminal").locator(".terminal-view")
    view.locator(".xterm").click()
    host.keyboard.type("echo typed")
    typist = view.get_by_test_id("terminal-typist")
    typist.wait_for(timeout=WAIT_MS)
    screen = box(view.locator(".terminal-screen-area"))
    assert box(typist)["y"] >= screen["y"] + screen["height"] - 1, "the note lies over the screen"
    for page in (host, ada):
        page.context.close()


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_an_arrows_line_stops_at_its_label(browser: Any, server: ServerProcess, scheme: str) -> None:
    host = open_host(browser, server, width=1280, scheme=scheme)
    host.get_by_test_id("board-tool-arrow").click()
    drag(host, board_point(host, 200, 420), board_point(host, 620, 420))
    host.locator(".react-flow__node-arrow").focus()
    host.keyboard.press("Enter")
    host.keyboard.type("because of the tests")
    host.keyboard.press("Enter")
    label = host.locator(".board-arrow-label").filter(has_text="because of the tests")
    label.wait_for(timeout=WAIT_MS)
    patch = host.locator(".board-arrow-label-patch")
    patch.wait_for(timeout=WAIT_MS)
    words, under = box(label), box(patch)
    assert under["x"] <= words["x"] and under["x"] + under["width"] >= words["x"] + words["width"], (words, under)
    assert under["y"] <= words["y"] and under["y"] + under["height"] >= words["y"] + words["height"], (words, under)
    board, fill = host.evaluate(
        "() => [getComputedStyle(document.querySelector('.board')).backgroundColor,"
        " getComputedStyle(document.querySelector('.board-arrow-label-patch')).fill]"
    )
    assert board == fill, "the patch is the board's own colour"
    shot(host, f"arrow-label-{scheme}")
    host.context.close()


ON_BOARD = """words => {
  const node = [...document.querySelectorAll('.react-flow__node')]
    .find(n => n.querySelector('[data-testid=board-note]')?.innerText.includes(words));
  const board = document.querySelector('[data-testid=board]').getBoundingClientRect();
  const item = node?.getBoundingClientRect();
  const inside = !!item && item.left >= board.left && item.right <= board.right
    && item.top >= board.top && item.bottom <= board.bottom;
  return inside && (!node.classList.contains('selected') || 'selected');
}"""
"""Whether the note showing `words` lies wholly on the page's board ('selected' when it is selected too)."""


@pytest.mark.parametrize(("width", "height", "scheme"), [(1024, 768, "dark"), (1440, 900, "light")])
def test_a_new_agent_frame_reads_a_turn_and_its_note_reads_as_words_and_lands_in_view(
    browser: Any, server: ServerProcess, width: int, height: int, scheme: str
) -> None:
    host = open_host(browser, server, width=width, height=height, scheme=scheme)
    view = add_agent(host)
    # About 640 px tall, as much of it as the screen shows clear: a turn reads without scrolling.
    frame, board = box(host.locator(".react-flow__node-frame").first), box(host.get_by_test_id("board"))
    assert frame["height"] == 640 if height == 900 else 540 <= frame["height"] <= 640, frame
    assert board["y"] <= frame["y"] and frame["y"] + frame["height"] <= board["y"] + board["height"], (frame, board)
    prompt(view, "/note ship it on Friday")
    row = view.get_by_test_id("agent-tool").filter(has_text="Add a note").filter(has_text="done")
    row.wait_for(timeout=WAIT_MS)
    assert "A note on the board: ship it on Friday" in row.inner_text()
    assert_plain(host)
    # Beside its agent's frame, the note is brought into view for the person at that frame, who
    # keeps typing where they were.
    host.wait_for_function(ON_BOARD, arg="ship it", timeout=WAIT_MS)
    note = host.locator(".react-flow__node").filter(has=host.get_by_test_id("board-note").filter(has_text="ship it"))
    assert host.evaluate("() => document.activeElement?.dataset.testid") == "agent-input"
    shot(host, f"agent-note-{width}-{scheme}")

    # Panned so the note is past the board's right edge while the agent's frame stays in sight.
    board = box(host.get_by_test_id("board"))
    shift = board["x"] + board["width"] - box(note)["x"] + 20
    start = (board["x"] + 20, board["y"] + board["height"] / 2)
    host.mouse.move(*start)
    host.mouse.down(button="middle")
    host.mouse.move(start[0] + shift, start[1], steps=8)
    host.mouse.up(button="middle")
    assert not host.evaluate(ON_BOARD, "ship it"), "the drag left the note in view"
    row.get_by_test_id("tool-board-show").click()
    host.wait_for_function(f"() => ({ON_BOARD})('ship it') === 'selected'", timeout=WAIT_MS)
    host.context.close()


PIXEL = """async png => {
  const image = new Image();
  image.src = 'data:image/png;base64,' + png;
  await image.decode();
  const canvas = document.createElement('canvas');
  canvas.width = image.width;
  canvas.height = image.height;
  const context = canvas.getContext('2d');
  context.drawImage(image, 0, 0);
  return [...context.getImageData(2, 2, 1, 1).data.slice(0, 3)];
}"""
"""The colour of the exported picture's top left corner, read by the page from the file's bytes."""


def test_a_dark_board_exports_dark_and_its_menu_says_so(browser: Any, server: ServerProcess, tmp_path: Path) -> None:
    host = open_host(browser, server, width=1440, scheme="dark")
    add_note(host, 300, 300, "dark words")
    add_frame(host, "terminal")
    view = add_agent(host)
    prompt(view, "draw me in the export")
    view.get_by_test_id("agent-message").filter(has_text="draw me in the export").wait_for(timeout=WAIT_MS)
    host.mouse.click(*board_point(host, 5, 600))
    host.get_by_test_id("board-export").click()
    png_item = host.get_by_test_id("board-export-png")
    assert "(dark, as shown)" in png_item.inner_text()
    with host.expect_download() as png:
        png_item.click()
    corner = host.evaluate(PIXEL, base64.b64encode(Path(png.value.path()).read_bytes()).decode())
    assert max(corner) < 60, f"the exported board is light: {corner}"

    host.get_by_test_id("board-export").click()
    with host.expect_download() as svg:
        host.get_by_test_id("board-export-svg").click()
    text = Path(svg.value.path()).read_text(encoding="utf-8")
    ground, frame_body = host.evaluate(
        "() => [getComputedStyle(document.documentElement).getPropertyValue('--board-bg').trim(),"
        " getComputedStyle(document.documentElement).getPropertyValue('--surface').trim()]"
    )
    first_fill = re.search(r'<rect [^>]*fill="([^"]+)"', text)
    assert first_fill and first_fill.group(1) == ground, text[:300]
    assert f'fill="{frame_body}"' in text and 'fill="#ffffff"' not in text, "a terminal frame drawn white"
    assert "dark words" in text
    # A frame is drawn with what it shows, not its controls' labels.
    assert "draw me in the export" in text
    assert not re.search(r"Copy reply|>Send<|Concise|Hand over", text), text
    host.context.close()
