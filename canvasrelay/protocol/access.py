"""Access levels and the actions a frame asks the policy for: part of the wire contract."""

from __future__ import annotations

from enum import StrEnum


class Access(StrEnum):
    VIEW = "view"
    EDIT = "edit"
    TRUSTED = "trusted"
    HOST = "host"

    @property
    def rank(self) -> int:
        return _RANK[self]


_RANK = {Access.VIEW: 0, Access.EDIT: 1, Access.TRUSTED: 2, Access.HOST: 3}


class Action(StrEnum):
    READ = "read"
    """See the board, sessions, terminals and open files; keep-alive and presence."""
    EDIT_BOARD = "edit-board"
    """Edit the board and draft prompts."""
    BROWSE_FILES = "browse-files"
    """Browse the file tree and open shared files."""
    RUN_ON_HOST = "run-on-host"
    """Prompt, start, cancel or configure an agent, or start a shell: it runs on the host's machine."""
    TYPE_TERMINAL = "type-terminal"
    """Type into (or resize) a terminal."""
    ANSWER_PERMISSION = "answer-permission"
    """Answer an agent's tool permission."""
    ASK = "ask"
    """Ask the host for more access or for a terminal: the request waits for the host's answer."""
    ADMIN = "admin"
    """Change access, kick, approve requests."""
