"""The SDKs that take seconds to import load after start-up, and whoever needs them waits for them."""

from __future__ import annotations

import subprocess
import sys

import pytest

from canvasrelay.net.peer_connection import library
from canvasrelay.server.deferred_imports import AGENT_MODULES, DeferredImports

HEAVY = ("acp", "mcp", "webrtc", "aiortc", "av")


def test_the_server_starts_without_the_acp_mcp_and_webrtc_libraries() -> None:
    # In a fresh interpreter: this process has long imported both.
    script = (
        "import sys, canvasrelay.server.app, canvasrelay.cli.main\n"
        f"print(','.join(m for m in {HEAVY!r} if m in sys.modules))"
    )
    loaded = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True, timeout=60)
    assert loaded.stdout.strip() == ""


@pytest.mark.parametrize("modules", [AGENT_MODULES, library("wrtc").modules, library("aiortc").modules])
def test_ready_imports_them_in_a_fresh_interpreter(modules: tuple[str, ...]) -> None:
    script = (
        "import asyncio, sys\n"
        "from canvasrelay.server.deferred_imports import DeferredImports\n"
        f"modules = {modules!r}\n"
        "before = [m for m in modules if m in sys.modules]\n"
        "asyncio.run(DeferredImports(modules).ready())\n"
        "print(before, all(m in sys.modules for m in modules))"
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True, timeout=60)
    assert done.stdout.strip() == "[] True"


async def test_an_import_that_fails_fails_each_wait() -> None:
    deferred = DeferredImports(["canvasrelay.no_such_module"])
    deferred.start()
    for _ in range(2):
        with pytest.raises(ModuleNotFoundError, match="no_such_module"):
            await deferred.ready()
