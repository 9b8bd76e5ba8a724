"""The SDKs that take seconds to import load after start-up, and whoever needs them waits for them."""

from __future__ import annotations

import subprocess
import sys

import pytest

from canvasrelay.server.deferred_imports import AGENT_MODULES, DeferredImports

HEAVY = ("acp", "mcp")


def test_the_server_starts_without_the_acp_and_mcp_sdks() -> None:
    # In a fresh interpreter: this process has long imported both.
    script = (
        "import sys, canvasrelay.server.app, canvasrelay.cli.main\n"
        f"print(','.join(m for m in {HEAVY!r} if m in sys.modules))"
    )
    loaded = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True, timeout=60)
    assert loaded.stdout.strip() == ""


async def test_ready_imports_the_agent_modules() -> None:
    deferred = DeferredImports()
    await deferred.ready()
    assert all(name in sys.modules for name in AGENT_MODULES)


async def test_an_import_that_fails_fails_each_wait() -> None:
    deferred = DeferredImports(["canvasrelay.no_such_module"])
    deferred.start()
    for _ in range(2):
        with pytest.raises(ModuleNotFoundError, match="no_such_module"):
            await deferred.ready()
