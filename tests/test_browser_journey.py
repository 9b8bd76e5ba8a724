"""Chromium: one journey of a host and two guests, as issue 37 walked it: an invitation, a hand-over,
an approval, a restart and a revoke, at 1,440, 1,024 and 390 px, light and dark. At every step no
page contradicts what the host did, and the record then tells who allowed what."""

from __future__ import annotations

import signal
from pathlib import Path
from typing import Any

import pytest

from tests.browser_pages import WAIT_MS, add_agent, add_frame, assert_plain, open_host, prompt, waiting_list
from tests.support import ServerProcess
from tests.test_browser_invites import join_with, shot
from tests.test_browser_people_kept import invite_in_panel, invite_row
from tests.test_browser_phone_band import phone_page
from tests.test_terminals_tmux import WITH_TMUX, kept

pytestmark = [pytest.mark.browser, pytest.mark.services, pytest.mark.timeout(300)]
__all__ = ["kept"]


def restart(server: ServerProcess, *pages: Any) -> None:
    """SIGTERM, then `canvas serve` again on the same port; every page is connected again."""
    assert server.proc is not None
    port = server.base_url.rsplit(":", 1)[1]
    server.proc.send_signal(signal.SIGTERM)
    server.proc.wait(timeout=30)
    server.stop()
    server.start("--port", port)
    for page in pages:
        page.get_by_test_id("connection-state").filter(has_text="Connected").wait_for(timeout=60_000)


def test_a_host_and_two_guests_through_a_hand_over_a_restart_and_a_revoke(browser: Any, kept: Path) -> None:
    server = ServerProcess(kept, env=WITH_TMUX).start()
    try:
        host = open_host(browser, server, width=1440, height=900)
        view = add_agent(host)
        shell = add_frame(host, "terminal").locator(".terminal-view")
        shell.locator(".xterm").wait_for(timeout=WAIT_MS)
        ada = join_with(browser, invite_in_panel(host, "Ada", "edit"), 1024, scheme="dark")
        bo = phone_page(browser, server.room_link, "light")
        bo.get_by_test_id("guest-name").fill("Bo")
        bo.get_by_test_id("guest-join").click()
        bo.get_by_test_id("connection-state").filter(has_text="Connected").wait_for(timeout=WAIT_MS)

        # The host hands Ada the terminal and approves her prompt; Bo asks for edit.
        shell.get_by_test_id("give-control").select_option(label="Ada")
        ada_shell = ada.locator(".react-flow__node-frame .terminal-view")
        ada_shell.get_by_text("You have control").wait_for(timeout=WAIT_MS)
        prompt(ada.get_by_test_id("agent-view"), "hello from Ada")
        asked = waiting_list(host).get_by_test_id("attention-entry").filter(has_text="Ada asks to send a prompt")
        asked.get_by_test_id("approve").click()
        view.get_by_text("hello from Ada").first.wait_for(timeout=WAIT_MS)
        bo.get_by_test_id("access-banner").get_by_test_id("ask-edit").click()
        bo.get_by_test_id("attention-band").filter(has_text="waiting for the host").wait_for(timeout=WAIT_MS)
        shot(bo, "journey-390-bo-asks")

        restart(server, host, ada, bo)
        entry = waiting_list(host).get_by_test_id("attention-entry").filter(has_text="Bo asks for edit access")
        entry.wait_for(timeout=WAIT_MS)
        shell.get_by_test_id("terminal-controller").filter(has_text="Ada has control").wait_for(timeout=WAIT_MS)
        ada_shell.get_by_text("You have control").wait_for(timeout=WAIT_MS)
        ada.get_by_test_id("arrival").filter(has_text="The host restarted canvas").wait_for(timeout=WAIT_MS)
        for page in (host, ada):
            assert page.get_by_test_id("arrival").filter(has_text="left").count() == 0, "a restart is not a leave"
        bo.get_by_test_id("attention-band").filter(has_text="waiting for the host").wait_for(timeout=WAIT_MS)
        shot(host, "journey-1440-after-restart")
        shot(ada, "journey-1024-dark-after-restart")

        # The host revokes Ada's invitation: her page ends, the terminal is the host's again.
        invite_row(host, "Ada").get_by_test_id("invite-revoke").click()
        invite_row(host, "Ada").get_by_test_id("invite-revoke-yes").click()
        ada.get_by_test_id("ended-title").filter(has_text="This invitation was withdrawn").wait_for(timeout=WAIT_MS)
        shell.get_by_test_id("terminal-controller").filter(has_text="The host has control").wait_for(timeout=WAIT_MS)
        waiting_list(host).get_by_test_id("attention-entry").filter(has_text="Bo asks for edit access").get_by_test_id(
            "approve"
        ).click()
        bo.locator('[data-testid="access-banner"][data-access="edit"]').wait_for(timeout=WAIT_MS)
        assert_plain(host, ada, bo)

        host.get_by_test_id("audit-open").click()
        record = host.get_by_test_id("audit-entry")
        for words in (
            "approved Ada's prompt to the agent",
            "fingerprint",
            "gave control of a terminal",
            "canvas",
            "started again",
            "revoked an invitation",
            "Ada's invitation was withdrawn",
            "approved Bo's request for edit access",
        ):
            record.filter(has_text=words).first.wait_for(timeout=WAIT_MS)
        shot(host, "journey-1440-record")
        for page in (host, ada, bo):
            page.context.close()
    finally:
        server.stop()
