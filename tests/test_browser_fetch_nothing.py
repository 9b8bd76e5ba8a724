"""Chromium, host and guest pages, the real demo agent: what an agent or a guest writes, and a
hostile board, reach every page in the room and none of them fetches anything from anywhere but
canvas. The payloads point at a listener of the test's own on another loopback port, which must
hear nothing; every page carries the policy that would stop a miss, and says nothing it stopped.
An SVG export of the hostile board holds no script, no event attribute and no address elsewhere."""

from __future__ import annotations

import re
import threading
import xml.etree.ElementTree as ET
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest
from pycrdt import Array, Doc, Map, Text

from canvasrelay.server.board.log import BOARD_LOG, write_log
from canvasrelay.server.store import open_store
from tests.agent_support import config
from tests.browser_pages import assert_plain, prompt, waiting_list
from tests.services import SignalInstance
from tests.support import ServerProcess, ServerThread
from tests.test_browser_guests import TIMEOUT_MS, host_with_an_agent_and_an_edit_guest

pytestmark = [pytest.mark.browser, pytest.mark.timeout(240)]

RULES = """
[[permissions]]
permission = "execute"
pattern = "*"
action = "allow"
"""
WATCH = """
window.__violations = [];
document.addEventListener('securitypolicyviolation', (e) =>
  window.__violations.push(`${e.effectiveDirective} ${e.blockedURI}`));
"""
"""Every load a page's policy stopped: a sanitiser's miss shows here even though nothing left."""
LOADS_STOPPED = """() => window.__violations.filter((v) => !v.startsWith('style-src-attr '))"""
"""The stopped loads. Not style attributes: the sanitiser's parser (an inert document, which keeps
the page's policy) reports each one it meets before dropping it; whether one survived, FETCHERS says."""
FETCHERS = """leak => {
  const loading = ['src', 'srcset', 'href', 'xlink:href', 'poster', 'data', 'action', 'formaction', 'background',
    'ping', 'style', 'lowsrc', 'longdesc', 'manifest', 'codebase', 'archive'];
  const found = [];
  for (const element of document.querySelectorAll('*')) {
    for (const { name, value } of element.attributes) {
      const link = element.tagName === 'A' && name === 'href';
      if (loading.includes(name) && value.includes(leak) && !link) found.push(`${element.tagName} ${name}=${value}`);
    }
    for (const property of ['backgroundImage', 'borderImageSource', 'listStyleImage', 'content']) {
      const value = getComputedStyle(element)[property];
      if (value.includes(leak)) found.push(`${element.tagName} ${property}: ${value}`);
    }
  }
  for (const entry of performance.getEntriesByType('resource')) if (entry.name.includes(leak)) found.push(entry.name);
  return found;
}"""
"""What in the page would fetch from `leak`, or did: an attribute that loads (a link's address
aside; words such as an aria-label may say anything), a style, a load."""
SETTLED = "() => new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(done)))"
"""Two frames on: whatever the page drew has been styled and laid out, so its loads have started."""
SVG_TAGS = {"svg", "rect", "text", "tspan", "path", "ellipse", "image"}


class Listener:
    """An HTTP server on another loopback port that counts what reaches it: a leak's destination."""

    def __init__(self) -> None:
        self.heard: list[str] = []
        heard = self.heard

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                heard.append(self.path)
                self.send_response(204)
                self.end_headers()

            do_POST = do_GET

            def log_message(self, *_args: Any) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    @property
    def origin(self) -> str:
        return f"127.0.0.1:{self.server.server_address[1]}"

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture
def listener() -> Iterator[Listener]:
    running = Listener()
    yield running
    running.close()


def hostile_board(root: Path, leak: str) -> None:
    """The project's stored board as a version before typed values could have left it: each item's
    colours, picture and words written to fetch from `leak` or to break out of an exported attribute."""
    doc: Doc = Doc()
    items = doc.get("items", type=Map)
    place = {"y": 40.0, "w": 160.0, "h": 120.0, "z": 1.0}
    break_out = '"/><script>alert(1)</script><x y="'
    items["s"] = Map(
        {**place, "kind": "shape", "x": 0.0, "shape": "rect", "color": break_out, "fill": f"url({leak}/shape-fill)"}
    )
    items["n"] = Map(
        {
            **place,
            "kind": "note",
            "x": 200.0,
            "color": f"url({leak}/note-colour)",
            "text": Text(f'<img src="{leak}/note">'),
        }
    )
    items["i"] = Map({**place, "kind": "image", "x": 400.0, "src": f"{leak}/image-src", "alt": break_out})
    items["v"] = Map(
        {**place, "kind": "image", "x": 600.0, "src": "data:image/svg+xml;base64,PHN2Zz48L3N2Zz4=", "alt": "svg"}
    )
    items["d"] = Map(
        {
            **place,
            "kind": "stroke",
            "x": 0.0,
            "y": 200.0,
            "color": f"url({leak}/stroke)",
            "points": Array([0.0, 0.0, 50.0, 40.0]),
        }
    )
    items["a"] = Map(
        {"kind": "arrow", "from": "s", "to": "n", "x": 0.0, "y": 0.0, "w": 1.0, "h": 1.0, "z": 2.0, "label": break_out}
    )
    items["f"] = Map(
        {
            **place,
            "kind": "frame",
            "x": 200.0,
            "y": 200.0,
            "title": f'<img src="{leak}/frame">',
            "color": "javascript:x",
        }
    )
    (root / ".canvas").mkdir(mode=0o700, exist_ok=True)
    open_store(root / ".canvas").close()
    write_log(root / ".canvas" / BOARD_LOG, [doc.get_update()])


