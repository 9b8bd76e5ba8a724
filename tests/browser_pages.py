"""Helpers for the Chromium tests of the board as a person uses it: opening pages, adding frames,
reading where things are on screen, joining as a guest, running axe-core."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tests.support import ServerProcess

WAIT_MS = 20_000
AXE = Path(__file__).resolve().parent.parent / "web" / "node_modules" / "axe-core" / "axe.min.js"


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


def add_frame(page: Any, kind: str) -> Any:
    """Clicks the toolbar's button for a terminal or agent frame; returns the new frame's node."""
    before = frames(page).count()
    page.get_by_test_id(f"board-add-{kind}").click()
    page.wait_for_function(
        "n => document.querySelectorAll('.react-flow__node-frame').length > n", arg=before, timeout=WAIT_MS
    )
    ids = [node.get_attribute("data-id") for node in frames(page).all()]
    known = page.evaluate("() => window.__seenFrames ?? []")
    new = next(i for i in ids if i not in known)
    page.evaluate("ids => { window.__seenFrames = ids; }", ids)
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
    page.add_script_tag(content=AXE.read_text())
    results = page.evaluate("() => axe.run(document, { resultTypes: ['violations'] })")
    return [
        f"{v['id']} ({v['impact']}): {v['help']} at {[n['target'] for n in v['nodes']][:5]}"
        for v in results["violations"]
        if v["impact"] in ("serious", "critical")
    ]
