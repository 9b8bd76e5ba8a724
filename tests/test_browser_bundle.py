"""Chromium: what each page downloads. Guests never fetch host-only code; each page's first load
stays under the JavaScript budget, compressed; hashed assets are cached for good."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.browser_pages import join_as_guest
from tests.support import ServerProcess

pytestmark = [pytest.mark.browser, pytest.mark.timeout(120)]

MANIFEST = Path(__file__).resolve().parent.parent / "canvasrelay" / "web_dist" / ".vite" / "manifest.json"
BUDGET_BYTES = 250 * 1024
HOST_PAGE = "src/App.tsx"
GUEST_PAGE = "src/join/GuestPage.tsx"
# Loaded on demand by code both pages share, but only ever for the host.
HOST_ON_DEMAND = "src/rules/SessionRules.tsx"


def reachable(manifest: dict[str, Any], start: str, dynamic: bool) -> set[str]:
    """The files the chunk `start` pulls in: statically, and with `dynamic` also on demand (but
    not the entry's choice of page, which is the one thing a page never loads twice)."""
    seen: set[str] = set()
    todo = [start]
    while todo:
        key = todo.pop()
        entry = manifest[key]
        if entry["file"] in seen:
            continue
        seen.add(entry["file"])
        todo += entry.get("imports", [])
        if dynamic and not entry.get("isEntry"):
            todo += entry.get("dynamicImports", [])
    return seen


def host_only_files() -> set[str]:
    """Chunks the host page loads that nothing a guest may ever load needs."""
    manifest = json.loads(MANIFEST.read_text())
    shared = reachable(manifest, "index.html", dynamic=False) | reachable(manifest, GUEST_PAGE, dynamic=True)
    return (reachable(manifest, HOST_PAGE, dynamic=False) - shared) | {manifest[HOST_ON_DEMAND]["file"]}


def scripts_loaded(page: Any) -> list[dict[str, Any]]:
    """Every script the page fetched, with the bytes that crossed the wire for its body."""
    return page.evaluate(
        """() => performance.getEntriesByType('resource')
            .filter(e => e.name.endsWith('.js'))
            .map(e => ({
                path: new URL(e.name).pathname.slice(1), encoded: e.encodedBodySize, decoded: e.decodedBodySize,
            }))"""
    )


def settle(page: Any) -> None:
    """Waits until no script is still loading (the page's own lazy chunks included)."""
    page.wait_for_load_state("networkidle")


def test_a_guest_never_downloads_the_host_only_code(browser: Any, server: ServerProcess) -> None:
    host_only = host_only_files()
    assert any("/App-" in name for name in host_only), host_only
    guest = join_as_guest(browser, server, "Ada")
    try:
        settle(guest)
        loaded = {script["path"] for script in scripts_loaded(guest)}
        assert loaded, "no script was recorded"
        assert not loaded & host_only, loaded & host_only
    finally:
        guest.context.close()


def encodings_of(browser: Any, page_kind: str, server: ServerProcess) -> tuple[Any, dict[str, str | None]]:
    """The page, and the Content-Encoding the server answered each of its scripts with."""
    encodings: dict[str, str | None] = {}

    def record(response: Any) -> None:
        if response.url.endswith(".js"):
            encodings[response.url.split("/", 3)[3]] = response.headers.get("content-encoding")

    browser_context = browser.new_context(viewport={"width": 1280, "height": 800})
    browser_context.on("response", record)
    page = browser_context.new_page()
    if page_kind == "host":
        page.goto(server.host_link)
    else:
        page.goto(server.room_link)
        page.get_by_test_id("guest-name").fill("Bob")
        page.get_by_test_id("guest-join").click()
    page.get_by_test_id("board-toolbar").wait_for(timeout=20_000)
    return page, encodings


@pytest.mark.parametrize("page_kind", ["host", "guest"])
def test_the_first_load_is_compressed_and_under_the_budget(browser: Any, server: ServerProcess, page_kind: str) -> None:
    page, encodings = encodings_of(browser, page_kind, server)
    try:
        settle(page)
        scripts = scripts_loaded(page)
        total = sum(script["encoded"] for script in scripts)
        print(f"{page_kind} page first load: {total / 1024:.1f} KB of JavaScript over the wire, {len(scripts)} files")
        assert 0 < total < BUDGET_BYTES
        assert all(script["encoded"] < script["decoded"] for script in scripts), scripts
        assert {script["path"] for script in scripts} == set(encodings)
        # Chromium takes brotli from 127.0.0.1 (a secure context); any browser gets one of the two.
        assert set(encodings.values()) <= {"br", "gzip"}, encodings
    finally:
        page.context.close()


def test_hashed_assets_are_cached_for_good_and_the_page_is_not(browser: Any, server: ServerProcess) -> None:
    responses: list[Any] = []
    context = browser.new_context()
    page = context.new_page()
    page.on("response", lambda response: responses.append(response))
    try:
        page.goto(server.host_link)
        page.get_by_test_id("board-toolbar").wait_for(timeout=20_000)
        settle(page)
        assets = [r for r in responses if "/assets/" in r.url]
        assert any(r.url.endswith(".js") for r in assets) and any(r.url.endswith(".css") for r in assets)
        for response in assets:
            assert response.status == 200, response.url
            assert response.headers["cache-control"] == "public, max-age=31536000, immutable", response.url
        document = next(r for r in responses if r.url.split("#")[0].rstrip("/") == server.base_url)
        assert document.headers["cache-control"] == "no-cache"
        favicon = page.request.get(f"{server.base_url}/favicon.svg")
        assert favicon.status == 200 and favicon.headers["content-type"] == "image/svg+xml"
    finally:
        context.close()
