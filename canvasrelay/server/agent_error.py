"""What goes wrong with an agent, in a module of its own: the API and the agent host name it
without loading the ACP SDK, which `agent_process` needs and start-up does not."""

from __future__ import annotations

from collections.abc import Sequence


class AgentError(Exception):
    """The agent could not be started, broke the protocol, exited, or refused a request.

    The message is for everyone who watches the session; ``stderr`` (the agent's last lines,
    which may hold paths, tokens or an environment dump) is for the host alone."""

    def __init__(self, message: str, stderr: Sequence[str] = ()) -> None:
        super().__init__(message)
        self.stderr = list(stderr)
