"""Chromium: the host's Timeline on the host page, by keyboard alone. A host drives a known script
(a guest joins, the host's note, a terminal program that draws with cursor moves, the demo agent's
turn with a tool call the host allows and a note of its own), keeping what the page showed after
each step; then the Timeline, opened at 1,024 px light and at 390 px dark with Tab and Enter, shows
the board, the thread and the terminal's screen the page showed at each of those moments; P, A and
J jump to the next prompt, approval and person, Space plays, and while it is open a guest's new
note appears among its marks (the live room goes on under it); Esc is back to now."""

from __future__ import annotations

import json
import time
import urllib.request
from dataclasses import dataclass
from typing import Any

import pytest

from tests.browser_pages import add_agent, add_frame, assert_plain, open_host, prompt
from tests.support import ServerProcess
from tests.test_browser_board_edit import add_note
from tests.test_browser_guests import open_guest

pytestmark = [pytest.mark.browser, pytest.mark.timeout(300)]

WAIT_MS = 20_000
DRAW = r"printf '\033[2J\033[3;6Hdrawn-here\033[1;1Hup-top\033[5;1H'"
GAP_S = 0.4
"""A pause between two steps of the script, as a person makes: the scrubber's finest step (0.1 s)
lands between the steps, so each moment kept is one a keyboard reaches."""


def api(server: ServerProcess, path: str) -> Any:
    request = urllib.request.Request(server.base_url + path, headers={"Authorization": f"Bearer {server.token}"})
    with urllib.request.urlopen(request, timeout=30) as response:
        return json.loads(response.read())


def after_a_pause(server: ServerProcess) -> float:
    """The recording's last moment once the room has been quiet for `GAP_S` after it."""
    end = api(server, "/api/timeline")["end"]
    while True:
        time.sleep(max(0.0, end + GAP_S - time.time()))
        now = api(server, "/api/timeline")["end"]
        if now == end:
            return end
        end = now


def rows(locator: Any) -> list[str]:
    return [row.replace("\xa0", " ").rstrip() for row in locator.locator(".xterm-rows > div").all_inner_texts()]


def squeezed(text: str) -> str:
    """Text without its spacing: the board's export breaks a frame's lines where it fits them."""
    return "".join(text.split())


@dataclass
class Shown:
    """What the host's page showed at a moment: the board's items, the agent's messages and
    prompts, and the terminal's rows."""

    at: float
    items: set[str]
    said: list[str]
    screen: list[str]


def shown(page: Any, server: ServerProcess, at: float, prompts: list[str]) -> Shown:
    # The board draws only the items in view: fitted, it draws them all (as many as the room has).
    page.get_by_test_id("board-zoom-fit").click()
    count = len(api(server, "/api/board/items")["items"])
    page.wait_for_function(
        "count => document.querySelectorAll('.react-flow__node').length === count", arg=count, timeout=WAIT_MS
    )
    items = set(page.locator(".react-flow__node").evaluate_all("nodes => nodes.map(n => n.dataset.id)"))
    messages = page.get_by_test_id("agent-view").get_by_test_id("agent-message").all_inner_texts()
    terminal = page.locator('.react-flow__node-frame:has([data-holds="terminal"])')
    screen = rows(terminal) if terminal.count() else []
    return Shown(at, items, [*prompts, *(m.strip() for m in messages)], screen)


def tab_to(page: Any, test_id: str) -> None:
    """Tab, as a person does, until the control is focused (and fails if it is never reached)."""
    for _ in range(300):
        if page.evaluate("id => document.activeElement?.dataset?.testid === id", test_id):
            return
        page.keyboard.press("Tab")
    raise AssertionError(f"{test_id} is not reached with Tab")


def open_timeline(page: Any) -> Any:
    """From nothing focused: Tab to the room's panel (a drawer at these widths) and open it, then Tab
    to Timeline and open it. The scrubber takes the focus."""
    page.evaluate("() => document.activeElement?.blur()")
    if not page.get_by_test_id("open-timeline").is_visible():
        tab_to(page, "side-toggle")
        page.keyboard.press("Enter")
    tab_to(page, "open-timeline")
    page.keyboard.press("Enter")
    scrubber = page.get_by_test_id("replay-scrubber")
    scrubber.wait_for(timeout=WAIT_MS)
    page.wait_for_function("() => document.activeElement?.dataset?.testid === 'replay-scrubber'", timeout=WAIT_MS)
    return scrubber


