"""The agents on offer: the built-in demo, the known ACP agents found on PATH, and the user's own.

User agents come from `<dir>/.canvas/config.toml`:

    [agents.mine]
    command = "my-agent"
    args = ["--acp"]
    env = { MY_FLAG = "1" }
    label = "My agent"
    confine = false        # run it unconfined (default: confined, see agents/sandbox.py)

    [agents.claude]        # a known agent: only whether it is confined
    confine = false

and so do the bounds on running agent processes (the models, and the errors that name a bad
key, are `server/config.py`'s):

    [agent_processes]
    max_running = 4        # agents running at once
    idle_minutes = 10      # an agent idle this long is stopped (and reloaded when prompted)
"""

from __future__ import annotations

import os
import shutil
import sys
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from canvasrelay.core.errors import ConfigError
from canvasrelay.protocol.core import AgentInfo
from canvasrelay.server.agents import sandbox as agent_sandbox
from canvasrelay.server.agents.agent_home import HomeNeeds
from canvasrelay.server.agents.agent_setups import codex_has_provider, opencode_has_provider
from canvasrelay.server.config import CONFIG_FILE, AgentEntry, CanvasConfig


@dataclass(frozen=True)
class ProcessLimits:
    max_running: int = 4
    idle_seconds: float = 600.0


def process_limits(config: CanvasConfig) -> ProcessLimits:
    table = config.agent_processes
    return ProcessLimits(table.max_running, table.idle_minutes * 60)


@dataclass(frozen=True)
class AgentSpec:
    id: str
    label: str
    command: str
    args: tuple[str, ...] = ()
    env: dict[str, str] = field(default_factory=dict)
    install: str | None = None
    """The command that installs it, for a known agent."""
    keys: str | None = None
    """The environment variable(s) its API key is read from, in words."""
    key_vars: tuple[str, ...] = ()
    """Variables any one of which holds a key it reads."""
    logins: tuple[str, ...] = ()
    """Files under its home that a login leaves."""
    login: str | None = None
    """How to log it in, in words."""
    refusal_as_error: bool = False
    """The agent tells its model why a call was refused only from an error answer."""
    confine: bool = True
    """Run it confined to the room's view of the project (`confine = false` opts out)."""
    offers_files: bool = True
    """Offer it canvas's ACP file methods. Gemini CLI takes a missing file's error answer for a
    failure, so it could not write a new file through them: it uses its own, confined like the others'."""
    reads: tuple[str, ...] = ()
    """What it reads from the host's home (login, config), bound read-only into its own home."""
    seeds: tuple[str, ...] = ()
    """What it rewrites as it runs, copied from the host's home into its own once."""
    has_provider: Callable[[Mapping[str, str]], bool] | None = None
    """Whether its own configuration names a model provider (then it needs none of `key_vars`)."""
    asking_mode: str | None = None
    """The mode its new sessions are put in, where it asks before a command or an edit."""

    def resolve(self) -> str | None:
        return shutil.which(self.command)

    def home_needs(self) -> HomeNeeds:
        return HomeNeeds(self.id, dict(self.env), self.reads, self.seeds)

    def info(self) -> AgentInfo:
        confinement = agent_sandbox.confinement(self.confine)
        info = AgentInfo(
            id=self.id,
            label=self.label,
            available=True,
            confined=confinement.confined,
            confinement=confinement.words,
        )
        found = self.resolve()
        if found is None:
            return info.model_copy(
                update={"available": False, "reason": self.missing(), "state": "not-installed", "install": self.install}
            )
        why = agent_sandbox.unreachable([found, *self.args], {**os.environ, **self.env}) if info.confined else None
        if why is not None:
            update = {"available": False, "reason": f"it cannot start confined: {why}", "state": "cannot-confine"}
            return info.model_copy(update={**update, "confined": False, "confinement": why})
        setup = self.needs_key()
        return info.model_copy(update={"state": "needs-key", "setup": setup}) if setup else info

    def missing(self) -> str:
        """Why it is not on offer, and what would make it so."""
        reason = f"{self.command} not found on PATH"
        if self.install:
            reason += f"; install it with `{self.install}`"
        if self.keys:
            reason += f"; it reads {self.keys}"
        return reason

    def needs_key(self) -> str | None:
        """How to give it a key or log it in, when neither its environment nor its home shows one."""
        if not self.key_vars:
            return None
        env = {**os.environ, **self.env}
        if any(env.get(name) for name in self.key_vars):
            return None
        if self.has_provider is not None and self.has_provider(env):
            return None
        home = Path(env.get("HOME") or Path.home())
        if any((home / login).exists() for login in self.logins):
            return None
        how = f"set {self.keys} before `canvas serve`"
        return f"{how}, or {self.login}" if self.login else how


