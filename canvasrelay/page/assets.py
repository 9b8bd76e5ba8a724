"""The built web app over HTTP.

`index.html` is never cached (it names the current assets); the assets under `/assets/` carry
a content hash in their names, so they are cached for a year and never revalidated. The build
writes a gzip and a brotli copy beside each text asset; the copy sent is the one the browser
prefers in its `Accept-Encoding` (q-values honoured), else the plain file. `index.html` carries
the page's Content-Security-Policy (`policy`), whose `connect-src` the caller decides.
"""

from __future__ import annotations

import mimetypes
import re
from collections.abc import Callable
from pathlib import Path

from aiohttp import web

from canvasrelay.page.policy import bundle_policy, own_sockets

IMMUTABLE = "public, max-age=31536000, immutable"
FAVICON_CACHE = "public, max-age=86400"
# Vite names every asset `<name>-<hash>.<ext>`; its hashes are 8 url-safe base64 characters.
HASHED_NAME = re.compile(r"^[A-Za-z0-9_.-]+-[A-Za-z0-9_-]{8}\.[a-z0-9]+$")
SAFE_NAME = re.compile(r"^[A-Za-z0-9_-][A-Za-z0-9_.-]*$")
# Suffix of the pre-compressed copy for each coding, most compact first (the tie-break).
COPIES = {"br": ".br", "gzip": ".gz"}
Connections = Callable[[web.Request], list[str]]
"""Where the page served for a request may connect, besides its own origin."""


def chosen_encoding(accept_encoding: str, available: list[str]) -> str | None:
    """The coding of `available` the client prefers (highest q above zero), or None for the plain file."""
    weights: dict[str, float] = {}
    for part in accept_encoding.split(","):
        coding, _, params = part.partition(";")
        weight = 1.0
        for param in params.split(";"):
            key, _, value = param.partition("=")
            if key.strip().lower() == "q":
                try:
                    weight = float(value.strip())
                except ValueError:
                    weight = 0.0
        if coding.strip():
            weights[coding.strip().lower()] = weight
    default = weights.get("*", 0.0)
    best, best_weight = None, 0.0
    for coding in available:
        weight = weights.get(coding, default)
        if weight > best_weight:
            best, best_weight = coding, weight
    return best


def add_static_routes(app: web.Application, dist: Path, connect: Connections = own_sockets) -> None:
    """Serve the web app built into `dist` (or say that it is not built) on `app`; its page may
    connect to `connect(request)`."""
    if not (dist / "index.html").exists():
        app.router.add_get("/", _not_built)
        return
    static = _StaticAssets(dist, connect)
    app.router.add_get("/", static.index)
    app.router.add_get("/assets/{name}", static.asset)
    app.router.add_get("/favicon.svg", static.favicon)


class _StaticAssets:
    def __init__(self, dist: Path, connect: Connections) -> None:
        self.dist = dist
        self.connect = connect
        self.assets = dist / "assets"
        # Hashed files never change, so each is read from disk once.
        self._cache: dict[Path, bytes] = {}

    async def index(self, request: web.Request) -> web.FileResponse:
        headers = {"Cache-Control": "no-cache", "Content-Security-Policy": bundle_policy(self.connect(request))}
        return web.FileResponse(self.dist / "index.html", headers=headers)

    async def favicon(self, _request: web.Request) -> web.FileResponse:
        return web.FileResponse(self.dist / "favicon.svg", headers={"Cache-Control": FAVICON_CACHE})

    async def asset(self, request: web.Request) -> web.Response:
        name = request.match_info["name"]
        plain = self.assets / name
        if not SAFE_NAME.match(name) or name.endswith(tuple(COPIES.values())) or not plain.is_file():
            raise web.HTTPNotFound(text="no such asset")
        available = [coding for coding, suffix in COPIES.items() if (self.assets / (name + suffix)).is_file()]
        coding = chosen_encoding(request.headers.get("Accept-Encoding", ""), available)
        body = self._read(self.assets / (name + COPIES[coding]) if coding else plain)
        content_type, _ = mimetypes.guess_type(name)
        headers = {"Vary": "Accept-Encoding"}
        if HASHED_NAME.match(name):
            headers["Cache-Control"] = IMMUTABLE
        if coding:
            headers["Content-Encoding"] = coding
        return web.Response(body=body, content_type=content_type or "application/octet-stream", headers=headers)

    def _read(self, path: Path) -> bytes:
        body = self._cache.get(path)
        if body is None:
            body = self._cache[path] = path.read_bytes()
        return body


async def _not_built(_request: web.Request) -> web.Response:
    return web.Response(
        status=503,
        text="The web app is not built. Run `npm ci && npm run build` in web/, or `pip install .`.",
    )
