"""Helpers for the Chromium tests of the board and the approval loop as a person uses them: opening
pages for the host and guests, adding frames, reading where things are on screen and what a person
reads on them, running axe-core."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from tests.support import ServerProcess
from tests.test_browser_guests import TIMEOUT_MS, open_guest

WAIT_MS = 20_000
AXE = Path(__file__).resolve().parent.parent / "web" / "node_modules" / "axe-core" / "axe.min.js"
PROTOCOL_WORDS = re.compile(r"agent-prompt|term-open|allow_once|session-[0-9a-f]{12}|\{\"|approval-request")
"""What a person must never read: frame types, option ids, ids, JSON."""


def open_host(browser: Any, server: ServerProcess, width: int = 1280, height: int = 800, scheme: str = "light") -> Any:
    """The host link in a fresh context (its own local storage), connected, with the board drawn."""
    context = browser.new_context(viewport={"width": width, "height": height}, color_scheme=scheme)
    page = context.new_page()
    page.goto(server.host_link)
    page.get_by_test_id("connection-state").filter(has_text="Connected").wait_for(timeout=WAIT_MS)
    page.get_by_test_id("board-toolbar").wait_for(timeout=WAIT_MS)
    return page


def join_as_guest(
    browser: Any, server: ServerProcess, name: str, width: int = 1280, height: int = 800, scheme: str = "light"
) -> Any:
    """The room link in a fresh context, joined under `name`, with the board drawn."""
    context = browser.new_context(viewport={"width": width, "height": height}, color_scheme=scheme)
    page = context.new_page()
    page.goto(server.room_link)
    page.get_by_test_id("guest-name").fill(name)
    page.get_by_test_id("guest-join").click()
    page.get_by_test_id("connection-state").filter(has_text="Connected").wait_for(timeout=WAIT_MS)
    page.get_by_test_id("board-toolbar").wait_for(timeout=WAIT_MS)
    return page


def frames(page: Any) -> Any:
    return page.locator(".react-flow__node-frame")


def toolbar_button(page: Any, button: Any) -> Any:
    """A toolbar button, with "More tools" opened first where a phone's toolbar keeps it there."""
    more = page.get_by_test_id("board-more")
    if not button.is_visible() and more.is_visible() and more.get_attribute("aria-expanded") != "true":
        more.click()
    return button


FITTED_VIEW_KEPT = """() => Object.keys(localStorage)
  .filter(key => key.startsWith('canvas.view.'))
  .some(key => JSON.parse(localStorage.getItem(key)).zoom < 0.3)"""
"""True once a view far out (a big board fitted) is kept: the board keeps its view when it stops moving."""

NEW_FRAME = """known => {
  for (const node of document.querySelectorAll('.react-flow__node-frame.selected'))
    if (!known.includes(node.dataset.id)) return node.dataset.id;
  return null;
}"""
"""The id of a selected frame node not among `known` (a new frame is selected), or null."""


def add_frame(page: Any, kind: str) -> Any:
    """Clicks the toolbar's button for a terminal or agent frame; returns the new frame's node.

    The board draws only the items in view, so frames already there are counted as every frame
    node seen so far (not the nodes drawn now), and the new one is the selected frame not among them."""
    known = page.evaluate(
        "() => [...new Set([...(window.__seenFrames ?? []),"
        " ...[...document.querySelectorAll('.react-flow__node-frame')].map(n => n.dataset.id)])]"
    )
    toolbar_button(page, page.get_by_test_id(f"board-add-{kind}")).click()
    if kind == "agent":
        page.get_by_test_id("agent-menu").get_by_test_id("agent-start-demo").click()
    new = page.wait_for_function(NEW_FRAME, arg=known, timeout=WAIT_MS).json_value()
    page.evaluate("ids => { window.__seenFrames = ids; }", [*known, new])
    # The new frame takes the focus once drawn: waited for, so it is not taken from what comes next.
    page.wait_for_function(
        'id => document.querySelector(`.react-flow__node[data-id="${id}"]`)?.contains(document.activeElement)',
        arg=new,
        timeout=WAIT_MS,
    )
    return page.locator(f'.react-flow__node[data-id="{new}"]')


def box(locator: Any) -> dict[str, float]:
    found = locator.bounding_box()
    assert found is not None, "not on screen"
    return found


def overlap(a: dict[str, float], b: dict[str, float]) -> bool:
    return (
        a["x"] < b["x"] + b["width"]
        and b["x"] < a["x"] + a["width"]
        and a["y"] < b["y"] + b["height"]
        and b["y"] < a["y"] + a["height"]
    )


def drag(page: Any, start: tuple[float, float], end: tuple[float, float], steps: int = 12) -> None:
    page.mouse.move(*start)
    page.mouse.down()
    page.mouse.move(*end, steps=steps)
    page.mouse.up()


def serious_violations(page: Any) -> list[str]:
    """axe-core's serious and critical findings on the page as it is, one readable line each."""
    # Run as the test's own script: the page's policy lets no inline <script> in.
    page.evaluate(AXE.read_text())
    results = page.evaluate("() => axe.run(document, { resultTypes: ['violations'] })")
    return [
        f"{v['id']} ({v['impact']}): {v['help']} at {[n['target'] for n in v['nodes']][:5]}"
        for v in results["violations"]
        if v["impact"] in ("serious", "critical")
    ]


def _luminance(css: str) -> float:
    channels = [int(c) / 255 for c in css[css.index("(") + 1 : css.index(")")].split(",")[:3]]
    linear = [c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4 for c in channels]
    return 0.2126 * linear[0] + 0.7152 * linear[1] + 0.0722 * linear[2]


