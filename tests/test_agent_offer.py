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


def test_a_provider_in_the_agents_own_config_makes_it_ready(
    codex_on_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Codex with a provider in `config.toml`, opencode with one in `opencode.json`: both set-ups
    the README names, neither a key canvas sees; a config that picks no provider still needs one."""
    codex = codex_on_path / ".codex"
    codex.mkdir()
    (codex / "config.toml").write_text('model = "m"\n')
    assert discover(CanvasConfig())["codex"].info().state == "needs-key"
    (codex / "config.toml").write_text(
        'model_provider = "local"\n[model_providers.local]\nbase_url = "http://127.0.0.1:1/v1"\n'
    )
    assert discover(CanvasConfig())["codex"].info().state == "ready"

    opencode = codex_on_path.parent / "bin" / "opencode"
    opencode.write_text("#!/bin/sh\n")
    opencode.chmod(0o755)
    for name in ("ANTHROPIC_API_KEY", "OPENAI_API_KEY", "GEMINI_API_KEY", "OPENROUTER_API_KEY"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.delenv("XDG_CONFIG_HOME", raising=False)
    assert discover(CanvasConfig())["opencode"].info().state == "needs-key"
    folder = codex_on_path / ".config" / "opencode"
    folder.mkdir(parents=True)
    (folder / "opencode.json").write_text('{"provider": {"local": {"options": {"baseURL": "http://x/v1"}}}}')
    assert discover(CanvasConfig())["opencode"].info().state == "ready"


def test_a_missing_agent_says_how_to_install_it(codex_on_path: Path) -> None:
    info = discover(CanvasConfig())["gemini"].info()
    assert not info.available and info.state == "not-installed"
    assert info.install == "npm i -g @google/gemini-cli"


def test_the_host_s_own_agent_is_ready_and_says_whether_it_is_confined(codex_on_path: Path) -> None:
    found = discover(CanvasConfig.model_validate({"agents": {"mine": {"command": "codex-acp", "confine": False}}}))
    info = found["mine"].info()
    assert info.state == "ready" and not info.confined
    assert info.confinement.startswith("not confined")
