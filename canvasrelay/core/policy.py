"""Who may do what: the access table (README, "Security model") as one pure function.

Every frame names the action it asks for; the Room asks `decide` before any handler runs,
so no guest frame reaches a shell, an agent or the board unless this table says so.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from canvasrelay.protocol.access import Access, Action
from canvasrelay.protocol.words import denial


class Decision(StrEnum):
    ALLOW = "allow"
    ASK_HOST = "ask-host"
    DENY = "deny"


@dataclass(frozen=True)
class Request:
    action: Action
    terminal_granted: bool = False
    """For TYPE_TERMINAL: whether the host granted this peer control of that terminal."""


_ALLOW, _ASK, _DENY = Decision.ALLOW, Decision.ASK_HOST, Decision.DENY

_TABLE: dict[Action, dict[Access, Decision]] = {
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


_MAY_HOLD = (Access.VIEW, Access.EDIT)


def decide(access: Access, request: Request) -> Decision:
    # A view guest the host handed a terminal to types in it too: the host answered its ask.
    if request.action is Action.TYPE_TERMINAL and access in _MAY_HOLD and request.terminal_granted:
        return Decision.ALLOW
    return _TABLE[request.action][access]


def denial_reason(access: Access, request: Request) -> str:
    return denial(access, request.action)
