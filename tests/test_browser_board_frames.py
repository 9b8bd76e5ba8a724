"""Chromium: frames resize from their corner (a terminal's PTY follows), and new frames never land
on each other; the view pans to each new one and the focus moves to it."""

from __future__ import annotations

import re
from itertools import combinations
from typing import Any

import pytest

from tests.browser_pages import WAIT_MS, add_frame, box, drag, frames, open_host, overlap, toolbar_button
from tests.support import ServerProcess

pytestmark = [pytest.mark.browser, pytest.mark.timeout(180)]

SIZE = re.compile(r"SIZE (\d+) (\d+)")
CORNER = ".react-flow__resize-control.handle.top.right"


def select(page: Any, node: Any) -> None:
    """Selects a frame by its caption bar, as a person would, so its resize handles show."""
    node.locator(".board-frame-title").click()
    node.locator(CORNER).wait_for(timeout=WAIT_MS)


def drag_corner(page: Any, node: Any, dx: float, dy: float) -> None:
    """Drags the top right corner (the bottom right one may sit under the minimap) by dx, dy."""
    handle = box(node.locator(CORNER))
    x, y = handle["x"] + handle["width"] / 2, handle["y"] + handle["height"] / 2
    drag(page, (x, y), (x + dx, y + dy))


def pty_size(page: Any, node: Any, seen: int) -> tuple[int, int]:
    """Asks the shell for its size (`stty size`) and reads the answer off the screen."""
    node.locator(".xterm").click()
    page.keyboard.type('echo "SIZE $(stty size)"')
    page.keyboard.press("Enter")
    rows = node.locator(".xterm-rows")
    page.wait_for_function(
        "([el, seen]) => (el.innerText.match(/SIZE \\d+ \\d+/g) || []).length > seen",
        arg=[rows.element_handle(), seen],
        timeout=WAIT_MS,
    )
    rows_now, cols = SIZE.findall(rows.inner_text())[-1]
    return int(rows_now), int(cols)


def test_agent_terminal_and_file_frames_resize_from_their_corner(browser: Any, server: ServerProcess) -> None:
    (server.root / "app.py").write_text("def main():\n    return 1\n")
    page = open_host(browser, server)
    try:
        terminal = add_frame(page, "terminal")
        terminal.locator(".xterm").wait_for(timeout=WAIT_MS)
        _, cols_before = pty_size(page, terminal, 0)
        screen_before = box(terminal.locator(".xterm-screen"))["width"]
        frame_before = box(terminal)
        select(page, terminal)
        drag_corner(page, terminal, 240, -80)
        frame_after = box(terminal)
        assert frame_after["width"] == pytest.approx(frame_before["width"] + 240, abs=4)
        assert frame_after["height"] == pytest.approx(frame_before["height"] + 80, abs=4)
        # The opposite corner stays put: the frame grew, it was not dragged.
        assert frame_after["x"] == pytest.approx(frame_before["x"], abs=1)
        bottom = frame_before["y"] + frame_before["height"]
        assert frame_after["y"] + frame_after["height"] == pytest.approx(bottom, abs=1)
        # xterm refits to the frame, then tells the shell: its columns follow.
        page.wait_for_function(
            "([el, w]) => el.getBoundingClientRect().width > w + 150",
            arg=[terminal.locator(".xterm-screen").element_handle(), screen_before],
            timeout=WAIT_MS,
        )
        _, cols_after = pty_size(page, terminal, 1)
        assert cols_after >= cols_before + 25, (cols_before, cols_after)

        agent = add_frame(page, "agent")
        agent.get_by_test_id("agent-input").wait_for(timeout=WAIT_MS)
        view_before = box(agent.get_by_test_id("agent-view"))
        select(page, agent)
        drag_corner(page, agent, 160, -120)
        view_after = box(agent.get_by_test_id("agent-view"))
        assert view_after["width"] == pytest.approx(view_before["width"] + 160, abs=4)
        assert view_after["height"] == pytest.approx(view_before["height"] + 120, abs=4)

        page.get_by_test_id("board-add-file").click()
        page.get_by_test_id("file-picker").locator('[data-path="app.py"]').click()
        file_frame = frames(page).filter(has=page.get_by_test_id("file-app.py"))
        file_frame.filter(has_text="return 1").wait_for(timeout=WAIT_MS)
        select(page, file_frame)
        before = box(file_frame.get_by_test_id("file-app.py"))
        drag_corner(page, file_frame, -300, 200)
        after = box(file_frame.get_by_test_id("file-app.py"))
        assert after["width"] == pytest.approx(before["width"] - 300, abs=4)
        assert after["height"] == pytest.approx(before["height"] - 200, abs=4)
        # Not below the minimum size, however far the corner goes.
        drag_corner(page, file_frame, -2000, 2000)
        smallest = box(file_frame)
        assert smallest["width"] >= 270 and smallest["height"] >= 170
    finally:
        page.context.close()


