"""Confinement of an agent process: the room's view of the project, and nothing more to write.

Real agents read and write with their own tools, not through canvas's ACP `fs` methods, so
permission rules see only what an agent chooses to ask about. What an agent must never read
(`.canvas/` with the host token and key, `.env*`, keys, VCS credentials, `.canvasignore`d
files) is therefore taken out of its sight: on Linux the agent runs under bubblewrap with

- the whole file system read-only, the project, the agent's home and its cache, config and
  data folders writable, and a private, empty `/tmp`;
- every never-shared name found in the project (and the credential folders of the homes)
  covered: a folder by an empty read-only one, a file by an empty read-only file;
- its own pid namespace, so it cannot reach canvas's `/proc/<pid>/root` (the real disk), and
  every process it starts dies with it; the network is left as it is.

Elsewhere, or without bubblewrap, the agent runs as the host's user and the agents' list says so.
"""

from __future__ import annotations

import os
import shutil
import sys
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path

import pathspec

from canvasrelay.server.files.shared_set import never_reason

BWRAP = "bwrap"
CANVAS_DIR = ".canvas"
EMPTY_FILE = "empty"
MAX_MASKS = 2000
"""Beyond this many never-shared names the agent is not started: a mount each, and a project
with thousands of key files is one a host should look at first."""
VCS_DIRS = frozenset({".git", ".hg", ".svn"})
VCS_SECRETS = {".git": ("config", "credentials"), ".hg": ("hgrc",), ".svn": ("auth",)}
"""Agents work with the repository, so VCS folders stay but their credential files are covered."""
HOME_SECRETS = (
    ".ssh",
    ".gnupg",
    ".aws",
    ".azure",
    ".kube",
    ".docker/config.json",
    ".config/gcloud",
    ".config/gh",
    ".netrc",
    ".npmrc",
    ".pypirc",
    ".pgpass",
    ".git-credentials",
)
WRITABLE_ENV = ("HOME", "XDG_CACHE_HOME", "XDG_CONFIG_HOME", "XDG_DATA_HOME", "XDG_STATE_HOME")


class SandboxError(Exception):
    """The agent cannot be confined as asked; the message says why, in words."""


@dataclass(frozen=True)
class Confinement:
    """Whether an agent will run confined, in words for the agents' list."""

    confined: bool
    words: str


def bubblewrap() -> str | None:
    return shutil.which(BWRAP) if sys.platform.startswith("linux") else None


def confinement(wanted: bool) -> Confinement:
    if not wanted:
        return Confinement(False, "not confined (confine = false): it reads and writes what your user can")
    if bubblewrap() is None:
        why = "bubblewrap (bwrap) is not installed" if sys.platform.startswith("linux") else "no sandbox on this system"
        return Confinement(False, f"not confined: {why}, so it reads and writes what your user can")
    return Confinement(True, "confined: it cannot see .canvas/ or never-shared files, and writes only in the project")


def hidden_in_project(root: Path) -> list[Path]:
    """The never-shared files and folders under `root`, topmost only (a hidden folder's contents
    go with it). Links are not followed: what one points to outside is outside the project."""
    canvasignore = _spec(root / ".canvasignore")
    found: list[Path] = []
    for folder, dirs, files in os.walk(root, followlinks=False):
        rel = Path(folder).relative_to(root).parts
        kept = []
        for name in dirs:
            if name in VCS_DIRS:
                found += [Path(folder, name, secret) for secret in VCS_SECRETS[name]]
            elif _hidden((*rel, name), canvasignore, is_dir=True):
                found.append(Path(folder, name))
            else:
                kept.append(name)
        dirs[:] = kept
        found += [Path(folder, name) for name in files if _hidden((*rel, name), canvasignore, is_dir=False)]
        if len(found) > MAX_MASKS:
            raise SandboxError(f"more than {MAX_MASKS} never-shared files in {root}: not starting an agent among them")
    return [path for path in found if path.exists()]


def _hidden(parts: tuple[str, ...], canvasignore: pathspec.PathSpec | None, is_dir: bool) -> bool:
    if never_reason(parts) is not None:
        return True
    rel = "/".join(parts) + ("/" if is_dir else "")
    return canvasignore is not None and bool(canvasignore.check_file(rel).include)


def _spec(path: Path) -> pathspec.PathSpec | None:
    try:
        return pathspec.GitIgnoreSpec.from_lines(path.read_text(encoding="utf-8", errors="replace").splitlines())
    except OSError:
        return None


def hidden_in_homes(homes: list[Path]) -> Iterator[Path]:
    for home in homes:
        for name in HOME_SECRETS:
            if (home / name).exists():
                yield home / name


def writable_folders(root: Path, env: Mapping[str, str]) -> list[Path]:
    """The project, then the agent's home and its XDG folders (those that exist), parents first."""
    folders = {Path(env[name]).resolve() for name in WRITABLE_ENV if env.get(name) and Path(env[name]).is_dir()}
    folders.discard(Path("/"))
    return [*sorted(folders, key=lambda path: len(path.parts)), root]


def wrap(argv: list[str], root: Path, env: Mapping[str, str]) -> list[str]:
    """`argv` run under bubblewrap, confined to the room's view of `root` (see the module's words).
    Walks the project: call it off the event loop."""
    bwrap = bubblewrap()
    if bwrap is None:
        raise SandboxError("bubblewrap (bwrap) is not installed")
    root = root.resolve()
    writable = writable_folders(root, env)
    homes = [path for path in {Path.home(), Path(env.get("HOME") or Path.home())} if path.is_dir()]
    hidden = [*hidden_in_homes(homes), *hidden_in_project(root)]
    command = [bwrap, "--die-with-parent", "--unshare-pid", "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc"]
    command += ["--tmpfs", "/tmp", "--setenv", "TMPDIR", "/tmp"]
    for folder in writable:
        command += ["--bind", str(folder), str(folder)]
    empty = _empty_file(root)
    for path in hidden:
        if path.is_dir() and not path.is_symlink():
            command += ["--tmpfs", str(path), "--remount-ro", str(path)]
        else:
            command += ["--ro-bind", str(empty), str(path)]
    return [*command, "--chdir", str(root), "--", *argv]


def _empty_file(root: Path) -> Path:
    """An empty regular file to cover secrets with: read, they are empty (git reads an empty
    `.git/config` and goes on; `/dev/null` on a nodev mount would refuse every read)."""
    path = root / CANVAS_DIR / EMPTY_FILE
    if not path.is_file() or path.stat().st_size:
        path.parent.mkdir(mode=0o700, exist_ok=True)
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_NOFOLLOW, 0o400)
        os.close(fd)
    return path
