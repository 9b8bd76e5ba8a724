"""What goes wrong with an agent, in a module of its own: the API and the agent host name it
without loading the ACP SDK, which `agents/process.py` needs and start-up does not."""

from __future__ import annotations

import signal
from collections.abc import Sequence

DOING = {
    "initialize": "start",
    "session/new": "open a conversation",
    "session/load": "reload the conversation",
    "session/prompt": "finish its answer",
    "session/set_config_option": "change that setting",
    "session/set_mode": "change its mode",
    "session/set_model": "change its model",
}


class AgentError(Exception):
    """The agent could not be started, broke the protocol, exited, or refused a request.

    The message, in plain words, is for everyone who watches the session, and so is ``detail``,
    the agent's own words (shown behind "Details"); ``stderr`` (the agent's last lines, which may
    hold paths, tokens or an environment dump) is for the host alone."""

    def __init__(self, message: str, stderr: Sequence[str] = (), detail: str | None = None) -> None:
        super().__init__(message)
        self.stderr = list(stderr)
        self.detail = detail


def doing(method: str) -> str:
    return DOING.get(method, f"answer {method}")


def exit_words(code: int | None) -> str:
    """How an agent's process ended, as a person says it."""
    if code is None:
        return "it stopped"
    if code < 0:
        try:
            name = signal.Signals(-code).name
        except ValueError:
            name = f"signal {-code}"
        return "it was killed (SIGKILL)" if name == "SIGKILL" else f"it was stopped by {name}"
    return f"it exited with code {code}"
