"""Confinement of an agent process: the room's view of the project, and nothing that runs later.

Real agents read and write with their own tools, not through canvas's ACP `fs` methods, so
permission rules see only what an agent chooses to ask about. What an agent must never read
(`.canvas/` with the host token and key, `.env*`, keys, VCS credentials, `.canvasignore`d
files) is therefore taken out of its sight, and what it must never write (anything the host
runs or obeys later) out of its reach: on Linux the agent runs under bubblewrap with

- the whole file system read-only, the host's home included; writable only the project and a
  home of the agent's own (`agent_home.py`), and a private, empty `/tmp`, into which what the
  agent runs from (its program, interpreter and prefix) is bound read-only when it lives there;
- every never-shared name found in the project (and the credential folders of the homes)
  covered: a folder by an empty read-only one, a file by an empty read-only file;
- the project's files that run code later or say what canvas allows (`core/runs_later.py`:
  `.git/hooks/`, `.canvasignore`, editors' tasks…) read-only;
- a user namespace of its own, with every capability dropped and, when canvas runs as root, an
  unprivileged user: no cover can be unmounted and no raw socket opened; no namespace may be
  made inside;
- its own pid namespace, so it cannot reach canvas's `/proc/<pid>/root` (the real disk), and
  every process it starts dies with it; the network is left as it is.

Elsewhere, or without bubblewrap, the agent runs as the host's user and the agents' list says so.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import subprocess
import sys
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path

import pathspec

import canvasrelay
from canvasrelay.core.runs_later import GIT_PROTECTED, RUNS_LATER_DIRS, RUNS_LATER_FILES, project_relative
from canvasrelay.server.agents.agent_home import AgentHome
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
HIDDEN_ROOT = Path("/tmp")
"""The one place the sandbox hides (its `/tmp` is its own): what an agent runs from there is bound in."""
UNPRIVILEGED = "65534"
"""The agent's user and group inside when canvas runs as root: nobody's, which every system has."""
SHEBANG_MAX = 256


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
    return Confinement(
        True, "confined: it cannot see .canvas/ or never-shared files, and writes only in the project and its own home"
    )


def unreachable(argv: list[str], env: Mapping[str, str]) -> str | None:
    """Why `argv` could not start inside the sandbox, in words, or None: its program or the
    interpreter its first line names is missing, or lies where the sandbox covers it."""
    try:
        _reachable_programs(argv, env)
    except SandboxError as exc:
        return str(exc)
    return None


def _reachable_programs(argv: list[str], env: Mapping[str, str]) -> list[Path]:
    """What `argv` runs (`_programs`), each checked to lie where the sandbox does not cover it;
    raises `SandboxError`, in words, for one that does or is missing."""
    programs = _programs(argv, env)
    homes = [Path.home(), Path(env.get("HOME") or Path.home())]
    for program in programs:
        covered = next((path for path in hidden_in_homes(homes) if program.is_relative_to(path)), None)
        if covered is not None:
            raise SandboxError(f"{program} lies in {covered}, which the sandbox covers")
    return programs


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
    for home in dict.fromkeys(homes):
        for name in HOME_SECRETS:
            if (home / name).exists():
                yield home / name


def wrap(argv: list[str], root: Path, env: Mapping[str, str], home: AgentHome) -> list[str]:
    """`argv` run under bubblewrap, confined to the room's view of `root` (see the module's words),
    with `home` as its home. Walks the project: call it off the event loop."""
    bwrap = bubblewrap()
    if bwrap is None:
        raise SandboxError("bubblewrap (bwrap) is not installed")
    root = root.resolve()
    try:
        programs = _reachable_programs(argv, env)
    except SandboxError as exc:
        raise SandboxError(f"it cannot start confined: {exc}") from None
    hidden = list(dict.fromkeys([*hidden_in_homes([Path.home(), home.real]), *hidden_in_project(root)]))
    command = [bwrap, "--die-with-parent", "--unshare-pid", "--unshare-user", "--disable-userns", "--cap-drop", "ALL"]
    if os.geteuid() == 0:
        command += ["--uid", UNPRIVILEGED, "--gid", UNPRIVILEGED]
    command += ["--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc"]
    command += ["--tmpfs", str(HIDDEN_ROOT), "--setenv", "TMPDIR", str(HIDDEN_ROOT)]
    for prefix in prefixes_in_tmp(programs, argv):
        command += ["--ro-bind", str(prefix), str(prefix)]
    command += ["--bind", str(home.path), str(home.path)]
    for source, target in home.reads:
        command += ["--ro-bind", str(source), str(target)]
    for name, value in home.env.items():
        command += ["--setenv", name, value]
    command += ["--bind", str(root), str(root)]
    for path in runs_later_in_project(root):
        if not any(path.is_relative_to(cover) for cover in hidden):
            command += ["--ro-bind", str(path), str(path)]
    empty = _empty_file(root)
    for path in hidden:
        if path.is_dir() and not path.is_symlink():
            command += ["--tmpfs", str(path), "--remount-ro", str(path)]
        else:
            command += ["--ro-bind", str(empty), str(path)]
    return [*command, "--chdir", str(root), "--", *argv]


def runs_later_in_project(root: Path) -> list[Path]:
    """The files and folders of `root` that run code later (`core/runs_later.py`), as they are now,
    with the folder git's `core.hooksPath` names when it lies in the project. Links are left
    alone: what one points to is covered where it lies, or lies outside and is read-only."""
    names = [*(f".git/{name}" for name in GIT_PROTECTED), *RUNS_LATER_DIRS, *RUNS_LATER_FILES]
    hooks = _hooks_path(root)
    if hooks is not None:
        names.append(hooks)
    found = [root / name for name in names]
    return [path for path in dict.fromkeys(found) if path.exists() and not path.is_symlink()]


def _hooks_path(root: Path) -> str | None:
    """Where the project's git config says its hooks are, relative to `root`, if inside it. Read
    with `git config --file`, which runs nothing the file names."""
    config = root / ".git" / "config"
    if not config.is_file():
        return None
    try:
        out = subprocess.run(
            ["git", "config", "--file", str(config), "--get", "core.hooksPath"],
            capture_output=True,
            timeout=10,
            check=False,
            env={"PATH": os.environ.get("PATH", os.defpath), "GIT_CONFIG_NOSYSTEM": "1"},
        )
    except (OSError, subprocess.TimeoutExpired):
        return None
    value = out.stdout.decode("utf-8", "replace").strip()
    return project_relative(value, str(root)) if out.returncode == 0 and value else None


def prefixes_in_tmp(programs: list[Path], argv: list[str]) -> list[Path]:
    """What `programs` (`_programs`) run from that lies under `/tmp`, which the sandbox replaces
    with its own: each program's prefix (the folder holding its `bin/` or its `node_modules/`), the
    prefix of each file the command names by its absolute path (`node /tmp/x/agent.js`), the folders
    a Python prefix's `.pth` files add (an editable install's source), and for canvas's own
    interpreter (the demo agent) its prefixes and the `canvasrelay` package."""
    named = [Path(os.path.abspath(arg)) for arg in argv[1:] if os.path.isabs(arg) and os.path.isfile(arg)]
    places = [_prefix(program) for program in [*programs, *named]]
    if Path(sys.executable).resolve() in {program.resolve() for program in [*programs, *named]}:
        places += [Path(sys.prefix), Path(sys.base_prefix), Path(canvasrelay.__file__).resolve().parent]
    places += [reach for place in places for reach in _pth_reaches(place)]
    return _topmost(place for place in places if place.is_relative_to(HIDDEN_ROOT) and place != HIDDEN_ROOT)


def _pth_reaches(prefix: Path) -> list[Path]:
    """The folders the `.pth` files of a Python prefix's site-packages add to its path."""
    reaches: list[Path] = []
    for pth in prefix.glob("lib/python*/site-packages/*.pth"):
        with contextlib.suppress(OSError, UnicodeDecodeError):
            lines = pth.read_text("utf-8").splitlines()
            reaches += [Path(line) for line in lines if line.startswith("/") and Path(line).is_dir()]
    return reaches


