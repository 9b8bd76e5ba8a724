"""Probe frames: one per action of the policy, routed by tests to record what ran and for whom."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar, Literal

from canvasrelay.core.effects import Effect
from canvasrelay.protocol import ClientFrame
from canvasrelay.protocol.access import Action


class Prompt(ClientFrame):
    t: Literal["x-prompt"] = "x-prompt"
    action: ClassVar[Action] = Action.RUN_ON_HOST
    text: str


class Draw(ClientFrame):
    t: Literal["x-draw"] = "x-draw"
    action: ClassVar[Action] = Action.EDIT_BOARD


class Browse(ClientFrame):
    t: Literal["x-browse"] = "x-browse"
    action: ClassVar[Action] = Action.BROWSE_FILES


class Type(ClientFrame):
    t: Literal["x-type"] = "x-type"
    action: ClassVar[Action] = Action.TYPE_TERMINAL
    terminal: str = ""


class Permission(ClientFrame):
    t: Literal["x-permission"] = "x-permission"
    action: ClassVar[Action] = Action.ANSWER_PERMISSION


@dataclass
class Ran(Effect):
    """What a probe frame's handler did: the test's record that the frame got through."""

    what: str