COVERED = """() => [[0.98, 0.02], [0.5, 0.98], [0.02, 0.5]].every(([x, y]) =>
  document.elementFromPoint(innerWidth * x, innerHeight * y)?.closest('.replay-overlay'))"""
"""Whether the timeline lies over the whole window, the room panel's button included."""


def scrub_to(page: Any, scrubber: Any, target: float) -> None:
    """Home, then Page Up while it stays before `target`, then the arrows (a tenth of a second each)
    to the first step at or past it."""
    value = lambda: float(scrubber.input_value())  # noqa: E731
    if target >= float(scrubber.get_attribute("max")):
        # The last moment recorded is the scrubber's end, which its steps need not land on.
        page.keyboard.press("End")
        return
    page.keyboard.press("Home")
    for _ in range(20):
        before = value()
        page.keyboard.press("PageUp")
        if value() > target or value() == before:
            page.keyboard.press("PageDown")
            break
    for _ in range(2000):
        if value() <= target:
            break
        page.keyboard.press("ArrowLeft")
    for _ in range(2000):
        if value() >= target:
            break
        page.keyboard.press("ArrowRight")
    assert target <= value() < target + GAP_S, (target, scrubber.evaluate("e => [e.min, e.max, e.value, e.step]"))


def check_moment(page: Any, moment: Shown, later: list[str], terminal_name: str) -> None:
    """The timeline at `moment` shows what the page showed: the board's items, the thread so far
    (nothing said later), the terminal's rows, and the board's frames named and showing that thread."""
    board = page.get_by_test_id("replay-board")
    if moment.items:
        page.wait_for_function(
            "want => { const got = [...document.querySelectorAll('[data-testid=replay-board] [data-item]')]"
            ".map(g => g.dataset.item).sort(); return JSON.stringify(got) === JSON.stringify(want); }",
            arg=sorted(moment.items),
            timeout=WAIT_MS,
        )
    else:
        page.get_by_test_id("replay-board-empty").wait_for(timeout=WAIT_MS)
    threads = page.get_by_role("region", name="Threads").inner_text()
    for words in moment.said:
        assert words in threads, f"{words!r} was on the page then"
    for words in later:
        assert words not in threads, f"{words!r} came later"
    drawing = squeezed(board.text_content() or "") if moment.items else ""
    if moment.screen:
        replay_screen = page.get_by_test_id("replay-terminal").first
        replay_screen.locator(".xterm-rows").filter(has_text="drawn-here").wait_for(timeout=WAIT_MS)
        assert rows(replay_screen)[: len(moment.screen)] == moment.screen
        assert squeezed(terminal_name) in drawing, "the terminal's frame is named as the room names it"
    if moment.said:
        page.wait_for_function(
            "want => (document.querySelector('[data-testid=replay-board]')?.textContent ?? '')"
            ".replace(/\\s+/g, '').includes(want)",
            arg=squeezed(moment.said[-1])[:20],
            timeout=WAIT_MS,
        )


def jump(page: Any, key: str, words: str) -> None:
    page.keyboard.press(key)
    page.get_by_test_id("replay-said").filter(has_text=words).wait_for(timeout=WAIT_MS)