DEMO = AgentSpec("demo", "Demo agent", sys.executable, ("-m", "canvasrelay.agents.demo"))

_CLAUDE: dict[str, Any] = {
    "install": "npm i -g @agentclientprotocol/claude-agent-acp",
    "keys": "ANTHROPIC_API_KEY",
    "key_vars": ("ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN", "CLAUDE_CODE_OAUTH_TOKEN"),
    "logins": (".claude/.credentials.json",),
    "login": "log in once with `claude` (npm i -g @anthropic-ai/claude-code) and its /login",
    "refusal_as_error": True,
    "reads": (".claude/.credentials.json", ".claude/settings.json", ".claude/CLAUDE.md"),
    "seeds": (".claude.json",),
    "asking_mode": "default",
}
KNOWN: tuple[tuple[AgentSpec, ...], ...] = (
    (
        AgentSpec("claude", "Claude Code", "claude-agent-acp", **_CLAUDE),
        AgentSpec("claude", "Claude Code", "claude-code-acp", **_CLAUDE),
    ),
    (
        AgentSpec(
            "codex",
            "Codex",
            "codex-acp",
            install="npm i -g @zed-industries/codex-acp",
            keys="OPENAI_API_KEY or CODEX_API_KEY",
            key_vars=("OPENAI_API_KEY", "CODEX_API_KEY"),
            logins=(".codex/auth.json",),
            login="log in once with `codex login` (npm i -g @openai/codex)",
            reads=(".codex/auth.json", ".codex/config.toml", ".codex/AGENTS.md"),
            has_provider=codex_has_provider,
        ),
    ),
    (
        AgentSpec(
            "gemini",
            "Gemini CLI",
            "gemini",
            ("--acp",),
            install="npm i -g @google/gemini-cli",
            keys="GEMINI_API_KEY",
            key_vars=("GEMINI_API_KEY", "GOOGLE_API_KEY", "GOOGLE_GENAI_USE_VERTEXAI"),
            logins=(".gemini/oauth_creds.json",),
            login="log in once by running `gemini` and choosing Google login",
            offers_files=False,
            reads=(
                ".gemini/settings.json",
                ".gemini/oauth_creds.json",
                ".gemini/google_accounts.json",
                ".gemini/trustedFolders.json",
                ".gemini/GEMINI.md",
            ),
        ),
    ),
    (
        AgentSpec(
            "opencode",
            "opencode",
            "opencode",
            ("acp",),
            install="npm i -g opencode-ai",
            keys="its provider's key (ANTHROPIC_API_KEY, OPENAI_API_KEY…)",
            key_vars=("ANTHROPIC_API_KEY", "OPENAI_API_KEY", "GEMINI_API_KEY", "OPENROUTER_API_KEY"),
            logins=(".local/share/opencode/auth.json",),
            login="log in once with `opencode auth login`",
            reads=(".config/opencode", ".local/share/opencode/auth.json"),
            has_provider=opencode_has_provider,
        ),
    ),
)


def _user_agent(name: str, entry: AgentEntry, command: str) -> AgentSpec:
    # One of the known agents run from elsewhere keeps what canvas knows of its ways.
    known = next((c[0] for c in KNOWN if c[0].id == name), None)
    return AgentSpec(
        name,
        entry.label or name,
        command,
        tuple(entry.args),
        dict(entry.env),
        refusal_as_error=known.refusal_as_error if known else False,
        asking_mode=known.asking_mode if known else None,
        offers_files=known.offers_files if known else True,
        reads=known.reads if known else (),
        seeds=known.seeds if known else (),
        confine=entry.confine,
    )


def discover(config: CanvasConfig) -> dict[str, AgentSpec]:
    """Every agent on offer by id; for a known agent with several commands, the first one installed."""
    found: dict[str, AgentSpec] = {DEMO.id: DEMO}
    for choices in KNOWN:
        installed = [spec for spec in choices if spec.resolve() is not None]
        spec = installed[0] if installed else choices[0]
        found[spec.id] = spec
    for name, entry in config.agents.items():
        if entry.command is not None:
            found[name] = _user_agent(name, entry, entry.command)
        elif name in found:
            found[name] = replace(found[name], confine=entry.confine)
        else:
            raise ConfigError(f"{CONFIG_FILE}: agents.{name}: needs a command ({name} is not an agent canvas knows)")
    return found
