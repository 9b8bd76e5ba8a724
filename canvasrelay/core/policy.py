"""Who may do what: the access table (README, "Security model", kept in `protocol.access`) as one pure function.

Every frame names the action it asks for; the Room asks `decide` before any handler runs,
so no guest frame reaches a shell, an agent or the board unless this table says so.
"""

from __future__ import annotations

from dataclasses import dataclass

from canvasrelay.protocol.access import ACCESS_TABLE, TERMINAL_HOLDERS, Access, Action, Decision
from canvasrelay.protocol.words import denial


@dataclass(frozen=True)
class Request:
    action: Action
    terminal_granted: bool = False
    """For TYPE_TERMINAL: whether the host granted this peer control of that terminal."""


def decide(access: Access, request: Request) -> Decision:
    # A view guest the host handed a terminal to types in it too: the host answered its ask.
    if request.action is Action.TYPE_TERMINAL and access in TERMINAL_HOLDERS and request.terminal_granted:
        return Decision.ALLOW
    return ACCESS_TABLE[request.action][access]


def denial_reason(access: Access, request: Request) -> str:
    return denial(access, request.action)
