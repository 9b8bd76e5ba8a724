"""Chromium at a phone's 390x844 against `canvas serve --host 0.0.0.0`: the printed links name this
machine's network address, and the host answers an agent's permission from the attention centre."""

from __future__ import annotations

import json
import urllib.request
from pathlib import Path
from typing import Any

import pytest

from tests.browser_pages import assert_plain, open_host, wait_waiting, waiting_list
from tests.support import ServerProcess, serve_on_every_interface
from tests.test_browser_guests import TIMEOUT_MS

pytestmark = [pytest.mark.browser, pytest.mark.timeout(240)]


def api(server: ServerProcess, path: str, body: dict[str, Any]) -> dict[str, Any]:
    request = urllib.request.Request(
        server.base_url + path,
        data=json.dumps(body).encode(),
        headers={"Authorization": f"Bearer {server.token}", "Content-Type": "application/json"},
        method="POST",
    )
    with urllib.request.urlopen(request, timeout=30) as response:
        answer: dict[str, Any] = json.loads(response.read())
        return answer


def test_on_a_phone_the_host_answers_from_the_attention_centre(browser: Any, project: Path) -> None:
    server = serve_on_every_interface(project)
    try:
        phone = open_host(browser, server, width=390, height=844)
        session = api(server, "/api/sessions", {"agent": "demo"})
        api(server, f"/api/session/{session['id']}/prompt", {"text": "/write phone.txt sent from a phone"})

        # What waits is a band over the board's bottom, opened to answer.
        entry = waiting_list(phone).get_by_test_id("attention-entry").filter(has_text="Demo agent asks your permission")
        entry.wait_for(timeout=TIMEOUT_MS)
        wait_waiting(phone, 1)
        allow = entry.get_by_role("button", name="Allow once")
        box = allow.bounding_box()
        assert box is not None and box["x"] >= 0 and box["x"] + box["width"] <= 390 and box["height"] >= 40
        assert "phone.txt" in entry.get_by_test_id("permission-preview").inner_text()
        assert_plain(phone)
        allow.click()
        wait_waiting(phone, 0)
        # The turn goes on to write the file and ends: the room list (in the phone's bottom sheet)
        # says the session is idle again.
        phone.get_by_test_id("side-toggle").click()
        phone.get_by_test_id("room-entry").filter(has_text="agent session, idle").wait_for(timeout=TIMEOUT_MS)
        assert (project / "phone.txt").read_text() == "sent from a phone"
        phone.context.close()
    finally:
        server.stop()
