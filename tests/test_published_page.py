"""The guest page lives anywhere: `canvas page export` writes the wheel's own bytes with their digests,
a static server on an origin of its own serves them from a folder, and the room link points there
once the host has fetched that copy and found it byte for byte its own. A guest opens the link there
and joins through a relay; the host page's room link is that link and says how it reaches people.
A copy that differs, or is not there, is never what a link points at."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from aiohttp import web

from canvasrelay import __version__
from canvasrelay.page.bundle import MANIFEST, WEB_DIST, page_files
from tests.relay_pages import WAIT_MS, Loop, join, serving_on
from tests.services import NostrRelay

pytestmark = [pytest.mark.services]

FOLDER = f"/canvas/v{__version__}/"


def export(target: Path) -> str:
    done = subprocess.run(
        [sys.executable, "-m", "canvasrelay", "page", "export", str(target)], capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr
    return done.stdout


@contextmanager
def static_host(loop: Loop, folder: Path) -> Iterator[str]:
    """A plain static server (as GitHub Pages is) with `folder` at `FOLDER`: the copy's address."""

    async def index(_request: web.Request) -> web.FileResponse:
        return web.FileResponse(folder / "index.html")

    async def start() -> web.AppRunner:
        app = web.Application()
        app.router.add_get(FOLDER, index)
        app.router.add_static(FOLDER, folder)
        runner = web.AppRunner(app, access_log=None)
        await runner.setup()
        await web.TCPSite(runner, "127.0.0.1", 0).start()
        return runner

    runner = loop.run(start())
    try:
        yield f"http://127.0.0.1:{runner.addresses[0][1]}{FOLDER}"
    finally:
        loop.run(runner.cleanup())


def test_the_export_is_the_wheels_own_bytes_with_their_digests(tmp_path: Path) -> None:
    said = export(tmp_path / "page")
    manifest = json.loads((tmp_path / "page" / MANIFEST).read_text())
    assert manifest == {"canvas": __version__, "files": page_files(WEB_DIST)}
    for name in manifest["files"]:
        assert (tmp_path / "page" / name).read_bytes() == (WEB_DIST / name).read_bytes(), name
    assert "index.html" in manifest["files"] and not any(name.endswith((".br", ".gz")) for name in manifest["files"])
    assert "canvas serve --base-url" in said
    refused = subprocess.run(
        [sys.executable, "-m", "canvasrelay", "page", "export", str(tmp_path / "page" / "index.html")],
        capture_output=True,
        text=True,
    )
    assert refused.returncode == 2 and "is a file, not a folder" in refused.stderr


@pytest.mark.browser
def test_a_guest_opens_the_published_copy_and_joins_through_a_relay(
    browser: Any, loop: Loop, relay: NostrRelay, project: Path, tmp_path: Path
) -> None:
    export(tmp_path / "page")
    with static_host(loop, tmp_path / "page") as copy, serving_on(
        loop, project, [relay.url], published_page=copy
    ) as server:
        assert server.page_check is not None and server.page_check.verdict == "same", server.page_check
        link = server.room_link
        assert link.startswith(copy + "#room="), link
        guest = browser.new_context().new_page()
        join(guest, link, "Ada")
        assert guest.url.startswith(copy)
        assert guest.get_by_test_id("project").inner_text() == "project"
        host = browser.new_context().new_page()
        host.goto(server.host_link)
        field = host.get_by_test_id("room-link")
        field.wait_for(timeout=WAIT_MS)
        assert field.input_value() == link
        reach = host.get_by_test_id("link-reach").inner_text()
        assert reach == "It works for anyone, on any network: guests find the room through 1 public relay.", reach
        guest.context.close()
        host.context.close()


@pytest.mark.parametrize("copy_is", ["altered", "absent"])
def test_a_copy_that_is_not_the_hosts_own_is_never_where_links_point(
    loop: Loop, relay: NostrRelay, project: Path, tmp_path: Path, copy_is: str
) -> None:
    (tmp_path / "page").mkdir()
    if copy_is == "altered":
        export(tmp_path / "page")
        index = tmp_path / "page" / "index.html"
        index.write_text(index.read_text().replace("<head>", "<head><script src='https://evil.example/x.js'></script>"))
    with static_host(loop, tmp_path / "page") as copy, serving_on(
        loop, project, [relay.url], published_page=copy
    ) as server:
        check = server.page_check
        assert check is not None
        if copy_is == "altered":
            assert check.verdict == "differs" and "index.html differs" in check.words, check
        else:
            assert check.verdict == "missing" and f"not published at {copy}" in check.words, check
        assert server.room_link.startswith(f"http://127.0.0.1:{server.port}/#room="), server.room_link
        assert not server.links_leave
        reach = server.people.reach
        assert reach is not None and not reach.anywhere, "the host page must not say the link works anywhere"
