"""An agent's permission request waiting for a person, and which answers it may take: pure.

The rules (`permission_rules.py`) answer what they can before anyone is asked; what is left
waits here, in its session, until the host (or a guest the host let answer) picks one of the
options the agent offered, the turn ends, or the agent stops asking. An "always" or "never"
becomes a rule for the file or command the request names, so a request that names none may
only be allowed once or rejected: a rule for it would cover every such call.
"""

from __future__ import annotations

from dataclasses import dataclass

from canvasrelay.core.errors import Refused
from canvasrelay.core.permission_rules import ToolCallJson, named, option_for, subject_of
from canvasrelay.protocol.agents import HostAnswer
from canvasrelay.protocol.session_events import PermissionOption

ANSWERED = "That permission request was already answered, or the agent stopped asking."


@dataclass
class Pending:
    tool_call: ToolCallJson
    options: list[PermissionOption]


@dataclass(frozen=True)
class Chosen:
    option_id: str | None
    """The agent's option the answer picks; None rejects without one (the agent offered none)."""
    kind: str | None
    """That option's kind (`allow_once`, `reject_always`…), as the agent offered it."""


def chosen(pending: Pending, answer: HostAnswer | None, option_id: str | None) -> Chosen:
    """What an answer picks from what the agent offered, or a `Refused` that says what was wrong."""
    if answer in ("always", "never") and not named(subject_of(pending.tool_call)):
        raise Refused(
            "invalid",
            f"The agent did not say which file or command this is, so “{answer}” would cover "
            "every such call: answer Allow once or Reject.",
        )
    if answer is not None and option_id is None:
        option_id = option_for(pending.options, answer)
    if option_id is not None and option_id not in {o.option_id for o in pending.options}:
        raise Refused("invalid", f"the agent offered no option {option_id[:64]!r}")
    return Chosen(option_id, next((o.kind for o in pending.options if o.option_id == option_id), None))
