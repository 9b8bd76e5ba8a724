"""A confined agent's home: a folder canvas keeps for it, never the host's own.

Whatever an agent writes into its home (`~/.gitconfig` with an fsmonitor, `~/.bashrc`, canvas's
own `~/.config/canvas/permissions.toml`, another tool's hooks) would run later as the host if
the home were the host's. So a confined agent's `HOME` is a folder of its own under the data
folder of the home it would have had (`<data>/canvas/agent-homes/<folder mark>-<agent>`, 0700),
kept across restarts so an agent can reload its sessions, and the host's home is read-only
inside. What the agent needs from the host's home (its login and config, named in the agent's
table, and git's identity) is bound in read-only, at the same place under the agent's home; a
file the agent rewrites as it runs (Claude Code's `~/.claude.json`) is copied in once instead.
`HOME`, the XDG folders, the agents' own home variables (`CODEX_HOME`…) and every variable set
in the agent's table that names a place in the host's home name the same place in the agent's
home. (Not every variable of canvas's environment: `PYENV_ROOT` or `NVM_DIR` name programs the
agent runs from the host's home, read-only.)
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

HOME_DIR_MODE = 0o700
COMMON_READS = (".gitconfig", ".config/git")
"""Git's identity and settings: an agent's commits carry the host's name, and nothing it writes
reaches the host's git."""
AGENT_HOME_VARS = ("CODEX_HOME", "CLAUDE_CONFIG_DIR", "GEMINI_CLI_HOME", "OPENCODE_CONFIG_DIR")
XDG_HOMES = {
    ".config": "XDG_CONFIG_HOME",
    ".local/share": "XDG_DATA_HOME",
    ".local/state": "XDG_STATE_HOME",
    ".cache": "XDG_CACHE_HOME",
}


@dataclass(frozen=True)
class AgentHome:
    path: Path
    """The agent's own home, writable inside the sandbox."""
    real: Path
    """The home it would have had, read-only inside."""
    reads: list[tuple[Path, Path]] = field(default_factory=list)
    """(in the real home, in the agent's home): bound in read-only."""
    env: dict[str, str] = field(default_factory=dict)
    """The agent's variables that name a place in its home."""


@dataclass(frozen=True)
class HomeNeeds:
    """What one agent needs of a home: its id, the variables its table sets, and the names it
    reads (bound in read-only) or rewrites (copied in once) from the host's home."""

    agent_id: str
    own: Mapping[str, str] = field(default_factory=dict)
    reads: tuple[str, ...] = ()
    seeds: tuple[str, ...] = ()


def real_home(env: Mapping[str, str]) -> Path:
    return Path(env.get("HOME") or Path.home()).resolve()


def home_folder(mark: str, agent_id: str, env: Mapping[str, str]) -> Path:
    """Where canvas keeps the home of one agent of one project folder."""
    real = real_home(env)
    data = Path(env.get("XDG_DATA_HOME") or real / ".local" / "share")
    return data / "canvas" / "agent-homes" / f"{mark}-{agent_id}"


def prepare(mark: str, needs: HomeNeeds, env: Mapping[str, str], root: Path) -> AgentHome:
    """The agent's home made (0700) and filled with its seeds; what to bind and set inside.
    `env` is the agent's whole environment."""
    real = real_home(env)
    path = home_folder(mark, needs.agent_id, env)
    _make_private(path)
    for name in needs.seeds:
        _seed(_in_real_home(real, name, env), path / name)
    bound = [
        (source, path / name)
        for name in dict.fromkeys((*COMMON_READS, *needs.reads))
        if (source := _in_real_home(real, name, env)).exists()
    ]
    return AgentHome(path, real, bound, _rebased(env, needs.own, real, path, root))


def _in_real_home(real: Path, name: str, env: Mapping[str, str]) -> Path:
    """`name` (as under a home with the usual folders) where the host keeps it: under
    `XDG_CONFIG_HOME` for `.config/…` when that is set, and so on."""
    for prefix, variable in XDG_HOMES.items():
        if (name == prefix or name.startswith(prefix + "/")) and env.get(variable):
            return Path(env[variable]) / name[len(prefix) + 1 :]
    return real / name


def _rebased(env: Mapping[str, str], own: Mapping[str, str], real: Path, home: Path, root: Path) -> dict[str, str]:
    """HOME and the XDG folders in the agent's home; the agents' home variables and those of its
    table that name a place in the real home (not a list of places, nor one in the project),
    moved to the same place in the agent's home."""
    moved = {"HOME": str(home), **{variable: str(home / prefix) for prefix, variable in XDG_HOMES.items()}}
    candidates = {name: env[name] for name in AGENT_HOME_VARS if name in env} | dict(own)
    for name, value in candidates.items():
        if name in moved or ":" in value or not value.startswith("/"):
            continue
        place = Path(os.path.normpath(value))
        if place.is_relative_to(real) and not place.is_relative_to(root):
            moved[name] = str(home / place.relative_to(real))
            if place.is_dir():
                # A folder the agent keeps things in (its temporary files, say) is there for it.
                Path(moved[name]).mkdir(mode=HOME_DIR_MODE, parents=True, exist_ok=True)
    return moved


def _make_private(path: Path) -> None:
    path.mkdir(mode=HOME_DIR_MODE, parents=True, exist_ok=True)
    for folder in (path, path.parent):
        if not folder.is_symlink():
            os.chmod(folder, HOME_DIR_MODE)


def _seed(source: Path, target: Path) -> None:
    if target.exists() or target.is_symlink() or not source.is_file():
        return
    target.parent.mkdir(mode=HOME_DIR_MODE, parents=True, exist_ok=True)
    shutil.copyfile(source, target, follow_symlinks=False)
    os.chmod(target, 0o600)