def _programs(argv: list[str], env: Mapping[str, str]) -> list[Path]:
    """The program `argv` starts, as named and resolved, and the interpreter its first line
    names (through `env`), each as named and resolved; raises `SandboxError` if one is missing."""
    found = shutil.which(argv[0], path=env.get("PATH"))
    if found is None:
        raise SandboxError(f"{argv[0]} is not found")
    programs = [Path(os.path.abspath(found)), Path(found).resolve()]
    interpreter = _interpreter(programs[-1], env)
    if interpreter is not None:
        programs += [interpreter, interpreter.resolve()]
    return list(dict.fromkeys(programs))


def _interpreter(program: Path, env: Mapping[str, str]) -> Path | None:
    try:
        with program.open("rb") as file:
            first = file.readline(SHEBANG_MAX)
    except OSError:
        return None
    if not first.startswith(b"#!"):
        return None
    words = first[2:].decode("utf-8", "replace").split()
    if not words:
        return None
    if Path(words[0]).name == "env":
        named = next((word for word in words[1:] if not word.startswith("-")), None)
        found = shutil.which(named, path=env.get("PATH")) if named else None
        if found is None:
            raise SandboxError(f"{program.name} is run by {named or 'env'}, which is not found")
        return Path(os.path.abspath(found))
    if not Path(words[0]).exists():
        raise SandboxError(f"{program.name} is run by {words[0]}, which is not found")
    return Path(words[0])


def _prefix(program: Path) -> Path:
    parts = program.parts
    if "node_modules" in parts:
        return Path(*parts[: parts.index("node_modules") + 1])
    if program.parent.name == "bin":
        return program.parent.parent
    return program.parent


def _topmost(places: Iterable[Path]) -> list[Path]:
    kept: list[Path] = []
    for place in sorted(set(places), key=lambda path: len(path.parts)):
        if not any(place.is_relative_to(outer) for outer in kept):
            kept.append(place)
    return kept


def _empty_file(root: Path) -> Path:
    """An empty regular file to cover secrets with: read, they are empty (git reads an empty
    `.git/config` and goes on; `/dev/null` on a nodev mount would refuse every read)."""
    path = root / CANVAS_DIR / EMPTY_FILE
    if not path.is_file() or path.stat().st_size:
        path.parent.mkdir(mode=0o700, exist_ok=True)
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_NOFOLLOW, 0o400)
        os.close(fd)
    return path
