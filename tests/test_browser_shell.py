"""Chromium opens the host link and sees the connected page with the room link."""

from typing import Any

import pytest

from tests.support import ServerProcess

pytestmark = pytest.mark.browser


def test_host_link_shows_the_connected_app(browser: Any, server: ServerProcess) -> None:
    page = browser.new_page()
    try:
        page.goto(server.host_link)
        page.get_by_test_id("connection-state").filter(has_text="Connected").wait_for(timeout=15_000)
        assert page.get_by_test_id("cwd").inner_text() == str(server.root.resolve())
        assert page.get_by_test_id("room-link").input_value() == server.room_link
        assert "Demo agent" in page.get_by_test_id("agents").inner_text()
    finally:
        page.close()


def test_a_wrong_token_says_so(browser: Any, server: ServerProcess) -> None:
    page = browser.new_page()
    try:
        page.goto(server.base_url + "/#token=wrong")
        page.get_by_test_id("connection-state").filter(has_text="Not authorised").wait_for(timeout=15_000)
    finally:
        page.close()


@pytest.mark.serve_subprocess
def test_the_page_reconnects_after_a_restart(browser: Any, server: ServerProcess) -> None:
    page = browser.new_page()
    try:
        page.goto(server.host_link)
        state = page.get_by_test_id("connection-state")
        state.filter(has_text="Connected").wait_for(timeout=15_000)
        port = server.base_url.rsplit(":", 1)[1]
        server.stop()
        state.filter(has_text="Reconnecting").wait_for(timeout=15_000)
        server.start("--port", port)
        state.filter(has_text="Connected").wait_for(timeout=30_000)
    finally:
        page.close()
