"""Chromium: what the host did to a person stays done on every page. A revoked guest who opens the
room's open link in the same browser joins with the access its page says, the room's default; the
requests of a guest who left by revoke or removal end on every open host page at once, with the
reason, and the invitations there change with them; after a restart the page that stayed open
names who asks. Host and guests each in a browser context of their own."""

from __future__ import annotations

import signal
from typing import Any

import pytest

from tests.browser_pages import WAIT_MS, add_agent, open_host, prompt, wait_waiting, waiting_list
from tests.support import ServerProcess
from tests.test_browser_invites import api_invite, join_with, open_room_panel, shot

pytestmark = [pytest.mark.browser, pytest.mark.timeout(240)]


def invite_in_panel(host: Any, name: str, access: str) -> str:
    """The link of a new invitation made in the host's people panel."""
    open_room_panel(host)
    host.get_by_test_id("invite-name").fill(name)
    host.get_by_test_id("invite-access").select_option(access)
    host.get_by_test_id("invite-create").click()
    return str(host.get_by_test_id("invite-link").input_value(timeout=WAIT_MS))


def invite_row(host: Any, name: str) -> Any:
    return host.locator(f'[data-testid="invite"][data-name="{name}"]')


@pytest.mark.parametrize(("width", "scheme"), [(390, "dark"), (1024, "light")])
def test_the_join_page_says_the_access_its_person_keeps_and_that_a_removed_one_is_out(
    browser: Any, server: ServerProcess, width: int, scheme: str
) -> None:
    host = open_host(browser, server, width=1440)
    ada = join_with(browser, invite_in_panel(host, "Ada", "edit"), width, scheme)
    ada.locator('[data-testid="access-banner"][data-access="edit"]').wait_for(timeout=WAIT_MS)

    # The invitation stands: through the open link (whose default is view) the same key keeps edit,
    # and the page says so before she joins.
    again = ada.context.new_page()
    again.goto(server.room_link)
    again.get_by_test_id("join-about").filter(has_text="You will join with edit access").wait_for(timeout=WAIT_MS)
    shot(again, f"join-page-own-access-{width}-{scheme}")
    again.close()

    host.locator('[data-testid="guest"][data-name="Ada"] [data-testid="kick"]').click()
    host.locator('[data-testid="guest"][data-name="Ada"] [data-testid="kick-yes"]').click()
    out = ada.context.new_page()
    out.goto(server.room_link)
    out.get_by_test_id("join-refused").filter(has_text="The host removed you from this room").wait_for(timeout=WAIT_MS)
    assert out.get_by_test_id("guest-join").count() == 0, "a Join button the room would refuse"
    shot(out, f"join-page-removed-{width}-{scheme}")
    for page in (host, ada):
        page.context.close()


def test_a_revoked_guest_through_the_open_link_gets_the_access_its_join_page_said(
    browser: Any, server: ServerProcess
) -> None:
    host = open_host(browser, server, width=1440)
    ada = join_with(browser, invite_in_panel(host, "Ada", "edit"), 1024)
    ada.locator('[data-testid="access-banner"][data-access="edit"]').wait_for(timeout=WAIT_MS)

    invite_row(host, "Ada").get_by_test_id("invite-revoke").click()
    invite_row(host, "Ada").get_by_test_id("invite-revoke-yes").click()
    ada.get_by_test_id("ended-title").filter(has_text="This invitation was withdrawn").wait_for(timeout=WAIT_MS)

    # The same browser, so the same key: the same person, through the room's open link.
    again = ada.context.new_page()
    again.goto(server.room_link)
    about = again.get_by_test_id("join-about")
    about.filter(has_text="You will join with view access").wait_for(timeout=WAIT_MS)
    again.wait_for_function("document.querySelector('[data-testid=guest-name]')?.value === 'Ada'", timeout=WAIT_MS)
    again.get_by_test_id("guest-join").click()
    again.get_by_test_id("connection-state").filter(has_text="Connected").wait_for(timeout=WAIT_MS)
    again.locator('[data-testid="access-banner"][data-access="view"]').wait_for(timeout=WAIT_MS)
    host.locator('[data-testid="guest"][data-name="Ada"][data-access="view"]').wait_for(timeout=WAIT_MS)
    shot(again, "revoked-guest-back-through-open-link-1024")
    invite_row(host, "Ada").filter(has_text="revoked").wait_for(timeout=WAIT_MS)

    # The host undoes the revocation: the invitation's link gives its access again.
    invite_row(host, "Ada").get_by_test_id("invite-restore").click()
    invite_row(host, "Ada").filter(has_text="its link works").wait_for(timeout=WAIT_MS)
    for page in (host, ada):
        page.context.close()


