"""Chromium guests against the hub's data channel: a board far above one message's 256 KiB cap
arrives whole, and a guest whose channel dropped comes back to a terminal that missed nothing."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from canvasrelay.core.board import Board
from canvasrelay.core.board_edits import MAX_TEXT, add_note
from canvasrelay.protocol.framing import MAX_MESSAGE_BYTES
from canvasrelay.server.board.log import BOARD_LOG, write_log
from tests.browser_pages import open_host
from tests.support import ServerProcess
from tests.test_browser_guests import TIMEOUT_MS
from tests.test_browser_terminal_grant import type_line

pytestmark = [pytest.mark.browser, pytest.mark.timeout(240)]

NOTES = 40
KEEP_PEER_CONNECTIONS = """
  window.peerConnections = [];
  const Native = window.RTCPeerConnection;
  window.RTCPeerConnection = class extends Native {
    constructor(...args) { super(...args); window.peerConnections.push(this); }
  };
"""
"""Lets the test drop the page's channel as a network failure would (the page does not know)."""


@pytest.fixture
def big_board_server(project: Path) -> Iterator[ServerProcess]:
    board = Board()
    for n in range(NOTES):
        add_note(board, f"note {n} " + "x" * (MAX_TEXT - 20) + f" end-of-{n}", x=n * 300, y=0)
    state = board.checkpoint()
    assert len(state) > MAX_MESSAGE_BYTES
    # A first start makes the store (whose first migration writes an empty board log), then the board goes in.
    ServerProcess(project).start().stop()
    write_log(project / ".canvas" / BOARD_LOG, [state])
    server = ServerProcess(project).start()
    yield server
    server.stop()


def test_a_board_above_the_message_cap_reaches_a_chromium_guest_whole(
    browser: Any, big_board_server: ServerProcess
) -> None:
    # The board draws only the items in view; this test reads every note's text, so the guest's
    # page draws them all (the board's own switch), whatever its view.
    context = browser.new_context()
    context.add_init_script("localStorage.setItem('canvas.board.culling', 'off')")
    guest = context.new_page()
    guest.goto(big_board_server.room_link)
    guest.get_by_test_id("guest-name").fill("Ada")
    guest.get_by_test_id("guest-join").click()
    guest.get_by_test_id("connection-state").filter(has_text="Connected").wait_for(timeout=TIMEOUT_MS)
    notes = guest.get_by_test_id("board-note")
    notes.nth(NOTES - 1).wait_for(state="attached", timeout=TIMEOUT_MS)
    assert notes.count() == NOTES
    texts = notes.all_inner_texts()
    assert all(f"end-of-{n}" in "".join(texts) for n in range(NOTES))
    guest.context.close()


def test_a_chromium_guest_whose_channel_dropped_resumes_where_it_was(browser: Any, server: ServerProcess) -> None:
    host = open_host(browser, server)
    host.get_by_test_id("new-terminal").click()
    host.locator(".terminal-view .xterm").wait_for(timeout=TIMEOUT_MS)

    context = browser.new_context()
    context.add_init_script(KEEP_PEER_CONNECTIONS)
    guest = context.new_page()
    guest.goto(server.room_link)
    guest.get_by_test_id("guest-name").fill("Ada")
    guest.get_by_test_id("guest-join").click()
    state = guest.get_by_test_id("connection-state")
    state.filter(has_text="Connected").wait_for(timeout=TIMEOUT_MS)
    guest.get_by_test_id("terminal-watching").wait_for(timeout=TIMEOUT_MS)
    rows = guest.locator(".terminal-view .xterm-rows")
    type_line(host, "echo before-$((6*7))")
    rows.filter(has_text="before-42").wait_for(timeout=TIMEOUT_MS)

    guest.evaluate("window.peerConnections.at(-1).close()")
    state.filter(has_text="Connected").wait_for(state="detached", timeout=TIMEOUT_MS)
    # Printed while the guest is away: the hub keeps it for the guest's return.
    type_line(host, "echo during-$((6*7))")
    state.filter(has_text="Connected").wait_for(timeout=TIMEOUT_MS)
    rows.filter(has_text="during-42").wait_for(timeout=TIMEOUT_MS)
    type_line(host, "echo after-$((6*7))")
    rows.filter(has_text="after-42").wait_for(timeout=TIMEOUT_MS)
    assert guest.evaluate("window.peerConnections.length") == 2
    text = rows.inner_text()
    assert text.index("before-42") < text.index("during-42") < text.index("after-42")
    context.close()
    host.context.close()