def test_the_host_scrubs_the_room_by_keyboard_while_it_goes_on(browser: Any, server: ServerProcess) -> None:
    host = open_host(browser, server, width=1024, height=800)
    guest = open_guest(browser, server, "Ada")
    host.get_by_test_id("side-toggle").click()
    host.locator('[data-testid="guest"][data-name="Ada"] [data-testid="guest-access"]').select_option("edit")
    guest.locator('[data-testid="access-banner"][data-access="edit"]').wait_for(timeout=WAIT_MS)
    host.get_by_test_id("side-toggle").click()
    moments: list[Shown] = []

    add_note(host, 120, 120, "the host's plan")
    moments.append(shown(host, server, after_a_pause(server), []))

    terminal = add_frame(host, "terminal")
    terminal.locator(".xterm").wait_for(timeout=WAIT_MS)
    host.keyboard.type(DRAW)
    host.keyboard.press("Enter")
    terminal.locator(".xterm-rows").filter(has_text="drawn-here").wait_for(timeout=WAIT_MS)
    terminal_name = terminal.locator(".board-frame-title span").inner_text()
    moments.append(shown(host, server, after_a_pause(server), []))

    view = add_agent(host)
    prompt(view, "/run echo tool-ran")
    view.get_by_role("button", name="Allow once").click()
    view.get_by_test_id("agent-message").first.wait_for(timeout=WAIT_MS)
    prompt(view, "/note the agent's note")
    view.get_by_test_id("agent-message").nth(1).wait_for(timeout=WAIT_MS)
    moments.append(shown(host, server, after_a_pause(server), ["/run echo tool-ran", "/note the agent's note"]))
    assert any("the agent's note" in note for note in host.get_by_test_id("board-note").all_inner_texts())
    session_name = view.locator("xpath=ancestor::*[@data-testid='board-frame']").locator(".board-frame-title span")
    session_name = session_name.inner_text()

    scrubber = open_timeline(host)
    replay = host.get_by_test_id("replay")
    assert host.evaluate(COVERED)
    for index, moment in enumerate(moments):
        scrub_to(host, scrubber, moment.at)
        later = [w for m in moments[index + 1 :] for w in m.said if w not in moment.said]
        check_moment(host, moment, later, terminal_name)

    # The jumps, from the start: the next person (Ada joined), prompt and approval.
    host.keyboard.press("Home")
    jump(host, "j", "Ada joined")
    jump(host, "p", "/run echo tool-ran")
    jump(host, "a", "the host")
    marks = replay.get_by_role("list", name="Marks").get_by_role("button")
    labels = marks.evaluate_all("buttons => buttons.map(b => b.getAttribute('aria-label'))")
    agent_marks = [label for label in labels if label.startswith("board change") and "changed the board" in label]
    assert any(squeezed(session_name) in squeezed(label) for label in agent_marks), (
        "the agent's note is its session's board change, not the host's",
        labels,
    )

    # Play: the moment moves on by itself; Space again pauses it.
    host.keyboard.press("Home")
    start = float(scrubber.input_value())
    host.keyboard.press(" ")
    host.wait_for_function(
        "start => Number(document.querySelector('[data-testid=replay-scrubber]').value) > start + 0.2",
        arg=start,
        timeout=WAIT_MS,
    )
    host.keyboard.press(" ")
    assert host.get_by_role("button", name="Play").get_attribute("aria-pressed") == "false"

    # The live room goes on: Ada's note reaches the host's board under the timeline, and the
    # timeline's marks, without a reload.
    count = marks.count()
    add_note(guest, 420, 260, "Ada's idea")
    replay.locator('.replay-mark[aria-label*="Ada changed the board"]').wait_for(timeout=WAIT_MS)
    assert marks.count() > count
    host.locator(".react-flow__node").filter(has_text="Ada's idea").wait_for(state="attached", timeout=WAIT_MS)
    assert_plain(host)

    # One key back to now: the live board, the focus where the timeline was opened.
    host.keyboard.press("Escape")
    replay.wait_for(state="detached", timeout=WAIT_MS)
    assert host.evaluate("() => document.activeElement?.dataset?.testid") == "open-timeline"

    phone = open_host(browser, server, width=390, height=844, scheme="dark")
    scrubber = open_timeline(phone)
    assert phone.evaluate("document.documentElement.scrollWidth") <= 390
    assert phone.evaluate(COVERED)
    for index, moment in enumerate(moments):
        scrub_to(phone, scrubber, moment.at)
        later = [w for m in moments[index + 1 :] for w in m.said if w not in moment.said]
        check_moment(phone, moment, later, terminal_name)
    assert phone.evaluate("document.documentElement.scrollWidth") <= 390
    phone.keyboard.press("Escape")
    phone.get_by_test_id("replay").wait_for(state="detached", timeout=WAIT_MS)
    for page in (host, guest, phone):
        page.context.close()
