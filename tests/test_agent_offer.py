"""The agents on offer, in the words the agent menu shows: ready, not installed (and how to
install), needs a key or a login (and how), and whether each runs confined."""

from __future__ import annotations

from pathlib import Path

import pytest

from canvasrelay.server.agents.catalog import discover
from canvasrelay.server.config import CanvasConfig


@pytest.fixture
def codex_on_path(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    command = bin_dir / "codex-acp"
    command.write_text("#!/bin/sh\n")
    command.chmod(0o755)
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("PATH", str(bin_dir))
    monkeypatch.setenv("HOME", str(home))
    for name in ("OPENAI_API_KEY", "CODEX_API_KEY"):
        monkeypatch.delenv(name, raising=False)
    return home


def test_an_installed_agent_without_a_key_or_login_says_how_to_give_one(codex_on_path: Path) -> None:
    info = discover(CanvasConfig())["codex"].info()
    assert info.available and info.state == "needs-key"
    assert info.setup is not None and "OPENAI_API_KEY" in info.setup and "codex login" in info.setup


def test_a_key_or_a_login_makes_it_ready(codex_on_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (codex_on_path / ".codex").mkdir()
    (codex_on_path / ".codex" / "auth.json").write_text("{}")
    assert discover(CanvasConfig())["codex"].info().state == "ready"
    (codex_on_path / ".codex" / "auth.json").unlink()
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    assert discover(CanvasConfig())["codex"].info().state == "ready"


def test_a_missing_agent_says_how_to_install_it(codex_on_path: Path) -> None:
    info = discover(CanvasConfig())["gemini"].info()
    assert not info.available and info.state == "not-installed"
    assert info.install == "npm i -g @google/gemini-cli"


def test_the_host_s_own_agent_is_ready_and_says_whether_it_is_confined(codex_on_path: Path) -> None:
    found = discover(CanvasConfig.model_validate({"agents": {"mine": {"command": "codex-acp", "confine": False}}}))
    info = found["mine"].info()
    assert info.state == "ready" and not info.confined
    assert info.confinement.startswith("not confined")
