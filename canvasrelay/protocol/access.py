"""Access levels, the actions a frame asks the policy for, and the table of who may do what: part of
the wire contract, generated to TypeScript so the web app draws what the core decides."""

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


class Decision(StrEnum):
    ALLOW = "allow"
    ASK_HOST = "ask-host"
    DENY = "deny"


_ALLOW, _ASK, _DENY = Decision.ALLOW, Decision.ASK_HOST, Decision.DENY

ACCESS_TABLE: dict[Action, dict[Access, Decision]] = {
    Action.READ: {Access.VIEW: _ALLOW, Access.EDIT: _ALLOW, Access.TRUSTED: _ALLOW, Access.HOST: _ALLOW},
    Action.EDIT_BOARD: {Access.VIEW: _DENY, Access.EDIT: _ALLOW, Access.TRUSTED: _ALLOW, Access.HOST: _ALLOW},
    Action.BROWSE_FILES: {Access.VIEW: _DENY, Access.EDIT: _ALLOW, Access.TRUSTED: _ALLOW, Access.HOST: _ALLOW},
    Action.RUN_ON_HOST: {Access.VIEW: _DENY, Access.EDIT: _ASK, Access.TRUSTED: _ALLOW, Access.HOST: _ALLOW},
    Action.TYPE_TERMINAL: {Access.VIEW: _DENY, Access.EDIT: _DENY, Access.TRUSTED: _ALLOW, Access.HOST: _ALLOW},
    Action.ANSWER_PERMISSION: {
        Access.VIEW: _DENY,
        Access.EDIT: _DENY,
        Access.TRUSTED: _DENY,
        Access.HOST: _ALLOW,
    },
    Action.ASK: {Access.VIEW: _ASK, Access.EDIT: _ASK, Access.TRUSTED: _ASK, Access.HOST: _ALLOW},
    Action.ADMIN: {Access.VIEW: _DENY, Access.EDIT: _DENY, Access.TRUSTED: _DENY, Access.HOST: _ALLOW},
}
"""Who may do what (README, "Security model"); `core.policy.decide` reads it."""

TERMINAL_HOLDERS = (Access.VIEW, Access.EDIT)
"""The access levels that type into a terminal only once the host hands it to them (and ask for it)."""
