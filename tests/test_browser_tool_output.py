"""Chromium, host and guest pages, the real demo agent: what a tool call did shows in the thread —
a command's output (a long one behind one click, windowed), an edit's diff, code to copy — and a
guest's prompt sent again waits for the host like any prompt."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.agent_support import config
from tests.browser_pages import waiting_list
from tests.support import ServerProcess
from tests.test_browser_guests import TIMEOUT_MS, host_with_an_agent_and_an_edit_guest

pytestmark = [pytest.mark.browser, pytest.mark.timeout(240)]

RULES = """
[[permissions]]
permission = "edit"
pattern = "*"
action = "allow"

[[permissions]]
permission = "execute"
pattern = "*"
action = "allow"
"""
BEFORE = "first line\nsecond line\nthird line\n"


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "project"
    root.mkdir()
    config(root, RULES)
    (root / "notes.txt").write_text(BEFORE)
    return root


def prompt(page: Any, text: str) -> None:
    box = page.get_by_test_id("agent-view").get_by_test_id("agent-input")
    box.fill(text)
    box.press("Enter")


def tool(page: Any, title: str) -> Any:
    return page.get_by_test_id("agent-tool").filter(has=page.locator(".agent-tool-title", has_text=title))


def test_output_and_diffs_show_in_the_thread_on_the_host_and_a_guest_page(browser: Any, server: ServerProcess) -> None:
    host, guest = host_with_an_agent_and_an_edit_guest(browser, server, "Ada")
    pages = (host, guest)

    prompt(host, "/run seq 5")
    for page in pages:
        output = tool(page, "seq 5").get_by_test_id("tool-output")
        output.locator(".tool-line").nth(4).wait_for(timeout=TIMEOUT_MS)
        assert output.locator(".tool-line").all_inner_texts() == ["1", "2", "3", "4", "5"]
        assert output.get_by_test_id("tool-output-more").count() == 0, "five lines need no click"
        assert output.get_by_test_id("tool-exit").inner_text() == "✓ Exit code 0"

    prompt(host, "/run seq 5000")
    for page in pages:
        output = tool(page, "seq 5000").get_by_test_id("tool-output")
        more = output.get_by_test_id("tool-output-more")
        more.wait_for(timeout=TIMEOUT_MS)
        assert more.inner_text() == "Show all 5,000 lines"
        assert output.locator(".tool-line").count() == 20
        more.click()
        window = output.get_by_test_id("tool-output-window")
        window.wait_for(timeout=TIMEOUT_MS)
        # A screenful (24 lines) and the overscan (20) beyond it: never all 5,000 in the page.
        assert output.locator(".tool-line").count() <= 24 + 20
        window.evaluate("box => { box.scrollTop = box.scrollHeight; }")
        window.locator(".tool-line", has_text="5000").wait_for(timeout=TIMEOUT_MS)
        assert output.locator(".tool-line").count() <= 24 + 2 * 20
        assert page.evaluate("() => new Promise(done => requestAnimationFrame(() => done(true)))")

    prompt(host, "/run ls no-such-file")
    for page in pages:
        failed = tool(page, "ls no-such-file")
        failed.get_by_test_id("tool-exit").filter(has_text="Failed with exit code 2").wait_for(timeout=TIMEOUT_MS)
        assert failed.locator(".tool-line").all_inner_texts() == [
            "ls: cannot access 'no-such-file': No such file or directory"
        ]

    # A rule allows the edit: nobody is asked, and the thread still shows what changed.
    prompt(host, "/write notes.txt first line\nsecond line, changed\nthird line\n")
    for page in pages:
        diff = tool(page, "Write notes.txt").get_by_test_id("tool-diff")
        diff.get_by_test_id("diff-added").wait_for(timeout=TIMEOUT_MS)
        removed, added = diff.get_by_test_id("diff-removed"), diff.get_by_test_id("diff-added")
        assert removed.locator("code").all_inner_texts() == ["second line"]
        assert added.locator("code").all_inner_texts() == ["second line, changed"]
        # Numbered (old, new), marked for readers who do not see the colours, and said to screen readers.
        assert removed.locator(".diff-number").all_inner_texts() == ["2", ""]
        assert added.locator(".diff-number").all_inner_texts() == ["", "2"]
        assert (removed.locator(".diff-mark").inner_text(), added.locator(".diff-mark").inner_text()) == ("\u2212", "+")
        assert removed.locator(".visually-hidden").inner_text().startswith("removed")
        assert diff.locator(".tool-path").inner_text() == "notes.txt"
        assert page.get_by_test_id("agent-permission").get_by_role("button").count() == 0, "the rules answered"
    assert (server.root / "notes.txt").read_text() == "first line\nsecond line, changed\nthird line"
    for page in pages:
        page.context.close()


def test_code_and_replies_copy_and_a_guests_prompt_sent_again_waits_for_the_host(
    browser: Any, server: ServerProcess
) -> None:
    host, guest = host_with_an_agent_and_an_edit_guest(browser, server, "Ada")
    host.context.grant_permissions(["clipboard-read", "clipboard-write"])

    prompt(host, "look:\n```python\nprint('hi')\n```")
    view = host.get_by_test_id("agent-view")
    code = view.locator(".agent-code").last
    code.locator(".hljs-string").wait_for(timeout=TIMEOUT_MS)  # coloured, once the highlighter came
    code.get_by_role("button", name="Copy code").click()
    code.get_by_role("button", name="Copied").wait_for(timeout=TIMEOUT_MS)
    assert host.evaluate("() => navigator.clipboard.readText()") == "print('hi')"
    view.get_by_test_id("agent-copy-reply").last.click()
    assert host.evaluate("() => navigator.clipboard.readText()") == "You said: look:\n```python\nprint('hi')\n```"

    guest_view = guest.get_by_test_id("agent-view")
    prompt(guest, "first try")
    approve(host, "first try")
    # The agent reads a guest's prompt named as theirs, and answers that.
    guest_view.get_by_test_id("agent-message").filter(has_text="You said: Ada (guest, edit): first try").wait_for(
        timeout=TIMEOUT_MS
    )
    assert host.get_by_test_id("agent-view").get_by_test_id("agent-edit").count() == 1, "only the host's own prompt"
    guest_view.get_by_test_id("agent-user").filter(has_text="first try").get_by_test_id("agent-edit").click()
    box = guest_view.get_by_test_id("agent-input")
    assert box.input_value() == "first try"
    assert guest.evaluate("() => document.activeElement?.dataset.testid") == "agent-input"
    box.press("End")
    box.type(", again")
    box.press("Enter")
    guest_view.get_by_test_id("request-waiting").wait_for(timeout=TIMEOUT_MS)
    assert guest_view.get_by_test_id("agent-message").filter(has_text="first try, again").count() == 0
    approve(host, "first try, again")
    guest_view.get_by_test_id("agent-message").filter(
        has_text="You said: Ada (guest, edit): first try, again"
    ).wait_for(timeout=TIMEOUT_MS)
    for page in (host, guest):
        page.context.close()


def approve(host: Any, text: str) -> None:
    approval = waiting_list(host).locator('[data-testid="approval"][data-what="agent-prompt"]').filter(has_text=text)
    approval.wait_for(timeout=TIMEOUT_MS)
    approval.get_by_test_id("approve").click()


def test_the_prompt_box_offers_the_agents_commands_on_slash(browser: Any, server: ServerProcess) -> None:
    host, guest = host_with_an_agent_and_an_edit_guest(browser, server, "Ada")
    box = host.get_by_test_id("agent-view").get_by_test_id("agent-input")
    box.fill("/r")
    commands = host.get_by_test_id("agent-commands")
    commands.wait_for(timeout=TIMEOUT_MS)
    assert [o.inner_text().split()[0] for o in commands.get_by_role("option").all()] == ["/run", "/read"]
    box.press("ArrowDown")
    box.press("Enter")
    assert box.input_value() == "/read "
    assert commands.count() == 0
    for page in (host, guest):
        page.context.close()
