"""Chromium: the File button's picker over the shared tree (a refused path is an error in the
picker, never a frame), and a file opened from the tree is its opener's until put on the board."""

from __future__ import annotations

from typing import Any

import pytest

from tests.browser_pages import WAIT_MS, frames, join_as_guest, open_host
from tests.support import ServerProcess

pytestmark = [pytest.mark.browser, pytest.mark.timeout(180)]


def test_the_picker_refuses_a_path_in_place_and_opens_a_shared_file(browser: Any, server: ServerProcess) -> None:
    (server.root / "src").mkdir()
    (server.root / "src" / "app.py").write_text("def main():\n    return 1\n")
    page = open_host(browser, server)
    try:
        page.get_by_test_id("board-add-file").click()
        picker = page.get_by_test_id("file-picker")
        field = picker.get_by_label("File path")
        field.fill("../etc/passwd")
        field.press("Enter")
        error = picker.get_by_role("alert")
        error.filter(has_text="No shared file matches").wait_for(timeout=WAIT_MS)
        assert field.get_attribute("aria-invalid") == "true"
        assert frames(page).count() == 0

        field.fill("app")
        picker.locator('[data-path="src/app.py"]').wait_for(timeout=WAIT_MS)
        assert error.count() == 0
        field.press("Enter")
        picker.wait_for(state="detached", timeout=WAIT_MS)
        page.get_by_test_id("file-src/app.py").filter(has_text="return 1").wait_for(timeout=WAIT_MS)
        assert frames(page).count() == 1
        # The same file again shows the frame that is there rather than a second one.
        page.get_by_test_id("board-add-file").click()
        page.get_by_test_id("file-picker").locator('[data-path="src/app.py"]').click()
        assert frames(page).count() == 1
    finally:
        page.context.close()


def test_a_file_opened_from_the_tree_is_the_openers_until_put_on_the_board(browser: Any, server: ServerProcess) -> None:
    (server.root / "notes.md").write_text("# private reading\n")
    host = open_host(browser, server)
    guest = join_as_guest(browser, server, "Ada")
    try:
        host.locator('[data-testid="guest"][data-name="Ada"] [data-testid="guest-access"]').select_option("edit")
        guest.get_by_test_id("file-tree").wait_for(timeout=WAIT_MS)

        host.locator('[data-testid="file-tree"] [data-path="notes.md"]').click()
        card = host.get_by_test_id("file-card").filter(has_text="notes.md")
        card.filter(has_text="private reading").wait_for(timeout=WAIT_MS)
        # The guest's page hears about it (the server sends the file to whoever is watching)
        # but shows nothing of it: the host opened it for themselves.
        guest.locator('[data-testid="file-tree"] [data-path="notes.md"]').wait_for(timeout=WAIT_MS)
        assert guest.get_by_test_id("file-card").count() == 0
        assert guest.get_by_test_id("file-notes.md").count() == 0

        card.get_by_test_id("file-to-board").click()
        guest.get_by_test_id("file-notes.md").filter(has_text="private reading").wait_for(timeout=WAIT_MS)
        assert guest.get_by_test_id("file-card").count() == 0
    finally:
        guest.context.close()
        host.context.close()