@pytest.fixture
def project(tmp_path: Path, listener: Listener) -> Path:
    root = tmp_path / "project"
    root.mkdir()
    config(root, RULES)
    hostile_board(root, f"http://{listener.origin}")
    return root


def watched(page: Any, base_url: str, elsewhere: list[str]) -> Any:
    """Records, for the rest of the test, every request the page's context makes anywhere but canvas."""
    page.context.add_init_script(WATCH)
    page.context.on(
        "request",
        lambda request: None if request.url.startswith((base_url, "data:", "blob:")) else elsewhere.append(request.url),
    )
    page.evaluate(WATCH)
    return page


def approve_all(host: Any, count: int) -> None:
    for _ in range(count):
        approval = waiting_list(host).locator('[data-testid="approval"][data-what="agent-prompt"]').first
        approval.wait_for(timeout=TIMEOUT_MS)
        approval.get_by_test_id("approve").click()


def test_what_agents_guests_and_the_board_hold_fetches_nothing_on_any_page(
    browser: Any, server: ServerProcess, listener: Listener
) -> None:
    leak = f"http://{listener.origin}"
    host, guest = host_with_an_agent_and_an_edit_guest(browser, server, "Ada")
    elsewhere: list[str] = []
    pages = [watched(page, server.base_url, elsewhere) for page in (host, guest)]

    payloads = [
        f"![the chart]({leak}/markdown-image)",
        f'<p style="background:url({leak}/inline-style)">styled</p>',
        f'<video poster="{leak}/video-poster" src="{leak}/video-src"></video>',
        f'<audio src="{leak}/audio" autoplay></audio>',
        f'<img srcset="{leak}/srcset 2x" alt="a set">',
        f'<input type="image" src="{leak}/input-image" alt="go">',
        f'<picture><source srcset="{leak}/picture-source"><img src="{leak}/picture" alt="p"></picture>',
        f'<link rel="stylesheet" href="{leak}/link"><style>@import url({leak}/import);</style>',
        f'<object data="{leak}/object"></object><embed src="{leak}/embed"><iframe src="{leak}/iframe"></iframe>',
        f'<form action="{leak}/form"><button formaction="{leak}/formaction">go</button></form>',
    ]
    # A guest asks it, the host approves, the agent says it back: every page draws the agent's reply.
    prompt(guest, "\n\n".join(payloads))
    approve_all(host, 1)
    prompt(host, f"/link {leak}/resource-uri ![named]({leak}/resource-name)")
    prompt(host, f"/plan ![planned]({leak}/plan-image)")
    # A tool's output: the command says it without < and > (which a rule never lets run unasked).
    prompt(host, f"/run printf '\\x3cimg src=\"{leak}/tool-output\"\\x3e\\n'")

    for page in pages:
        page.get_by_test_id("board-zoom-fit").click()
        view = page.get_by_test_id("agent-view")
        view.get_by_test_id("agent-message").filter(has_text="Planned.").wait_for(timeout=TIMEOUT_MS)
        view.get_by_test_id("tool-output").filter(has_text=f'<img src="{leak}/tool-output">').wait_for(
            timeout=TIMEOUT_MS
        )
        link = view.get_by_role("link", name=f"Image “the chart” from {listener.origin} (not loaded)")
        link.wait_for(timeout=TIMEOUT_MS)
        assert link.get_attribute("href") == f"{leak}/markdown-image"
        cited = view.get_by_role("link", name=f"![named]({leak}/resource-name)")
        assert cited.get_attribute("href") == f"{leak}/resource-uri", "a resource link's name reads as words"
        view.get_by_test_id("agent-plan").filter(has_text=f"![planned]({leak}/plan-image)").wait_for(timeout=TIMEOUT_MS)
        page.get_by_test_id("board-note").filter(has_text=f'<img src="{leak}/note">').wait_for(timeout=TIMEOUT_MS)
        page.evaluate(SETTLED)

    for page in pages:
        assert page.evaluate(FETCHERS, listener.origin) == []
        assert page.evaluate(LOADS_STOPPED) == [], "a page tried to load what its policy stopped"
    assert_plain(*pages)
    assert elsewhere == [] and listener.heard == []

    # The export of the whole hostile board is the board's own drawing, and nothing else: what the
    # items and the agent's frame say is there as words, in no attribute.
    host.get_by_test_id("board-shape").first.click()
    host.keyboard.press("Control+a")
    host.get_by_test_id("board-export").first.click()
    with host.expect_download() as download:
        host.get_by_test_id("board-export-svg").click()
    svg = Path(download.value.path()).read_text(encoding="utf-8")
    tree = ET.fromstring(svg)
    assert {element.tag.split("}")[-1] for element in tree.iter()} <= SVG_TAGS
    attributes = [f"{element.tag} {name}={value}" for element in tree.iter() for name, value in element.attrib.items()]
    outside = re.compile(r"url\(|javascript:|data:image/svg|" + re.escape(listener.origin), re.IGNORECASE)
    assert [entry for entry in attributes if outside.search(entry) or entry.split()[1].lower().startswith("on")] == []
    assert "<script" not in svg.lower()
    words = "".join(tree.itertext())
    assert '"/><script>alert(1)</script><x y="' in words and f"{leak}/markdown-image" in words, "the words stay words"
    host.get_by_test_id("board-export").first.click()
    with host.expect_download() as download:
        host.get_by_test_id("board-export-png").click()
    assert Path(download.value.path()).read_bytes().startswith(b"\x89PNG")
    assert host.evaluate(LOADS_STOPPED) == [] and listener.heard == []
    for page in pages:
        page.context.close()


