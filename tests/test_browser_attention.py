"""Chromium, a host and two guests: what waits for the host cannot be missed, is read in plain words,
and shows what will run; a guest sees its own requests the same way."""

from __future__ import annotations

from typing import Any

import pytest

from tests.browser_pages import (
    add_agent,
    assert_plain,
    edit_guest,
    in_view,
    open_host,
    pan_away,
    prompt,
    wait_waiting,
    waiting_list,
)
from tests.support import ServerProcess
from tests.test_browser_guests import TIMEOUT_MS, open_guest

pytestmark = [pytest.mark.browser, pytest.mark.timeout(240)]


def test_an_off_screen_permission_is_counted_brought_into_view_and_answered(
    browser: Any, server: ServerProcess
) -> None:
    (server.root / "notes.txt").write_text("one\ntwo\nthree\n")
    host = open_host(browser, server)
    bob = open_guest(browser, server, "Bob")
    view = add_agent(host)
    frame = host.get_by_test_id("board-frame")
    prompt(view, "/write notes.txt one\nTWO\nthree")
    wait_waiting(host, 1)
    pan_away(host)
    assert not in_view(host, frame), "the frame should be off screen for this test"
    entry = waiting_list(host).get_by_test_id("attention-entry").filter(has_text="asks your permission")
    entry.wait_for(timeout=TIMEOUT_MS)

    # What will run is in front of the host: the diff, the size, and the rule each answer adds.
    preview = entry.get_by_test_id("preview-diff").inner_text()
    assert "-two" in preview and "+TWO" in preview
    assert "1 line added, 1 removed" in entry.inner_text(), "the change's size, not the file's"
    assert "Always allows edits of notes.txt" in entry.inner_text()
    assert entry.get_by_role("button", name="Always, for this session").count() == 1
    assert_plain(host, bob)

    entry.get_by_test_id("attention-show").click()
    host.wait_for_function(
        """() => { const e = document.querySelector('[data-testid="board-frame"]');
                   if (!e) return false;  // the board draws only what is in view
                   const f = e.getBoundingClientRect();
                   const b = document.querySelector('[data-testid="board"]').getBoundingClientRect();
                   const x = f.x + f.width / 2, y = f.y + f.height / 2;
                   return x > b.left && x < b.right && y > b.top && y < b.bottom; }""",
        timeout=TIMEOUT_MS,
    )
    entry.get_by_role("button", name="Always, for this session").click()
    wait_waiting(host, 0)
    answer = view.get_by_test_id("permission-answer")
    answer.filter(has_text="Always allowed, for this session by the host").wait_for(timeout=TIMEOUT_MS)
    bob.get_by_test_id("permission-answer").filter(has_text="Always allowed").wait_for(timeout=TIMEOUT_MS)
    view.get_by_test_id("agent-message").filter(has_text="Wrote").wait_for(timeout=TIMEOUT_MS)
    assert (server.root / "notes.txt").read_text() == "one\nTWO\nthree"
    assert_plain(host, bob)
    for page in (host, bob):
        page.context.close()


def test_a_guests_long_prompt_waits_whole_in_front_of_the_host(browser: Any, server: ServerProcess) -> None:
    host = open_host(browser, server)
    add_agent(host)
    ada = edit_guest(browser, server, host, "Ada")
    bob = open_guest(browser, server, "Bob")
    words = "please refactor the parser and keep every test green; "
    long_prompt = (words * 40)[:2000]
    prompt(ada.get_by_test_id("agent-view"), long_prompt)

    # The guest sees its request waiting, counted like the host's.
    wait_waiting(ada, 1)
    waiting_list(ada).get_by_test_id("attention-entry").filter(
        has_text="Your prompt to Demo agent is waiting"
    ).wait_for(timeout=TIMEOUT_MS)
    pan_away(host)
    wait_waiting(host, 1)
    entry = (
        waiting_list(host).get_by_test_id("attention-entry").filter(has_text="Ada asks to send a prompt to Demo agent")
    )
    entry.wait_for(timeout=TIMEOUT_MS)
    named = "Ada (guest, edit): " + long_prompt
    assert entry.get_by_test_id("approval-text").inner_text() == named, "named as the agent will read it"
    assert f"{len(named):,} characters, all shown above" in entry.inner_text()
    assert_plain(host, ada, bob)
    assert not in_view(host, host.get_by_test_id("board-frame"))
    entry.get_by_test_id("attention-show").click()
    host.wait_for_function(
        """() => { const e = document.querySelector('[data-testid="board-frame"]');
                   if (!e) return false;  // the board draws only what is in view
                   const f = e.getBoundingClientRect();
                   const b = document.querySelector('[data-testid="board"]').getBoundingClientRect();
                   return f.x + f.width / 2 > b.left && f.x + f.width / 2 < b.right; }""",
        timeout=TIMEOUT_MS,
    )
    entry.get_by_test_id("approve").click()
    wait_waiting(host, 0)
    # The guest is told how it ended, and can put that away.
    wait_waiting(ada, 0)
    ended = waiting_list(ada).get_by_test_id("attention-entry").filter(has_text="the host approved it")
    ended.wait_for(timeout=TIMEOUT_MS)
    ended.get_by_role("button", name="Dismiss").click()
    ended.wait_for(state="detached", timeout=TIMEOUT_MS)
    host.get_by_test_id("agent-message").filter(has_text="You said: Ada (guest, edit): please refactor").wait_for(
        timeout=TIMEOUT_MS
    )
    assert_plain(host, ada, bob)
    for page in (host, ada, bob):
        page.context.close()
