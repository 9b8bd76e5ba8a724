"""Chromium: guests as people. The host invites one person from the people panel, a view guest asks for
edit from where it needs it, arrivals show at every width, and a revoked invitation ends its page at once
and its link within seconds. Screenshots of each screen go to CANVAS_SHOTS when it is set."""

from __future__ import annotations

import json
import os
import time
import urllib.request
from pathlib import Path
from typing import Any

import pytest

from tests.browser_pages import add_agent, open_host, open_thread_sheet, prompt, waiting_list
from tests.support import ServerProcess

pytestmark = pytest.mark.browser

WAIT_MS = 20_000
SHOTS = os.environ.get("CANVAS_SHOTS")


def shot(page: Any, name: str) -> None:
    if SHOTS:
        Path(SHOTS).mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(Path(SHOTS) / f"{name}.png"))


def api_invite(server: ServerProcess, name: str, access: str) -> dict[str, Any]:
    request = urllib.request.Request(
        server.base_url + "/api/invites",
        data=json.dumps({"name": name, "access": access}).encode(),
        headers={"Authorization": f"Bearer {server.token}", "Content-Type": "application/json"},
        method="POST",
    )
    with urllib.request.urlopen(request, timeout=10) as response:
        return dict(json.loads(response.read()))


def join_with(browser: Any, link: str, width: int, scheme: str = "light", name: str | None = None) -> Any:
    context = browser.new_context(viewport={"width": width, "height": 800}, color_scheme=scheme)
    page = context.new_page()
    page.goto(link)
    field = page.get_by_test_id("guest-name")
    if name is None:
        page.wait_for_function(
            "() => (document.querySelector('[data-testid=guest-name]')?.value ?? '') !== ''", timeout=WAIT_MS
        )
    else:
        # Once the page knows whom the link is for: a name it puts in while Playwright fills the
        # field would land beside the one filled.
        page.get_by_test_id("join-title").filter(has_not_text="Join this canvas").wait_for(timeout=WAIT_MS)
        field.fill(name)
    page.get_by_test_id("guest-join").click()
    page.get_by_test_id("connection-state").filter(has_text="Connected").wait_for(timeout=WAIT_MS)
    # The board's opening view moves what is on it once the board is whole: a click aimed before
    # that lands where the item was.
    page.locator('[data-testid="board"][data-view="chosen"]').wait_for(timeout=WAIT_MS)
    return page


def open_room_panel(page: Any) -> None:
    toggle = page.get_by_test_id("side-toggle")
    if toggle.is_visible() and toggle.get_attribute("aria-expanded") == "false":
        toggle.click()


def test_invite_ask_arrive_and_revoke(browser: Any, server: ServerProcess) -> None:
    host = open_host(browser, server, width=1440)
    host.get_by_test_id("invite-name").fill("Ada")
    host.get_by_test_id("invite-access").select_option("edit")
    host.get_by_test_id("invite-create").click()
    link = host.get_by_test_id("invite-link").input_value(timeout=WAIT_MS)
    assert "#room=" in link and link != server.room_link

    ada = join_with(browser, link, 390)
    assert ada.get_by_test_id("guest-name").count() == 0
    ada.locator('[data-testid="access-banner"][data-access="edit"]').wait_for(timeout=WAIT_MS)
    host.get_by_test_id("arrival").filter(has_text="Ada joined").wait_for(timeout=WAIT_MS)

    bo = join_with(browser, api_invite(server, "Bo", "view")["link"], 1024, scheme="dark")
    bo.locator('[data-testid="access-banner"][data-access="view"]').wait_for(timeout=WAIT_MS)
    ada.get_by_test_id("arrival").filter(has_text="Bo joined").wait_for(timeout=WAIT_MS)
    ada.get_by_test_id("people-count").filter(has_text="3").wait_for(timeout=WAIT_MS)
    shot(ada, "guest-390-arrival")
    shot(host, "host-1440-invites")

    bo.get_by_test_id("ask-edit").click()
    bo.get_by_test_id("ask-edit").filter(has_text="Asked the host").wait_for(timeout=WAIT_MS)
    shot(bo, "guest-1024-dark-asked")
    approval = waiting_list(host).get_by_test_id("attention-entry").filter(has_text="Bo asks for edit access")
    approval.get_by_test_id("approve").click()
    bo.locator('[data-testid="access-banner"][data-access="edit"]').wait_for(timeout=WAIT_MS)

    host.locator('[data-testid="invite"][data-name="Ada"] [data-testid="invite-revoke"]').click()
    shot(host, "host-1440-revoke-confirm")
    started = time.monotonic()
    host.locator('[data-testid="invite"][data-name="Ada"] [data-testid="invite-revoke-yes"]').click()
    ada.get_by_test_id("ended-title").filter(has_text="This invitation was withdrawn").wait_for(timeout=2_000)
    assert time.monotonic() - started < 2.5
    shot(ada, "guest-390-withdrawn")

    again = browser.new_context(viewport={"width": 390, "height": 800}).new_page()
    started = time.monotonic()
    again.goto(link)
    again.get_by_test_id("join-refused").filter(has_text="withdrawn").wait_for(timeout=5_000)
    assert time.monotonic() - started < 5.0
    assert again.get_by_test_id("guest-join").count() == 0
    shot(again, "guest-390-link-withdrawn")
    assert bo.get_by_test_id("connection-state").inner_text() == "Connected", "another invite's guest is untouched"

    host.get_by_test_id("audit-open").click()
    host.get_by_test_id("audit-entry").filter(has_text="revoked an invitation").wait_for(timeout=WAIT_MS)
    shot(host, "host-1440-audit")
    for page in (host, ada, bo, again):
        page.context.close()


