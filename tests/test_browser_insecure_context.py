"""A room link on a LAN address over plain http (`canvas serve --host ADDRESS --lan-only`) opens a
page that is not a secure context, where Chromium has no `crypto.subtle`: the guest still joins,
through the pure-JS fallback (adr/0032), and sees the host's board."""

from __future__ import annotations

import contextlib
import os
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import pytest

from canvasrelay.server.http.lan import interface_addresses
from tests.browser_pages import WAIT_MS, join_as_guest, open_host
from tests.support import ServerProcess, require

pytestmark = [pytest.mark.browser, pytest.mark.timeout(180)]

CONTEXT = "() => [isSecureContext, typeof crypto.subtle]"
KEPT_KEY = """() => new Promise((resolve, reject) => {
  const opened = indexedDB.open('canvas-guest');
  opened.onerror = () => reject(opened.error);
  opened.onsuccess = () => {
    const read = opened.result.transaction('identity').objectStore('identity').get('self');
    read.onsuccess = () => resolve(read.result instanceof Uint8Array ? Array.from(read.result) : String(read.result));
  };
})"""
"""What IndexedDB keeps of the page's identity: the secret's bytes, outside a secure context."""
FALLBACK_LOADED = "() => performance.getEntriesByType('resource').some((entry) => /cryptoFallback-/.test(entry.name))"


@contextlib.contextmanager
def lan_address() -> Iterator[str]:
    """One of this machine's network addresses; on a machine with loopback alone, one made for the
    test (as root) on a veth pair of its own, removed afterwards. A veth, not a dummy interface:
    a kernel built without the dummy module still has veth, which network namespaces need."""
    ours = interface_addresses()
    if ours:
        yield ours[0]
        return
    require("ip", "iproute2")
    if os.geteuid() != 0:
        pytest.skip("this machine has no network address but loopback, and making one needs root")
    # Named for this process, so tests running side by side each make their own.
    tag = os.getpid() % 100_000
    name, peer, address = f"cvlan{tag}", f"cvpeer{tag}", f"198.51.100.{tag % 250 + 2}"
    subprocess.run(["ip", "link", "add", name, "type", "veth", "peer", "name", peer], check=True)
    try:
        subprocess.run(["ip", "address", "add", f"{address}/32", "dev", name], check=True)
        for end in (name, peer):
            subprocess.run(["ip", "link", "set", end, "up"], check=True)
        yield address
    finally:
        # Deleting one end of the pair deletes both.
        subprocess.run(["ip", "link", "delete", name], check=True)


def test_a_guest_joins_over_plain_http_on_a_lan_address(browser: Any, project: Path) -> None:
    with lan_address() as address:
        server = ServerProcess(project).start("--host", address, "--lan-only")
        try:
            assert urlsplit(server.room_link).scheme == "http" and urlsplit(server.room_link).hostname == address
            host = open_host(browser, server)
            host.get_by_role("button", name="Sticky note").click()
            board = host.get_by_test_id("board").bounding_box()
            host.mouse.click(board["x"] + 300, board["y"] + 300)
            editor = host.get_by_test_id("board-text-editor")
            editor.wait_for(timeout=WAIT_MS)
            editor.press_sequentially("drawn before Ada came", delay=10)
            host.get_by_test_id("board-note").filter(has_text="drawn before Ada came").wait_for(timeout=WAIT_MS)

            guest = join_as_guest(browser, server, "Ada")
            # The page could not have used WebCrypto: it had none, and it fetched the fallback.
            assert guest.evaluate(CONTEXT) == [False, "undefined"]
            assert guest.evaluate(FALLBACK_LOADED)
            guest.get_by_test_id("board-note").filter(has_text="drawn before Ada came").wait_for(timeout=WAIT_MS)
            host.locator('[data-testid="guest"][data-name="Ada"]').wait_for(timeout=WAIT_MS)

            # The identity outlives a reload: the same secret is read back and joins again.
            kept = guest.evaluate(KEPT_KEY)
            assert isinstance(kept, list) and len(kept) == 32
            guest.reload()
            guest.get_by_test_id("guest-join").click()
            guest.get_by_test_id("connection-state").filter(has_text="Connected").wait_for(timeout=WAIT_MS)
            assert guest.evaluate(KEPT_KEY) == kept
        finally:
            server.stop()
