"""The four real ACP agents, installed by `npm ci` in this folder, set up as a user would to talk
to a custom endpoint (here the fake models) with a dummy key, in a temporary HOME.

`setup(name, fake_url, home, root)` writes the agent's own config files and returns its entry for
`.canvas/config.toml`; `lacking(name)` says what an agent lacks to run on this machine, or None.
"""

from __future__ import annotations

import json
import shutil
from dataclasses import dataclass
from pathlib import Path

HERE = Path(__file__).resolve().parent
BIN = HERE / "node_modules" / ".bin"
AGENTS = ("claude", "codex", "gemini", "opencode")
DUMMY_KEY = "sk-canvas-interop-dummy"
FAKE_MODEL = "fake-model"


@dataclass(frozen=True)
class RealAgent:
    name: str
    command: str
    args: tuple[str, ...] = ()


COMMANDS = {
    "claude": RealAgent("claude", "claude-agent-acp"),
    "codex": RealAgent("codex", "codex-acp"),
    "gemini": RealAgent("gemini", "gemini", ("--acp",)),
    "opencode": RealAgent("opencode", "opencode", ("acp",)),
}


def lacking(name: str) -> tuple[str, str] | None:
    """What this machine lacks to run the agent, and how to install it; None when it can run."""
    if shutil.which("node") is None:
        return "node", "apt-get install -y nodejs npm"
    binary = BIN / COMMANDS[name].command
    if not binary.exists():
        return binary.name, f"cd {HERE} && npm ci"
    return None


def setup(name: str, fake_url: str, home: Path, root: Path) -> str:
    """The `[agents.<name>]` table for `.canvas/config.toml`, with the agent's files written."""
    home.mkdir(parents=True, exist_ok=True)
    tmp = home / "tmp"
    tmp.mkdir(exist_ok=True)
    env = {
        "HOME": str(home),
        "XDG_CONFIG_HOME": str(home / ".config"),
        "XDG_DATA_HOME": str(home / ".local" / "share"),
        "XDG_STATE_HOME": str(home / ".local" / "state"),
        "XDG_CACHE_HOME": str(home / ".cache"),
        # Its temporary files (Bun's libraries, Claude Code's shell snapshots) stay in the test's folder.
        "TMPDIR": str(tmp),
        "CLAUDE_CODE_TMPDIR": str(tmp),
        "NO_COLOR": "1",
    }
    env.update(_SETUPS[name](fake_url, home, root))
    agent = COMMANDS[name]
    args = ", ".join(json.dumps(a) for a in agent.args)
    env_items = ", ".join(f"{k} = {json.dumps(v)}" for k, v in env.items())
    return (
        f"[agents.{name}]\ncommand = {json.dumps(str(BIN / agent.command))}\nargs = [{args}]\n"
        f"label = {json.dumps(name)}\nenv = {{ {env_items} }}\n"
    )


def _claude(fake_url: str, home: Path, root: Path) -> dict[str, str]:
    return {
        "ANTHROPIC_BASE_URL": fake_url,
        "ANTHROPIC_API_KEY": DUMMY_KEY,
        # Claude Code refuses to skip its prompts as root unless told it runs in a sandbox.
        "IS_SANDBOX": "1",
        "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
        "DISABLE_AUTOUPDATER": "1",
        "DISABLE_TELEMETRY": "1",
        # Claude Code hides MCP tools (the board's) behind its ToolSearch, which the stand-in
        # models do not speak: it lists them to the model up front.
        "ENABLE_TOOL_SEARCH": "false",
    }


def _codex(fake_url: str, home: Path, root: Path) -> dict[str, str]:
    codex_home = home / ".codex"
    codex_home.mkdir(parents=True, exist_ok=True)
    (codex_home / "config.toml").write_text(
        f'model = "{FAKE_MODEL}"\n'
        'model_provider = "fake"\n'
        'approval_policy = "untrusted"\n'
        'sandbox_mode = "danger-full-access"\n'
        "[model_providers.fake]\n"
        'name = "fake"\n'
        f'base_url = "{fake_url}/v1"\n'
        'wire_api = "responses"\n'
        'env_key = "FAKE_MODELS_KEY"\n'
        f'[projects."{root}"]\n'
        'trust_level = "trusted"\n'
    )
    return {"CODEX_HOME": str(codex_home), "FAKE_MODELS_KEY": DUMMY_KEY}


def _gemini(fake_url: str, home: Path, root: Path) -> dict[str, str]:
    folder = home / ".gemini"
    folder.mkdir(parents=True, exist_ok=True)
    # Gemini CLI loads a folder's tools (canvas's board tools among them) only once it is trusted.
    (folder / "trustedFolders.json").write_text(json.dumps({str(root): "TRUST_FOLDER"}))
    settings = {
        "security": {"auth": {"selectedType": "gemini-api-key"}, "folderTrust": {"enabled": True}},
        "privacy": {"usageStatisticsEnabled": False},
        "general": {"disableAutoUpdate": True, "disableUpdateNag": True},
        "telemetry": {"enabled": False},
    }
    (folder / "settings.json").write_text(json.dumps(settings))
    return {"GEMINI_API_KEY": DUMMY_KEY, "GOOGLE_GEMINI_BASE_URL": fake_url}


def _opencode(fake_url: str, home: Path, root: Path) -> dict[str, str]:
    config = {
        "$schema": "https://opencode.ai/config.json",
        "model": f"fake/{FAKE_MODEL}",
        "provider": {
            "fake": {
                "npm": "@ai-sdk/openai-compatible",
                "name": "Fake models",
                "options": {"baseURL": f"{fake_url}/v1", "apiKey": DUMMY_KEY},
                "models": {FAKE_MODEL: {"name": "Fake model", "tool_call": True}},
            }
        },
        "autoupdate": False,
        "share": "disabled",
        # opencode edits and runs commands unasked by default; a host wants to be asked.
        "permission": {"edit": "ask", "bash": "ask", "webfetch": "ask"},
    }
    return {
        "OPENCODE_CONFIG_CONTENT": json.dumps(config),
        "OPENCODE_DISABLE_MODELS_FETCH": "1",
        "OPENCODE_DISABLE_AUTOUPDATE": "1",
        "OPENCODE_DISABLE_LSP_DOWNLOAD": "1",
        "OPENCODE_DISABLE_DEFAULT_PLUGINS": "1",
    }


_SETUPS = {"claude": _claude, "codex": _codex, "gemini": _gemini, "opencode": _opencode}
