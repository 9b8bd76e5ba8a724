"""Chromium guests against the hub's data channel: a board far above one message's 256 KiB cap
arrives whole, a terminal's output sent deflated reads as printed, and a guest whose channel
dropped comes back to a terminal that missed nothing."""

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
COUNT_BINARY_MESSAGES = """
  window.binaryMessages = 0;
  const create = RTCPeerConnection.prototype.createDataChannel;
  RTCPeerConnection.prototype.createDataChannel = function (...args) {
    const channel = create.apply(this, args);
    channel.addEventListener("message", (event) => {
      if (typeof event.data !== "string") window.binaryMessages += 1;
    });
    return channel;
  };
"""
"""Counts the messages that came deflated, so the test knows the output it reads travelled so."""


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


def a_guest_watching_a_terminal(browser: Any, server: ServerProcess, init_script: str) -> tuple[Any, Any]:
    """The host's page with a new terminal, and a Chromium guest's page watching it."""
    host = open_host(browser, server)
    host.get_by_test_id("new-terminal").click()
    host.locator(".terminal-view .xterm").wait_for(timeout=TIMEOUT_MS)
    context = browser.new_context()
    context.add_init_script(init_script)
    guest = context.new_page()
    guest.goto(server.room_link)
    guest.get_by_test_id("guest-name").fill("Ada")
    guest.get_by_test_id("guest-join").click()
    guest.get_by_test_id("connection-state").filter(has_text="Connected").wait_for(timeout=TIMEOUT_MS)
    guest.get_by_test_id("terminal-watching").wait_for(timeout=TIMEOUT_MS)
    return host, guest


def test_a_chromium_guest_reads_a_terminals_output_that_came_deflated(browser: Any, server: ServerProcess) -> None:
    host, guest = a_guest_watching_a_terminal(browser, server, COUNT_BINARY_MESSAGES)
    rows = guest.locator(".terminal-view .xterm-rows")
    type_line(host, "seq 1 $((30*1000)); echo after-$((6*7))")
    rows.filter(has_text="after-42").wait_for(timeout=TIMEOUT_MS)
    text = rows.inner_text()
    assert text.index("29998") < text.index("29999") < text.index("30000") < text.index("after-42")
    assert guest.evaluate("window.binaryMessages") > 0
    guest.context.close()
    host.context.close()


def test_a_chromium_guest_whose_channel_dropped_resumes_where_it_was(browser: Any, server: ServerProcess) -> None:
    host, guest = a_guest_watching_a_terminal(browser, server, KEEP_PEER_CONNECTIONS)
    state = guest.get_by_test_id("connection-state")
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
    guest.context.close()
    host.context.close()