def test_requests_of_a_guest_who_was_revoked_or_removed_end_on_every_open_host_page(
    browser: Any, server: ServerProcess
) -> None:
    host = open_host(browser, server, width=1440)
    other = open_host(browser, server, width=1024, scheme="dark")
    add_agent(host)
    ada = join_with(browser, invite_in_panel(host, "Ada", "edit"), 390)
    bo = join_with(browser, api_invite(server, "Bo", "view")["link"], 1024, name="Bo")
    prompt(ada.get_by_test_id("agent-view"), "please run the tests")
    bo.get_by_test_id("access-banner").get_by_test_id("ask-edit").click()
    for page in (host, other):
        wait_waiting(page, 2)

    invite_row(host, "Ada").get_by_test_id("invite-revoke").click()
    invite_row(host, "Ada").get_by_test_id("invite-revoke-yes").click()
    for page in (host, other):
        wait_waiting(page, 1)
        page.get_by_test_id("notices").filter(
            has_text="Ada's prompt to the agent no longer waits: Ada's invitation was withdrawn."
        ).wait_for(timeout=WAIT_MS)
    open_room_panel(other)
    invite_row(other, "Ada").filter(has_text="revoked").wait_for(timeout=WAIT_MS)

    open_room_panel(host)
    bo_row = host.locator('[data-testid="guest"][data-name="Bo"]')
    bo_row.get_by_test_id("kick").click()
    bo_row.get_by_test_id("kick-yes").click()
    for page in (host, other):
        wait_waiting(page, 0)
        notice = page.get_by_test_id("notices").filter(has_text="no longer waits: the host removed Bo.")
        notice.wait_for(timeout=WAIT_MS)
    invite_row(other, "Bo").filter(has_text="revoked").wait_for(timeout=WAIT_MS)
    removed = other.locator('[data-testid="removed-guest"][data-name="Bo"]')
    removed.wait_for(timeout=WAIT_MS)
    shot(other, "host-1024-dark-removed-and-revoked")

    # Undoing the removal lets Bo in again, through the invitation the removal revoked.
    removed.get_by_test_id("unblock").click()
    removed.wait_for(state="detached", timeout=WAIT_MS)
    invite_row(other, "Bo").filter(has_text="its link works").wait_for(timeout=WAIT_MS)
    for page in (host, other, ada, bo):
        page.context.close()


@pytest.mark.serve_subprocess
def test_after_a_restart_the_open_host_page_names_who_asks(browser: Any, server: ServerProcess) -> None:
    host = open_host(browser, server, width=1024)
    cy = join_with(browser, server.room_link, 390, name="Cy")
    cy.get_by_test_id("ask-edit").click()
    wait_waiting(host, 1)

    assert server.proc is not None
    port = server.base_url.rsplit(":", 1)[1]
    server.proc.send_signal(signal.SIGTERM)
    server.proc.wait(timeout=30)
    host.get_by_test_id("connection-state").filter(has_text="reconnecting").wait_for(timeout=WAIT_MS)
    server.start("--port", port)
    host.get_by_test_id("connection-state").filter(has_text="Connected").wait_for(timeout=30_000)

    entry = waiting_list(host).get_by_test_id("attention-entry")
    entry.filter(has_text="Cy asks for edit access").wait_for(timeout=WAIT_MS)
    assert entry.get_by_role("button", name="Trust Cy").count() == 1
    shot(host, "host-1024-after-restart-named")
    for page in (host, cy):
        page.context.close()
