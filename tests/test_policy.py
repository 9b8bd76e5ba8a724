"""The access table (README, "Security model"): every access level against every action."""

import pytest

from canvasrelay.core.policy import Decision, Request, decide
from canvasrelay.protocol.access import Access, Action

A, Q, D = Decision.ALLOW, Decision.ASK_HOST, Decision.DENY

# one row per action: view, edit, trusted, host
TABLE = {
    Action.READ: (A, A, A, A),
    Action.EDIT_BOARD: (D, A, A, A),
    Action.BROWSE_FILES: (D, A, A, A),
    Action.RUN_ON_HOST: (D, Q, A, A),
    Action.TYPE_TERMINAL: (D, D, A, A),
    Action.ANSWER_PERMISSION: (D, D, D, A),
    Action.ASK: (Q, Q, Q, A),
    Action.ADMIN: (D, D, D, A),
}
LEVELS = (Access.VIEW, Access.EDIT, Access.TRUSTED, Access.HOST)


def test_table_covers_every_action() -> None:
    assert set(TABLE) == set(Action)


@pytest.mark.parametrize("action", list(Action))
@pytest.mark.parametrize("level", LEVELS)
def test_decide(action: Action, level: Access) -> None:
    assert decide(level, Request(action)) is TABLE[action][LEVELS.index(level)]


@pytest.mark.parametrize(("level", "expected"), [(Access.VIEW, A), (Access.EDIT, A), (Access.TRUSTED, A)])
def test_terminal_grant_lets_a_guest_type(level: Access, expected: Decision) -> None:
    assert decide(level, Request(Action.TYPE_TERMINAL, terminal_granted=True)) is expected


def test_grant_does_not_widen_other_actions() -> None:
    assert decide(Access.EDIT, Request(Action.ANSWER_PERMISSION, terminal_granted=True)) is D