def test_the_policy_stops_what_a_page_would_load_or_reach(
    browser: Any, server: ServerProcess, listener: Listener
) -> None:
    leak = f"http://{listener.origin}"
    page = browser.new_context().new_page()
    page.context.add_init_script(WATCH)
    response = page.goto(server.host_link)
    policy = response.headers["content-security-policy"]
    assert (
        "script-src 'self';" in policy
        and "frame-ancestors 'none'" in policy
        and response.headers["referrer-policy"] == "no-referrer"
    )
    page.get_by_test_id("connection-state").filter(has_text="Connected").wait_for(timeout=TIMEOUT_MS)
    page.evaluate(
        """leak => {
          const markup = `<img src="${leak}/img"><div style="background:url(${leak}/attr)">x</div>`;
          document.body.insertAdjacentHTML('beforeend', markup);
          const styled = document.createElement('div');
          styled.style.backgroundImage = `url(${leak}/cssom)`;
          document.body.append(styled);
          fetch(`${leak}/fetch`).catch(() => {});
          new WebSocket(`ws://${leak.slice(7)}/socket`).onerror = () => {};
        }""",
        leak,
    )
    stopped = {
        f"img-src {leak}/img",
        f"img-src {leak}/cssom",
        "style-src-attr inline",
        f"connect-src {leak}/fetch",
        f"connect-src ws://{listener.origin}/socket",
    }
    # Each policy the page holds (the server's, the page's own) reports what it stopped.
    page.wait_for_function("n => new Set(window.__violations).size >= n", arg=len(stopped), timeout=TIMEOUT_MS)
    assert set(page.evaluate("window.__violations")) == stopped
    assert listener.heard == []
    page.context.close()


def test_a_guest_page_on_a_rendezvous_reaches_only_its_links_servers(
    browser: Any, project: Path, listener: Listener
) -> None:
    signal = SignalInstance().start()
    served = ServerProcess(project).start("--signal", signal.url, "--base-url", signal.http)
    try:
        page = browser.new_context().new_page()
        page.context.add_init_script(WATCH)
        response = page.goto(served.room_link)
        # The rendezvous's page may reach any rendezvous (this one, without TLS, any over plain HTTP
        # too); the page itself allows only its link's.
        assert response.headers["content-security-policy"].endswith("https: wss: http: ws:")
        page.get_by_test_id("guest-name").fill("Paige")
        page.get_by_test_id("guest-join").click()
        page.get_by_test_id("connection-state").filter(has_text="Connected").wait_for(timeout=TIMEOUT_MS)
        page.evaluate("leak => fetch(`http://${leak}/fetch`).catch(() => {})", listener.origin)
        page.wait_for_function("() => window.__violations.length >= 1", timeout=TIMEOUT_MS)
        assert page.evaluate("window.__violations") == [f"connect-src http://{listener.origin}/fetch"], (
            "the page's own policy"
        )
        assert listener.heard == []
        page.context.close()
    finally:
        served.stop()
        signal.stop()


def test_the_api_docs_run_under_a_policy_of_their_own(browser: Any, project: Path) -> None:
    served = ServerThread(project).start()
    try:
        page = browser.new_context().new_page()
        page.context.add_init_script(WATCH)
        response = page.goto(served.base_url + "/api/docs")
        assert "script-src 'sha256-" in response.headers["content-security-policy"]
        page.locator("#ops details").first.wait_for(timeout=TIMEOUT_MS)
        assert page.evaluate("window.__violations") == []
        page.context.close()
    finally:
        served.stop()
