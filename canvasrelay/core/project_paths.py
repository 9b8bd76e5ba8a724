"""What an agent says about paths, as the room may hear it.

Agents name files by absolute path (tool-call locations, diffs, raw inputs, even their prose),
and everything an agent says goes into a session log every guest receives. Guests are told the
project's name, never where it lives on the host's machine, so before anything an agent sends
is recorded, the project's folder becomes relative ("src/app.py", "." for the folder itself) and
the host's home folder becomes "~". The permission rules match relative paths the same way, so
the host's rules and answers are unchanged.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Mapping
from typing import Any

_PATH_CHAR = r"[\w.\-]"
_PLACE_END = r"(?![\w\-/]|\.[\w\-])"
"""Where a folder's name ends: not inside a longer name, though a sentence's full stop may follow."""


class ProjectPaths:
    """Rewrites the absolute paths of one project folder (and the host's home) in JSON values."""

    def __init__(self, root: str, home: str | None = None) -> None:
        project, home_dir = root.rstrip("/"), (home or "").rstrip("/")
        # The project first: it usually lies inside home, and its paths should read as its own.
        places = [(project, ".")] + ([(home_dir, "~")] if home_dir and home_dir != project else [])
        self._patterns = [
            # A place ends where a path component does: `/home/ada/proj` is not `/home/ada/project`.
            (re.compile(re.escape(place) + rf"(?:(?P<inside>/)(?={_PATH_CHAR})|/?{_PLACE_END})"), name)
            for place, name in places
            if place
        ]

    def text(self, text: str) -> str:
        for pattern, name in self._patterns:
            text = pattern.sub(functools.partial(_replacement, name=name), text)
        return text

    def value(self, value: Any) -> Any:
        """`value` with every string in it (keys included) rewritten; other values as they are."""
        if isinstance(value, str):
            return self.text(value)
        if isinstance(value, Mapping):
            return {self.value(k): self.value(v) for k, v in value.items()}
        if isinstance(value, list | tuple):
            return [self.value(v) for v in value]
        return value


def _replacement(match: re.Match[str], name: str) -> str:
    # The project's own files read as plain relative paths ("src/a.py"); under home, "~/x".
    if match.group("inside"):
        return "" if name == "." else name + "/"
    return name + "/" if match.group(0).endswith("/") else name
