"""Chromium at a small laptop's 1,024 x 768 with the Room drawer open over the board's right side:
where the board moves to show a frame, the frame lands in the part nothing floats over (the
toolbar, the zoom bar, the drawer), and a frame left on screen by the move is not under the
toolbar, so a click on its prompt box reaches it."""

from __future__ import annotations

from typing import Any

import pytest

from tests.browser_pages import WAIT_MS, add_frame, box, open_host, overlap
from tests.support import ServerProcess

pytestmark = [pytest.mark.browser, pytest.mark.timeout(180)]

SETTLED = """() => new Promise(resolve => {
  const viewport = document.querySelector('.react-flow__viewport');
  let last = null, same = 0;
  const look = () => {
    const now = viewport.style.transform;
    same = now === last ? same + 1 : 0;
    last = now;
    if (same >= 3) resolve(true);
    else requestAnimationFrame(look);
  };
  look();
})"""
"""Resolves once the board's view has stayed put for three frames (a move of the view is animated)."""

HIT = """el => {
  const r = el.getBoundingClientRect();
  return el.contains(document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2));
}"""
"""Whether a click at the middle of the element reaches it (nothing lies over it there)."""


def settle(page: Any) -> None:
    page.wait_for_function(SETTLED, timeout=WAIT_MS)


def clear_area(page: Any) -> dict[str, float]:
    """The part of the board below the toolbar, above the zoom bar and left of the open drawer."""
    board = box(page.get_by_test_id("board"))
    toolbar = box(page.get_by_test_id("board-toolbar"))
    zoom = box(page.get_by_test_id("board-zoom"))
    drawer = box(page.get_by_test_id("side-panel"))
    top = toolbar["y"] + toolbar["height"]
    return {"x": board["x"], "y": top, "width": drawer["x"] - board["x"], "height": zoom["y"] - top}


def inside(inner: dict[str, float], outer: dict[str, float]) -> bool:
    return (
        inner["x"] >= outer["x"]
        and inner["y"] >= outer["y"]
        and inner["x"] + inner["width"] <= outer["x"] + outer["width"]
        and inner["y"] + inner["height"] <= outer["y"] + outer["height"]
    )


def test_a_new_terminal_leaves_the_agents_prompt_clear_of_the_toolbar_and_show_brings_it_beside_the_drawer(
    browser: Any, server: ServerProcess
) -> None:
    page = open_host(browser, server, 1024, 768)
    try:
        page.get_by_test_id("side-toggle").click()
        drawer = page.get_by_test_id("side-panel")
        drawer.get_by_test_id("room-link").wait_for(timeout=WAIT_MS)
        # The drawer slides in: it is in place once its right edge is the window's.
        page.wait_for_function(
            "el => Math.abs(el.getBoundingClientRect().right - window.innerWidth) < 1",
            arg=drawer.element_handle(),
            timeout=WAIT_MS,
        )

        agent = add_frame(page, "agent")
        prompt = agent.get_by_test_id("agent-input")
        prompt.wait_for(timeout=WAIT_MS)
        settle(page)
        # A new frame lands where it can be seen whole: not under the toolbar or the drawer.
        assert inside(box(agent), clear_area(page)), (box(agent), clear_area(page))

        terminal = add_frame(page, "terminal")
        settle(page)
        assert inside(box(terminal), clear_area(page)), (box(terminal), clear_area(page))
        # The agent's frame stays where it was on the board: what of it the move left on screen is
        # not under the toolbar.
        if prompt.is_visible():
            toolbar = box(page.get_by_test_id("board-toolbar"))
            assert not overlap(box(prompt), toolbar), (box(prompt), toolbar)

        drawer.get_by_test_id("room-entry").filter(has_text="Demo agent").get_by_test_id("show-on-board").click()
        prompt.wait_for(timeout=WAIT_MS)
        settle(page)
        assert inside(box(prompt), clear_area(page)), (box(prompt), clear_area(page))
        assert prompt.evaluate(HIT)
        prompt.click()
        page.wait_for_function("el => document.activeElement === el", arg=prompt.element_handle(), timeout=WAIT_MS)
    finally:
        page.context.close()
