"""Every page canvas serves says what it may load and reach (its Content-Security-Policy), and
everything else it serves may load nothing: over real HTTP, from `canvas serve`'s application and
`canvas signal`'s, and in the built page itself for a copy served elsewhere."""

from __future__ import annotations

import base64
import hashlib
import re
from collections.abc import AsyncIterator
from pathlib import Path

import aiohttp
import pytest
from aiohttp import web
from aiohttp.test_utils import TestServer

from canvasrelay.page.assets import add_static_routes
from canvasrelay.page.bundle import WEB_DIST
from canvasrelay.page.policy import (
    BUNDLE_ONLY,
    NOTHING,
    bundle_policy,
    guest_page_connects,
    rendezvous_sources,
    security_headers,
    self_contained_policy,
    socket_sources,
)
from tests.support import InProcessServer, missing


def directives(policy: str) -> dict[str, str]:
    return {part.split()[0]: " ".join(part.split()[1:]) for part in policy.split(";") if part.strip()}


@pytest.fixture
def dist(tmp_path: Path) -> Path:
    root = tmp_path / "web_dist"
    (root / "assets").mkdir(parents=True)
    (root / "index.html").write_text("<!doctype html><title>canvas</title>")
    (root / "assets" / "index-AbC_12-x.js").write_text("export {};\n")
    return root


async def served(dist: Path, connect: bool) -> TestServer:
    app = web.Application(middlewares=[security_headers])
    if connect:
        add_static_routes(app, dist, guest_page_connects)
    else:
        add_static_routes(app, dist)
    server = TestServer(app, host="127.0.0.1")
    await server.start_server()
    return server


@pytest.fixture
async def base_url(dist: Path) -> AsyncIterator[str]:
    server = await served(dist, connect=False)
    yield str(server.make_url("")).rstrip("/")
    await server.close()


async def test_the_page_loads_only_its_bundle_and_reaches_only_its_server(base_url: str) -> None:
    async with aiohttp.ClientSession() as session, session.get(base_url + "/") as response:
        policy = directives(response.headers["Content-Security-Policy"])
        host = base_url.removeprefix("http://")
        assert policy["default-src"] == "'none'" and policy["script-src"] == "'self'"
        assert policy["img-src"] == "'self' data: blob:" and policy["style-src-attr"] == "'none'"
        for directive in ("object-src", "base-uri", "form-action", "frame-ancestors"):
            assert policy[directive] == "'none'", directive
        assert policy["connect-src"] == f"'self' ws://{host} wss://{host}"
        assert response.headers["Referrer-Policy"] == "no-referrer"
        assert response.headers["X-Content-Type-Options"] == "nosniff"


@pytest.mark.parametrize("path", ["/assets/index-AbC_12-x.js", "/assets/missing.js", "/nothing-here"])
async def test_what_is_no_page_may_load_nothing(base_url: str, path: str) -> None:
    async with aiohttp.ClientSession() as session, session.get(base_url + path) as response:
        assert response.headers["Content-Security-Policy"] == NOTHING
        assert response.headers["Referrer-Policy"] == "no-referrer"


async def test_a_page_not_built_may_load_nothing(tmp_path: Path) -> None:
    server = await served(tmp_path, connect=False)
    try:
        async with aiohttp.ClientSession() as session, session.get(str(server.make_url("/"))) as response:
            assert response.status == 503 and response.headers["Content-Security-Policy"] == NOTHING
    finally:
        await server.close()


async def test_the_rendezvous_guest_page_may_reach_any_rendezvous(dist: Path) -> None:
    server = await served(dist, connect=True)
    try:
        async with aiohttp.ClientSession() as session, session.get(str(server.make_url("/"))) as response:
            connect = directives(response.headers["Content-Security-Policy"])["connect-src"].split()
        # Served without TLS, as here, its link may name a rendezvous without TLS too.
        assert connect[0] == "'self'" and connect[-4:] == ["https:", "wss:", "http:", "ws:"]
    finally:
        await server.close()


async def test_canvas_serve_lets_its_page_reach_itself_and_its_rendezvous(served: InProcessServer) -> None:
    async with aiohttp.ClientSession() as session:
        async with session.get(served.base_url + "/") as response:
            policy = directives(response.headers["Content-Security-Policy"])
        async with session.get(served.base_url + "/api/health") as response:
            assert response.headers["Content-Security-Policy"] == NOTHING
    host = served.base_url.removeprefix("http://")
    assert policy["connect-src"] == f"'self' ws://{host} wss://{host}"
    assert policy["script-src"] == "'self'"


def test_the_rendezvous_named_are_allowed_exactly() -> None:
    assert rendezvous_sources("wss://a.example/signal,wss://b.example:8443/x/signal") == [
        "wss://a.example/signal",
        "wss://b.example:8443/x/signal",
        "https://a.example/turn",
        "https://b.example:8443/x/turn",
    ]
    assert rendezvous_sources(None) == []


@pytest.mark.parametrize(
    ("url", "source"),
    [
        ("wss://relay.example", "wss://relay.example"),
        ("wss://a.example/x;script-src *", "wss://a.example"),
        ("wss://a.example:99/x y", "wss://a.example:99"),
        ("javascript:alert(1)", None),
        ("wss://bad host/", None),
        ("wss://a.example;b/", None),
        ("ws://[::1]:8478/signal", "ws://[::1]:8478/signal"),
    ],
)
def test_an_address_becomes_a_source_or_nothing(url: str, source: str | None) -> None:
    assert socket_sources([url]) == ([source] if source else [])


def test_the_policy_carries_no_separator_it_was_not_built_with() -> None:
    policy = bundle_policy(["wss://a.example", *socket_sources(["wss://x.example/;script-src *"])])
    assert policy.count(";") == len(BUNDLE_ONLY)


def test_the_built_page_carries_the_same_policy_for_a_copy_served_elsewhere() -> None:
    index = WEB_DIST / "index.html"
    if not index.exists():
        missing("canvasrelay/web_dist", "cd web && npm ci && npm run build")
    html = index.read_text(encoding="utf-8")
    found = re.search(r'<meta http-equiv="Content-Security-Policy" content="([^"]+)"', html)
    assert found is not None, "the built page holds its policy"
    meta = directives(found.group(1).replace("&#39;", "'"))
    header = directives("; ".join(BUNDLE_ONLY))
    # A page cannot say who may frame it; where it may connect, the server and the page narrow.
    del header["frame-ancestors"]
    assert meta.pop("connect-src") == "'self' http: https: ws: wss:"
    assert meta == header
    assert html.index("Content-Security-Policy") < html.index("<script"), "before anything it governs"


def test_the_api_docs_may_run_their_own_script_and_style_only() -> None:
    page = (
        Path(__file__).resolve().parent.parent / "canvasrelay" / "server" / "http" / "api" / "docs.html"
    ).read_text()
    policy = directives(self_contained_policy(page))
    script = re.search(r"<script>(.*?)</script>", page, re.DOTALL)
    assert script is not None
    digest = base64.b64encode(hashlib.sha256(script.group(1).encode()).digest()).decode()
    assert policy["script-src"] == f"'sha256-{digest}'"
    assert policy["style-src"].startswith("'sha256-") and policy["default-src"] == "'none'"
    assert policy["connect-src"] == "'self'"
