"""The built web app as one bundle: its files and their digests, a copy of it for any static host,
and whether a published copy is the same bytes.

The guest page can live anywhere (GitHub Pages, a CDN, a `canvas signal`): it speaks to the host
only over the relays and WebRTC, so the room link may point at a copy served far from the host.
A copy is worth pointing at only if it is this canvas's own bytes, so the host checks one before
its links name it: every file of its own bundle, fetched from the copy and hashed.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

import aiohttp

from canvasrelay import __version__

WEB_DIST = Path(__file__).resolve().parents[1] / "web_dist"
MANIFEST = "canvas-page.json"
"""Written beside an exported copy: the canvas version it came from and each file's SHA-256."""
PUBLISHED_HOME = "https://canvasrelay.github.io/canvas"
"""Where the repository's release workflow publishes each version's page, at `v<version>/` (never
overwritten: a link made today keeps opening the bytes it was made with)."""
ENV = "CANVAS_PAGE"
"""The page room links point at when `--base-url` is not given: a URL, or empty for this server's own."""
CHECK_TIMEOUT_S = 2.0
MAX_FILE_BYTES = 8 * 1024 * 1024
_LEFT_OUT = (".br", ".gz")
"""Compressed twins the host serves itself; a static host serves the plain files (and may compress them)."""


def published_base(version: str = __version__) -> str:
    return f"{PUBLISHED_HOME}/v{version}/"


def default_base() -> str | None:
    """The page room links point at unless told: `CANVAS_PAGE` when set (empty: None, this server),
    else this version's published copy."""
    text = os.environ.get(ENV)
    if text is None:
        return published_base()
    return text.strip() or None


def page_files(dist: Path = WEB_DIST) -> dict[str, str]:
    """Each file of the bundle (a path relative to `dist`, `/`-separated) and its SHA-256, hex."""
    found: dict[str, str] = {}
    for path in sorted(dist.rglob("*")):
        relative = path.relative_to(dist)
        if not path.is_file() or path.suffix in _LEFT_OUT or relative.parts[0].startswith("."):
            continue
        found[relative.as_posix()] = hashlib.sha256(path.read_bytes()).hexdigest()
    return found


class NotBuilt(Exception):
    """The web app is not built here: nothing to export."""


def export(target: Path, dist: Path = WEB_DIST) -> dict[str, str]:
    """Copy the bundle into `target` (made if missing; files already there are replaced), with its
    manifest; returns the files written and their digests."""
    if not (dist / "index.html").is_file():
        raise NotBuilt(f"the web app is not built in {dist} (cd web && npm ci && npm run build)")
    files = page_files(dist)
    for name in files:
        destination = target / name
        destination.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(dist / name, destination)
    manifest = {"canvas": __version__, "files": files}
    (target / MANIFEST).write_text(json.dumps(manifest, indent=2, sort_keys=True) + "\n")
    return files


Verdict = Literal["same", "differs", "missing", "unreachable"]


@dataclass(frozen=True)
class PageCheck:
    """What the host found at a published copy of its page."""

    verdict: Verdict
    """`same`: every file of the host's own bundle is there, byte for byte; `missing`: not there
    at all (not published, or published elsewhere); `unreachable`: the host could not look."""
    words: str
    """What the host says about it, for a person."""

    @property
    def worth_pointing_at(self) -> bool:
        """The copy is the host's own, or one the host could not reach to check (its guests,
        elsewhere, may well); a copy that differs, or is not there, never."""
        return self.verdict in ("same", "unreachable")


async def check_copy(base: str, session: aiohttp.ClientSession, dist: Path = WEB_DIST) -> PageCheck:
    """Fetch every file of this bundle from the copy at `base` and compare digests."""
    own = page_files(dist)
    if not own:
        return PageCheck("differs", "this canvas has no built page to compare with")
    base = base if base.endswith("/") else base + "/"
    timeout = aiohttp.ClientTimeout(total=CHECK_TIMEOUT_S)
    try:
        for name, digest in own.items():
            async with session.get(base + name, timeout=timeout, allow_redirects=False) as response:
                if response.status == 404:
                    return PageCheck("missing", f"the guest page is not published at {base}")
                if response.status != 200:
                    return PageCheck("differs", f"the guest page at {base} answered {response.status} for {name}")
                seen = await _digest(response.content)
            if seen != digest:
                return PageCheck("differs", f"the guest page at {base} is not this canvas's own ({name} differs)")
    except (aiohttp.ClientError, TimeoutError, OSError) as exc:
        why = "no answer in time" if isinstance(exc, TimeoutError) else str(exc) or type(exc).__name__
        return PageCheck("unreachable", f"could not check the guest page at {base}: {why}")
    return PageCheck("same", f"the guest page at {base} is this canvas's own, byte for byte")


async def _digest(body: aiohttp.StreamReader) -> str | None:
    """The SHA-256 of a response's body, or None past `MAX_FILE_BYTES` (no file of the bundle is)."""
    digest, size = hashlib.sha256(), 0
    async for chunk in body.iter_chunked(64 * 1024):
        size += len(chunk)
        if size > MAX_FILE_BYTES:
            return None
        digest.update(chunk)
    return digest.hexdigest()
