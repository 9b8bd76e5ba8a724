"""The web app's files over real HTTP: pre-compressed copies chosen by Accept-Encoding, cache headers."""

from __future__ import annotations

import gzip
from collections.abc import AsyncIterator
from pathlib import Path

import aiohttp
import pytest
from aiohttp import web
from aiohttp.test_utils import TestServer

from canvasrelay.page.assets import IMMUTABLE, add_static_routes, chosen_encoding

SCRIPT = b"export const answer = 42;\n" * 100
HASHED = "index-AbC_12-x.js"


@pytest.mark.parametrize(
    ("header", "expected"),
    [
        ("gzip, deflate, br, zstd", "br"),
        ("gzip, deflate", "gzip"),
        ("gzip;q=1.0, br;q=0.5", "gzip"),
        ("br;q=0, gzip", "gzip"),
        ("gzip;q=0", None),
        ("identity", None),
        ("", None),
        ("*", "br"),
        ("*;q=0.1, gzip;q=0.5", "gzip"),
        ("br;q=nonsense, gzip", "gzip"),
        ("GZIP", "gzip"),
    ],
)
def test_the_coding_sent_is_the_one_the_client_prefers(header: str, expected: str | None) -> None:
    assert chosen_encoding(header, ["br", "gzip"]) == expected


def test_a_coding_without_a_copy_is_never_chosen() -> None:
    assert chosen_encoding("br, gzip", ["gzip"]) == "gzip"
    assert chosen_encoding("br", []) is None


@pytest.fixture
def dist(tmp_path: Path) -> Path:
    root = tmp_path / "web_dist"
    (root / "assets").mkdir(parents=True)
    (root / "index.html").write_text("<!doctype html><title>canvas</title>")
    (root / "favicon.svg").write_text('<svg xmlns="http://www.w3.org/2000/svg"/>')
    (root / "assets" / HASHED).write_bytes(SCRIPT)
    (root / "assets" / (HASHED + ".gz")).write_bytes(gzip.compress(SCRIPT))
    # Stands for the brotli copy: the server sends the bytes the build wrote, it never re-encodes.
    (root / "assets" / (HASHED + ".br")).write_bytes(b"brotli copy")
    (root / "assets" / "plain.css").write_text("body{}")
    return root


@pytest.fixture
async def base_url(dist: Path) -> AsyncIterator[str]:
    app = web.Application()
    add_static_routes(app, dist)
    server = TestServer(app, host="127.0.0.1")
    await server.start_server()
    yield str(server.make_url("")).rstrip("/")
    await server.close()


async def fetch(url: str, accept: str) -> tuple[int, dict[str, str], bytes]:
    # auto_decompress off: the test sees the bytes on the wire.
    async with (
        aiohttp.ClientSession(auto_decompress=False) as session,
        session.get(url, headers={"Accept-Encoding": accept}) as response,
    ):
        return response.status, dict(response.headers), await response.read()


async def test_brotli_is_sent_to_a_browser_that_takes_it(base_url: str, dist: Path) -> None:
    status, headers, body = await fetch(f"{base_url}/assets/{HASHED}", "gzip, deflate, br")
    assert status == 200
    assert headers["Content-Encoding"] == "br"
    assert body == (dist / "assets" / (HASHED + ".br")).read_bytes()
    assert headers["Content-Type"].startswith("text/javascript")
    assert headers["Vary"] == "Accept-Encoding"
    assert headers["Cache-Control"] == IMMUTABLE


async def test_gzip_is_sent_to_a_browser_that_takes_only_gzip(base_url: str) -> None:
    status, headers, body = await fetch(f"{base_url}/assets/{HASHED}", "gzip, deflate")
    assert (status, headers["Content-Encoding"]) == (200, "gzip")
    assert gzip.decompress(body) == SCRIPT
    assert headers["Cache-Control"] == IMMUTABLE


async def test_the_plain_file_goes_to_a_client_that_takes_no_compression(base_url: str) -> None:
    status, headers, body = await fetch(f"{base_url}/assets/{HASHED}", "identity")
    assert (status, body) == (200, SCRIPT)
    assert "Content-Encoding" not in headers


async def test_a_file_without_a_hash_in_its_name_is_not_cached_forever(base_url: str) -> None:
    status, headers, body = await fetch(f"{base_url}/assets/plain.css", "gzip, br")
    assert (status, body) == (200, b"body{}")
    assert "Content-Encoding" not in headers
    assert "Cache-Control" not in headers


@pytest.mark.parametrize(
    "path", [f"/assets/{HASHED}.gz", "/assets/missing-AbCdEf12.js", "/assets/..%2Findex.html", "/assets/.hidden"]
)
async def test_only_the_assets_themselves_are_served(base_url: str, path: str) -> None:
    status, _, _ = await fetch(base_url + path, "gzip")
    assert status == 404


async def test_the_page_is_revalidated_and_the_favicon_is_there(base_url: str) -> None:
    status, headers, body = await fetch(f"{base_url}/", "gzip")
    assert (status, headers["Cache-Control"]) == (200, "no-cache")
    assert b"<title>canvas</title>" in body
    status, headers, _ = await fetch(f"{base_url}/favicon.svg", "gzip")
    assert status == 200
    assert headers["Content-Type"] == "image/svg+xml"


async def test_an_unbuilt_app_says_how_to_build_it(tmp_path: Path) -> None:
    app = web.Application()
    add_static_routes(app, tmp_path / "nothing")
    server = TestServer(app, host="127.0.0.1")
    await server.start_server()
    try:
        status, _, body = await fetch(str(server.make_url("/")), "gzip")
    finally:
        await server.close()
    assert status == 503
    assert b"npm run build" in body
