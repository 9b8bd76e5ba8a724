"""Which agents run: the decisions behind the cap on agent processes, with no I/O and no clock of
its own (every call says what time it is).

At most `max_running` agents run at once. A session that needs its agent while every place is
taken gets the place of the idle agent used longest ago, or, when every running agent is busy
(in a turn, starting, answering a config change or waiting for a permission), no place and a
reason to show. An agent idle for `idle_seconds` since its last use ended is due to stop; its
next prompt starts it again. The adapter (`server/agents/host.py`) holds the processes and says
which are busy; this module decides which start, which give way and which stop.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

FULL = (
    "every place for a running agent is taken ({cap}, [agent_processes] max_running in .canvas/config.toml) "
    "by one that is busy; prompt again once one of them has finished its turn"
)


@dataclass(frozen=True)
class Fits:
    """There is a place: start the agent."""


@dataclass(frozen=True)
class GiveWay:
    """Stop `session_id`'s agent (idle, used longest ago), then start this one in its place."""

    session_id: str


@dataclass(frozen=True)
class Full:
    """No place: every running agent is busy, or this start may not take another's place."""

    reason: str


@dataclass(frozen=True)
class Wait:
    """No place yet: none is idle, but one is only starting (an agent started early, to show its
    options); ask again once a start has ended, when it is idle or in use."""


Place = Fits | GiveWay | Full | Wait


@dataclass
class AgentSlots:
    max_running: int
    idle_seconds: float
    used: dict[str, float] = field(default_factory=dict)
    """When each session last began to use its agent."""
    idle_until: dict[str, float] = field(default_factory=dict)
    """When each session's idle agent is due to stop, if it stays idle."""

    def place(
        self,
        session_id: str,
        running: Iterable[str],
        idle: Callable[[str], bool],
        take_place: bool = True,
        starting: Callable[[str], bool] = lambda _s: False,
    ) -> Place:
        """Whether `session_id`'s agent may start beside the `running` ones; `take_place=False` (an
        agent started early, to show its options) never makes another give way, nor waits."""
        others = [s for s in running if s != session_id]
        if len(others) < self.max_running:
            return Fits()
        idle_ones = [s for s in others if idle(s)]
        if take_place and not idle_ones and any(starting(s) for s in others):
            return Wait()
        if not take_place or not idle_ones:
            return Full(FULL.format(cap=self.max_running))
        return GiveWay(min(idle_ones, key=lambda s: self.used.get(s, 0.0)))

    def in_use(self, session_id: str, now: float) -> None:
        """The session uses its agent from `now`: it is not idle, whatever was due."""
        self.used[session_id] = now
        self.idle_until.pop(session_id, None)

    def idle_from(self, session_id: str, now: float) -> float:
        """The session's use ended at `now`: its agent is due to stop `idle_seconds` later, when it returns."""
        due = now + self.idle_seconds
        self.idle_until[session_id] = due
        return due

    def due(self, now: float, running: Iterable[str], idle: Callable[[str], bool]) -> list[str]:
        """The running agents idle past their time, to stop now; each is due once."""
        stopping = [s for s in running if self.idle_until.get(s, float("inf")) <= now and idle(s)]
        for session_id in stopping:
            del self.idle_until[session_id]
        return stopping

    def forget(self, session_id: str) -> None:
        self.used.pop(session_id, None)
        self.idle_until.pop(session_id, None)
