"""A web page from another origin, open in the host's own browser, cannot open `/signal` sockets
to the host's canvas; the room's own guest page can."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest

from canvasrelay.client.guest import RoomLink
from canvasrelay.protocol import signal_crypto
from tests.support import ServerProcess

pytestmark = pytest.mark.browser

TRY_SOCKET = """async (url) => await new Promise((resolve) => {
  const ws = new WebSocket(url);
  ws.onopen = () => { ws.close(); resolve("opened"); };
  ws.onerror = () => resolve("refused");
})"""


class _Page(BaseHTTPRequestHandler):
    def do_GET(self) -> None:
        body = b"<!doctype html><title>another site</title><p>another site"
        self.send_response(200)
        self.send_header("Content-Type", "text/html")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *_args: Any) -> None:
        pass


@pytest.fixture
def another_site() -> Iterator[str]:
    site = ThreadingHTTPServer(("127.0.0.1", 0), _Page)
    thread = threading.Thread(target=site.serve_forever, daemon=True)
    thread.start()
    yield f"http://localhost:{site.server_address[1]}/"
    site.shutdown()
    site.server_close()


def test_a_page_from_another_origin_cannot_open_a_signal_socket(
    browser: Any, server: ServerProcess, another_site: str
) -> None:
    link = RoomLink.parse(server.room_link)
    url = f"{link.signal}?topic={signal_crypto.topic(link.key)}"
    page = browser.new_page()
    page.goto(another_site)
    assert page.evaluate(TRY_SOCKET, url) == "refused"
    page.goto(server.base_url + "/")
    assert page.evaluate(TRY_SOCKET, url) == "opened"
    page.close()
