"""canvas's own git, run with a configuration canvas controls.

canvas runs git unconfined, as the host, at once and with no click (to list and judge the shared
set), so nothing git would run on a file's say-so may reach it: no system or global config (an
agent that could write `~/.gitconfig` could name a `core.fsmonitor` program), the project's own
fsmonitor and hooks switched off from the command line (which outranks `.git/config`), and no
`GIT_*` variable of canvas's environment. What the host's global config says about ignoring
files (`core.excludesFile`) is read once, as a value, and passed on, so the shared set is the
one the host's own git sees.
"""

from __future__ import annotations

import functools
import os
import subprocess
from pathlib import Path

TIMEOUT_S = 10.0
SAFE_SETTINGS = ("-c", "core.fsmonitor=false", "-c", "core.hooksPath=/dev/null")


def git(root: Path, *args: str) -> list[str]:
    """The command line of `git -C root ARGS` as canvas runs it."""
    excludes = _host_excludes_file()
    extra = ("-c", f"core.excludesFile={excludes}") if excludes else ()
    return ["git", "-C", str(root), *SAFE_SETTINGS, *extra, *args]


def git_env(**more: str) -> dict[str, str]:
    env = {name: value for name, value in os.environ.items() if not name.startswith("GIT_")}
    return {**env, "GIT_CONFIG_NOSYSTEM": "1", "GIT_CONFIG_GLOBAL": os.devnull, **more}


@functools.cache
def _host_excludes_file() -> str | None:
    env = {name: value for name, value in os.environ.items() if not name.startswith("GIT_")}
    try:
        out = subprocess.run(
            ["git", "config", "--global", "--path", "--get", "core.excludesFile"],
            capture_output=True,
            timeout=TIMEOUT_S,
            check=False,
            env={**env, "GIT_CONFIG_NOSYSTEM": "1"},
        )
    except (OSError, subprocess.TimeoutExpired):
        return None
    value = out.stdout.decode("utf-8", "replace").strip()
    return value if out.returncode == 0 and value and "\n" not in value else None
