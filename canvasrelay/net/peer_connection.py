"""Which WebRTC library carries this process's peer connections: wrtc wherever it loads, aiortc elsewhere.

wrtc is libwebrtc, Chrome's engine: a seventh of aiortc's CPU per byte, and the browsers' own ICE,
DTLS and SCTP (ADR 0027). It has wheels for Linux (glibc, x86-64 and aarch64), macOS 13+ and Windows
x64; elsewhere it is not installed and aiortc carries the channels. The choice is made once, at
start, by loading wrtc's native module (milliseconds); `CANVAS_WEBRTC=aiortc` (or `wrtc`) makes it
by name. The library's Python side takes a third of a second to import, so the server imports
`modules` in a thread once it is up (`DeferredImports`).
"""

from __future__ import annotations

import functools
import importlib
import importlib.metadata
import os
from dataclasses import dataclass
from typing import cast

from canvasrelay.net.channel import PeerLink
from canvasrelay.protocol.ice import IceServer

CHOICE = "CANVAS_WEBRTC"


class UnknownLibrary(ValueError):
    pass


@dataclass(frozen=True)
class WebRtcLibrary:
    name: str
    version: str
    module: str
    why: str = ""
    """Why aiortc carries the channels, when it does."""

    @property
    def modules(self) -> tuple[str, ...]:
        return (self.module,)

    def describe(self) -> str:
        """The library in words, for `canvas serve`'s first lines and `/api/health`."""
        if self.name == "wrtc":
            return f"wrtc {self.version} (libwebrtc, Chrome's engine)"
        return f"aiortc {self.version} ({self.why}; about seven times wrtc's CPU per byte)"

    def peer(self, servers: list[IceServer], relay_only: bool) -> PeerLink:
        """A new peer connection (import `modules` first, off the loop, where the loop must not wait)."""
        return cast(PeerLink, importlib.import_module(self.module).peer(servers, relay_only))


def wrtc() -> WebRtcLibrary:
    return WebRtcLibrary("wrtc", importlib.metadata.version("wrtc"), "canvasrelay.net.rtc_wrtc")


def aiortc(why: str) -> WebRtcLibrary:
    return WebRtcLibrary("aiortc", importlib.metadata.version("aiortc"), "canvasrelay.net.rtc_aiortc", why)


def library(name: str) -> WebRtcLibrary:
    """The library of that name, for a test or a benchmark that runs both."""
    return wrtc() if name == "wrtc" else aiortc(f"{CHOICE}={name}")


@functools.cache
def chosen() -> WebRtcLibrary:
    named = os.environ.get(CHOICE) or ""
    if named == "aiortc":
        return library(named)
    if named not in ("", "wrtc"):
        raise UnknownLibrary(f"{CHOICE}={named}: canvas knows the WebRTC libraries wrtc and aiortc")
    try:
        importlib.import_module("wrtc")
    except (ImportError, OSError) as exc:
        if named:
            raise UnknownLibrary(f"{CHOICE}=wrtc, but wrtc could not load: {exc}") from None
        return aiortc(f"wrtc could not load: {exc}")
    return wrtc()
