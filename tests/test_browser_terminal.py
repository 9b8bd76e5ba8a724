"""Chromium: type into a terminal and see its output; open a file from the tree and watch it change."""

from typing import Any

import pytest

from tests.support import ServerProcess

pytestmark = [pytest.mark.browser, pytest.mark.timeout(90)]


def test_type_into_a_terminal_and_see_the_output(browser: Any, server: ServerProcess) -> None:
    page = browser.new_page()
    try:
        page.goto(server.host_link)
        page.get_by_test_id("connection-state").filter(has_text="Connected").wait_for(timeout=15_000)
        page.get_by_test_id("new-terminal").click()
        screen = page.locator(".terminal-view .xterm")
        screen.wait_for(timeout=10_000)
        screen.click()
        page.keyboard.type("echo typed$((6*7))here")
        page.keyboard.press("Enter")
        page.locator(".terminal-view .xterm-rows").filter(has_text="typed42here").wait_for(timeout=15_000)
    finally:
        page.close()


def test_open_a_file_from_the_tree_and_watch_it_change(browser: Any, server: ServerProcess) -> None:
    page = browser.new_page()
    try:
        page.goto(server.host_link)
        page.get_by_test_id("connection-state").filter(has_text="Connected").wait_for(timeout=15_000)
        (server.root / "app.py").write_text("def main():\n    return 1\n")
        page.locator('[data-testid="file-tree"] [data-path="app.py"]').click(timeout=15_000)
        view = page.get_by_test_id("file-app.py")
        view.filter(has_text="return 1").wait_for(timeout=10_000)
        assert view.locator(".hljs-keyword").first.inner_text() == "def"
        (server.root / "app.py").write_text("def main():\n    return 2\n")
        view.filter(has_text="return 2").wait_for(timeout=10_000)
    finally:
        page.close()
