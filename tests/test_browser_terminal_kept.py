"""Chromium, with tmux keeping the shells: after a restart the page shows the terminal that ran on
and says of the one whose shell exited meanwhile that it ended while canvas was stopped."""

from __future__ import annotations

import asyncio
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest

from tests.browser_pages import WAIT_MS, assert_plain, open_host
from tests.support import HostClient, ServerProcess
from tests.test_terminals_tmux import WITH_TMUX, after_hook, echo_in_each, kept, sigterm, tmux

pytestmark = [pytest.mark.browser, pytest.mark.services, pytest.mark.timeout(180)]
__all__ = ["kept"]


async def two_terminals(server: ServerProcess) -> None:
    host = await HostClient.connect(server)
    await echo_in_each(host, "kept")
    await host.close()


def test_the_page_shows_what_ran_on_and_what_ended_while_canvas_was_stopped(
    browser: Any, kept: Path, tmp_path: Path
) -> None:
    server = ServerProcess(kept, env=WITH_TMUX).start()
    # Playwright's sync API holds this thread's event loop: the socket client runs in its own.
    with ThreadPoolExecutor(1) as pool:
        pool.submit(asyncio.run, two_terminals(server)).result(timeout=60)
    sigterm(server)
    after_hook(kept, "session-closed", lambda: tmux(kept, "send-keys", "-t", "=b:", "exit 7", "Enter"))
    assert tmux(kept, "has-session", "-t", "=b").returncode != 0, "the shell did not exit"

    again = ServerProcess(kept, env=WITH_TMUX).start()
    page = open_host(browser, again, width=1280, height=800)
    try:
        entries = page.get_by_test_id("terminal-entry")
        entries.filter(has_text="ended while canvas was stopped, exit code 7").wait_for(timeout=WAIT_MS)
        entries.filter(has_text="running").wait_for(timeout=WAIT_MS)
        assert page.get_by_test_id("no-tmux-note").count() == 0
        entries.filter(has_text="running").get_by_role("button", name="Show on board").click()
        page.locator(".terminal-view .xterm-rows").filter(has_text="kept-a-2").wait_for(timeout=WAIT_MS)
        page.screenshot(path=str(tmp_path / "kept-1280.png"))
        assert_plain(page)
        # The host ends every shell from the board: none is left in tmux.
        page.get_by_test_id("end-all-terminals").click()
        after_hook(kept, "session-closed", lambda: page.get_by_test_id("end-all-confirm").click())
        entries.filter(has_text="running").wait_for(state="detached", timeout=WAIT_MS)
        assert tmux(kept, "has-session", "-t", "=a").returncode != 0, "the shell outlived its end on the board"
        assert page.get_by_test_id("end-all-terminals").count() == 0
    finally:
        page.context.close()
        again.stop()