def test_three_terminals_and_two_agents_added_in_a_row_do_not_overlap(browser: Any, server: ServerProcess) -> None:
    page = open_host(browser, server)
    try:
        for kind in ("terminal", "terminal", "terminal", "agent", "agent"):
            node = add_frame(page, kind)
            # The view pans to the new frame, and the focus leaves the button for it.
            page.wait_for_function(
                "el => { const r = el.getBoundingClientRect(), b = document.querySelector('[data-testid=board]')"
                ".getBoundingClientRect(); return r.left >= b.left && r.right <= b.right && r.top >= b.top"
                " && r.bottom <= b.bottom; }",
                arg=node.element_handle(),
                timeout=WAIT_MS,
            )
            page.wait_for_function(
                "el => el.contains(document.activeElement)", arg=node.element_handle(), timeout=WAIT_MS
            )
        # The board draws only what is in view: fitting it brings all five back to compare.
        page.get_by_test_id("board-zoom-fit").click()
        page.wait_for_function(
            "() => document.querySelectorAll('.react-flow__node-frame').length >= 5", timeout=WAIT_MS
        )
        assert frames(page).count() == 5
        boxes = [box(node) for node in frames(page).all()]
        for a, b in combinations(boxes, 2):
            assert not overlap(a, b), (a, b)
    finally:
        page.context.close()


def test_an_agents_note_lands_beside_its_frame(browser: Any, server: ServerProcess) -> None:
    page = open_host(browser, server)
    try:
        agent = add_frame(page, "agent")
        composer = agent.get_by_test_id("agent-input")
        composer.fill("/note next to me")
        composer.press("Enter")
        note = page.locator(".react-flow__node-note").filter(has_text="next to me")
        note.wait_for(timeout=WAIT_MS)
        # Both read in one frame: the board may be panning to show the note, moving both alike.
        frame, placed = page.evaluate(
            "([a, b]) => [a, b].map(e => e.getBoundingClientRect()).map(r => ({x: r.x, y: r.y, width: r.width}))",
            [agent.element_handle(), note.element_handle()],
        )
        zoom = frame["width"] / 640
        assert placed["x"] == pytest.approx(frame["x"] + frame["width"] + 40 * zoom, abs=2)
        assert placed["y"] == pytest.approx(frame["y"], abs=2)
    finally:
        page.context.close()


@pytest.fixture
def page(browser: Any, server: ServerProcess) -> Any:
    host = open_host(browser, server)
    yield host
    host.context.close()


def test_the_frame_pickers_take_enter_on_the_highlighted_choice(page: Any, server: ServerProcess) -> None:
    (server.root / "lib").mkdir()
    for path in ("lib/apple.txt", "app.py", "tests/test_app.py"):
        (server.root / path).parent.mkdir(exist_ok=True)
        (server.root / path).write_text(f"in {path}\n")
    # Several files match: Enter opens the best one (its name holds the words, shortest first).
    toolbar_button(page, page.get_by_test_id("board-add-file")).click()
    field = page.get_by_test_id("file-picker").get_by_label("File path")
    field.fill("app")
    # The files were written after the page opened: once the shared set has them, they are listed.
    page.get_by_test_id("file-picker").get_by_role("option").nth(2).wait_for(timeout=WAIT_MS)
    field.press("Enter")
    frames(page).filter(has=page.get_by_test_id("file-app.py")).filter(has_text="in app.py").wait_for(timeout=WAIT_MS)
    # The arrow keys move the highlight; Enter opens the highlighted file.
    toolbar_button(page, page.get_by_test_id("board-add-file")).click()
    picker = page.get_by_test_id("file-picker")
    field = picker.get_by_label("File path")
    field.fill("app")
    field.press("ArrowDown")
    second = picker.get_by_role("option").nth(1)
    assert second.get_attribute("aria-selected") == "true"
    path = second.get_attribute("data-path")
    assert field.get_attribute("aria-activedescendant") == second.get_attribute("id")
    field.press("Enter")
    frames(page).filter(has=page.get_by_test_id(f"file-{path}")).filter(has_text=f"in {path}").wait_for(timeout=WAIT_MS)

    # Tab keeps to the agent menu, however often it is pressed; Esc closes it.
    toolbar_button(page, page.get_by_test_id("board-add-agent")).click()
    page.get_by_test_id("agent-menu").wait_for(timeout=WAIT_MS)
    for _ in range(12):
        page.keyboard.press("Tab")
        assert page.evaluate("() => !!document.activeElement?.closest('[data-testid=agent-menu]')")
    page.keyboard.press("Escape")
    page.get_by_test_id("agent-menu").wait_for(state="detached", timeout=WAIT_MS)
    # The agent menu opens on the first agent that can start: Enter starts it in a new frame.
    toolbar_button(page, page.get_by_test_id("board-add-agent")).click()
    page.get_by_test_id("agent-menu").wait_for(timeout=WAIT_MS)
    page.keyboard.press("Enter")
    page.get_by_test_id("agent-menu").wait_for(state="detached", timeout=WAIT_MS)
    frames(page).filter(has=page.get_by_test_id("agent-input")).wait_for(timeout=WAIT_MS)


def test_a_new_terminal_frame_takes_the_keyboard(page: Any) -> None:
    terminal = add_frame(page, "terminal")
    page.wait_for_function("() => document.activeElement?.classList.contains('xterm-helper-textarea')", timeout=WAIT_MS)
    # Typed straight away, with no click in the frame: it reaches the shell.
    page.keyboard.type("echo typed-$((6 * 7))")
    page.keyboard.press("Enter")
    terminal.locator(".xterm-rows").filter(has_text="typed-42").wait_for(timeout=WAIT_MS)
