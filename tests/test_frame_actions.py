"""Every client frame says what it asks of the policy; this table is the decision, made once per frame.

A new frame type fails here until someone writes down which action it is, so nothing reaches a
handler by default.
"""

from __future__ import annotations

from typing import ClassVar, Literal

import pytest

from canvasrelay.protocol import CLIENT_FRAMES, ClientFrame
from canvasrelay.protocol.access import Action
from canvasrelay.protocol.base import client_frame

EXPECTED: dict[str, Action] = {
    "auth": Action.READ,
    "ping": Action.READ,
    "agent-create": Action.RUN_ON_HOST,
    "agent-prompt": Action.RUN_ON_HOST,
    "agent-cancel": Action.RUN_ON_HOST,
    "agent-config": Action.RUN_ON_HOST,
    "agent-rename": Action.ADMIN,
    "agent-permission": Action.ANSWER_PERMISSION,
    "agent-history-request": Action.READ,
    "board-update": Action.EDIT_BOARD,
    "board-sync": Action.READ,
    "board-more": Action.READ,
    "heads-more": Action.READ,
    "awareness": Action.READ,
    "file-open": Action.BROWSE_FILES,
    "file-close": Action.READ,
    "tree-watch": Action.BROWSE_FILES,
    "guest-join": Action.READ,
    "guest-leave": Action.READ,
    "guest-set-access": Action.ADMIN,
    "guest-unblock": Action.ADMIN,
    "invite-restore": Action.ADMIN,
    "term-pin": Action.ADMIN,
    "room-set-access": Action.ADMIN,
    "guest-kick": Action.ADMIN,
    "terminal-grant": Action.ADMIN,
    "approval-answer": Action.ADMIN,
    "host-profile": Action.ADMIN,
    "term-open": Action.RUN_ON_HOST,
    "term-input": Action.TYPE_TERMINAL,
    "term-resize": Action.TYPE_TERMINAL,
    "term-close": Action.TYPE_TERMINAL,
    "term-control": Action.ASK,
    "term-rename": Action.ADMIN,
    "term-detach": Action.READ,
    "term-list": Action.READ,
    "invite-create": Action.ADMIN,
    "invite-revoke": Action.ADMIN,
    "open-link": Action.ADMIN,
    "access-ask": Action.ASK,
    "audit-read": Action.ADMIN,
    "prompt-attribution": Action.ADMIN,
}


def test_every_client_frame_declares_the_action_in_this_table() -> None:
    assert {t: cls.action for t, cls in CLIENT_FRAMES.items()} == EXPECTED


def test_a_frame_without_an_action_cannot_be_registered() -> None:
    with pytest.raises(TypeError, match="must declare the action"):

        @client_frame
        class Forgetful(ClientFrame):
            t: Literal["forgetful"] = "forgetful"

    assert "forgetful" not in CLIENT_FRAMES


def test_an_inherited_action_is_not_a_declaration() -> None:
    class Base(ClientFrame):
        action: ClassVar[Action] = Action.READ

    with pytest.raises(TypeError):

        @client_frame
        class Child(Base):
            t: Literal["child"] = "child"
