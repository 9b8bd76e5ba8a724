"""What an agent's own configuration says about its model provider: an agent set up with a
provider of its own (Codex's `config.toml`, opencode's `opencode.json`) needs none of the keys
canvas looks for in the environment, so the menu must not say it needs one."""

from __future__ import annotations

import json
import tomllib
from collections.abc import Mapping
from pathlib import Path
from typing import Any

CONFIG_MAX = 1024 * 1024


def codex_has_provider(env: Mapping[str, str]) -> bool:
    """`~/.codex/config.toml` (or `$CODEX_HOME/config.toml`) picks a provider it defines."""
    home = Path(env.get("CODEX_HOME") or Path(env.get("HOME") or Path.home()) / ".codex")
    config = _read(home / "config.toml", tomllib.loads)
    provider = config.get("model_provider")
    providers = config.get("model_providers")
    return isinstance(provider, str) and isinstance(providers, dict) and isinstance(providers.get(provider), dict)


def opencode_has_provider(env: Mapping[str, str]) -> bool:
    """opencode's config (`OPENCODE_CONFIG_CONTENT`, `OPENCODE_CONFIG`, or `opencode.json` in its
    config folder) defines a provider."""
    configs: list[dict[str, Any]] = []
    if env.get("OPENCODE_CONFIG_CONTENT"):
        configs.append(_parse(env["OPENCODE_CONFIG_CONTENT"], json.loads))
    if env.get("OPENCODE_CONFIG"):
        configs.append(_read(Path(env["OPENCODE_CONFIG"]), json.loads))
    config_home = Path(env.get("XDG_CONFIG_HOME") or Path(env.get("HOME") or Path.home()) / ".config")
    configs += [_read(config_home / "opencode" / name, json.loads) for name in ("opencode.json", "config.json")]
    return any(isinstance(config.get("provider"), dict) and config["provider"] for config in configs)


def _read(path: Path, parse: Any) -> dict[str, Any]:
    try:
        if path.stat().st_size > CONFIG_MAX:
            return {}
        return _parse(path.read_text(encoding="utf-8", errors="replace"), parse)
    except OSError:
        return {}


def _parse(text: str, parse: Any) -> dict[str, Any]:
    try:
        found = parse(text)
    except ValueError:
        return {}
    return found if isinstance(found, dict) else {}