@pytest.mark.parametrize(("width", "scheme"), [(390, "light"), (1024, "dark"), (1440, "dark"), (1024, "light")])
def test_the_host_sees_arrivals_and_its_people_tools_at_every_width(
    browser: Any, server: ServerProcess, width: int, scheme: str
) -> None:
    host = open_host(browser, server, width=width, scheme=scheme)
    guest = join_with(browser, server.room_link, 390, name=f"Cy{width}")
    host.get_by_test_id("arrival").filter(has_text=f"Cy{width} joined").wait_for(timeout=WAIT_MS)
    assert host.get_by_test_id("arrival").is_visible()
    shot(host, f"host-{width}-{scheme}-arrival")
    open_room_panel(host)
    host.get_by_test_id("invites").scroll_into_view_if_needed()
    shot(host, f"host-{width}-{scheme}-people")
    kick = host.locator(f'[data-testid="guest"][data-name="Cy{width}"] [data-testid="kick"]')
    kick.scroll_into_view_if_needed()
    kick.click()
    host.get_by_test_id("kick-confirm").wait_for(timeout=WAIT_MS)
    shot(host, f"host-{width}-{scheme}-confirm")
    for page in (host, guest):
        page.context.close()


@pytest.mark.parametrize(("width", "scheme"), [(390, "dark"), (1024, "light")])
def test_a_view_guest_asks_from_the_closed_prompt_box_and_it_opens(
    browser: Any, server: ServerProcess, width: int, scheme: str
) -> None:
    host = open_host(browser, server, width=1440, scheme=scheme)
    add_agent(host)
    vi = join_with(browser, api_invite(server, "Vi", "view")["link"], width, scheme=scheme, name="Vi")
    where = vi
    if width < 600:
        # A phone shows the frame wider than the screen: its reader opens the thread, and asks there.
        where = open_thread_sheet(vi)
    closed = where.get_by_test_id("agent-view").get_by_test_id("agent-composer-off")
    closed.get_by_test_id("ask-edit").click()
    closed.get_by_test_id("ask-edit").filter(has_text="Asked the host").wait_for(timeout=WAIT_MS)
    shot(vi, f"ask-from-prompt-{width}-{scheme}")
    waiting_list(host).get_by_test_id("attention-entry").filter(has_text="Vi asks for edit access").get_by_test_id(
        "approve"
    ).click()
    box = where.get_by_test_id("agent-view").get_by_test_id("agent-input")
    box.wait_for(timeout=WAIT_MS)
    assert closed.count() == 0, "the prompt box is open where the guest asked"
    prompt(where.get_by_test_id("agent-view"), "now I may ask")
    waiting_list(host).get_by_test_id("attention-entry").filter(has_text="Vi asks to send a prompt").wait_for(
        timeout=WAIT_MS
    )
    shot(vi, f"asked-and-opened-{width}-{scheme}")
    for page in (host, vi):
        page.context.close()