def text_contrast(element: Any) -> float:
    """WCAG contrast of an element's text on its own (opaque) background. axe leaves elements
    inside the board's transformed nodes unjudged, so a control there is checked this way."""
    colour, background = element.evaluate("e => [getComputedStyle(e).color, getComputedStyle(e).backgroundColor]")
    light, dark = sorted((_luminance(colour), _luminance(background)), reverse=True)
    return (light + 0.05) / (dark + 0.05)


def start_agent(page: Any, agent: str = "demo") -> None:
    """The board's Agent button, then the agent picked in its menu."""
    toolbar_button(page, page.get_by_role("button", name="Add agent")).click()
    page.get_by_test_id("agent-menu").get_by_test_id(f"agent-start-{agent}").click()


def add_agent(host: Any) -> Any:
    """Adds a demo agent's frame from the board's toolbar; returns the frame's view once it is ready."""
    start_agent(host)
    view = host.get_by_test_id("agent-view")
    view.get_by_test_id("agent-config-mode").wait_for(timeout=TIMEOUT_MS)
    return view


def open_thread_sheet(page: Any) -> Any:
    """On a phone, where a frame is wider than the screen: picks the agent's frame by its title and
    opens its thread in a sheet, as its reader does; returns the sheet."""
    page.locator(".react-flow__node-frame .board-frame-title").click(position={"x": 30, "y": 10})
    page.get_by_test_id("board-open-thread").click()
    return page.get_by_test_id("thread-sheet")


def edit_guest(browser: Any, server: ServerProcess, host: Any, name: str) -> Any:
    """A guest page whose guest the host gave edit access."""
    page = open_guest(browser, server, name)
    host.locator(f'[data-testid="guest"][data-name="{name}"] [data-testid="guest-access"]').select_option("edit")
    page.locator('[data-testid="access-banner"][data-access="edit"]').wait_for(timeout=TIMEOUT_MS)
    return page


def prompt(view: Any, text: str) -> None:
    composer = view.get_by_test_id("agent-input")
    composer.fill(text)
    composer.press("Enter")


def assert_plain(*pages: Any) -> None:
    """No frame type, option id, id or JSON in what any of these pages shows."""
    for page in pages:
        text = page.locator("body").inner_text()
        found = PROTOCOL_WORDS.search(text)
        if found is not None:
            context = text[max(0, found.start() - 80) : found.end() + 80]
            raise AssertionError(f"a person would read {found.group(0)!r} on a page: …{context}…")


def wait_waiting(page: Any, count: int) -> None:
    """The top bar and the title both say `count` things wait (none: neither says a number)."""
    badge = page.get_by_test_id("attention-count")
    if count:
        badge.filter(has_text=f"{count} waiting").wait_for(timeout=TIMEOUT_MS)
        page.wait_for_function(f"() => document.title.startsWith('({count}) ')", timeout=TIMEOUT_MS)
    else:
        badge.wait_for(state="detached", timeout=TIMEOUT_MS)
        page.wait_for_function("() => !document.title.startsWith('(')", timeout=TIMEOUT_MS)


def waiting_list(page: Any) -> Any:
    """The list of what waits, opened from the top bar's line (on a laptop it stays closed, over
    nothing, until asked for): the line shows once something waits."""
    line = page.get_by_test_id("attention-line")
    line.wait_for(timeout=TIMEOUT_MS)
    if line.get_attribute("aria-expanded") != "true":
        line.click()
    return page.get_by_test_id("attention")


def pan_away(page: Any) -> None:
    """Drags the board's empty canvas with the middle button, as a person pans it, from its top
    right (clear of the toolbar, the zoom buttons and the minimap) to its bottom left."""
    box = page.get_by_test_id("board").bounding_box()
    start = (box["x"] + box["width"] - 40, box["y"] + 70)
    page.mouse.move(*start)
    page.mouse.down(button="middle")
    page.mouse.move(box["x"] + 60, box["y"] + box["height"] - 30, steps=12)
    page.mouse.up(button="middle")


def in_view(page: Any, locator: Any) -> bool:
    """Whether `locator` is (mostly) inside the board's visible area. The board draws only the items
    in view (culling), so an item it left out of the page is not in view."""
    board = page.get_by_test_id("board").bounding_box()
    if locator.count() == 0:
        return False
    box = locator.bounding_box()
    if box is None:
        return False
    cx, cy = box["x"] + box["width"] / 2, box["y"] + box["height"] / 2
    return board["x"] <= cx <= board["x"] + board["width"] and board["y"] <= cy <= board["y"] + board["height"]


BOARD_POINT = """(sx, sy) => {
  const m = /translate\\(([-\\d.]+)px, ([-\\d.]+)px\\) scale\\(([-\\d.]+)\\)/.exec(
    document.querySelector('.react-flow__viewport').style.transform);
  const [x, y, zoom] = [Number(m[1]), Number(m[2]), Number(m[3])];
  return [(sx - x) / zoom, (sy - y) / zoom, zoom];
}"""
"""The board coordinates at a point of the page's board (in pixels from its top left), and its zoom."""
VIEW_CENTRE = f"""() => {{
  const board = document.querySelector('[data-testid="board"]').getBoundingClientRect();
  return ({BOARD_POINT})(board.width / 2, board.height / 2);
}}"""
"""The board coordinates at the middle of the page's board, and its zoom."""


def view_centre(page: Any) -> tuple[float, float, float]:
    x, y, zoom = page.evaluate(VIEW_CENTRE)
    return x, y, zoom
