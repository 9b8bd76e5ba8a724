"""What one guest may spend on the room's agents, and what is left: prompts an hour, agent turn
minutes an hour, and cost where the agent reports it. Pure, on an injected clock: the agents
host records each use and asks before it runs a guest's prompt; a prompt past a limit waits for
the host with the reason in words.

Prompts and minutes are what canvas sees itself, so they hold whatever the agent reports. Cost is
the agent's own figure (ACP `usage_update.cost`, cumulative per session): one that is not a
finite amount, goes down, or jumps past `COST_MAX` is not believed, and the other limits still hold.
"""

from __future__ import annotations

import math
from collections import deque
from dataclasses import dataclass, field
from typing import Any

HOUR = 3600.0
COST_MAX = 10_000.0
"""A session's reported cost beyond this is taken for a misreport, not a spend."""
USES_MAX = 10_000
"""Uses kept per guest: more than any hour's limit could count."""


@dataclass(frozen=True)
class Limits:
    """None for no limit."""

    prompts_per_hour: int | None = None
    turn_minutes_per_hour: float | None = None
    cost: float | None = None
    """In the currency the agent reports (USD for the agents canvas knows), over the whole stay."""

    def any(self) -> bool:
        return any(v is not None for v in (self.prompts_per_hour, self.turn_minutes_per_hour, self.cost))


@dataclass(frozen=True)
class Allowed:
    pass


@dataclass(frozen=True)
class Held:
    reason: str
    """Why, in words the guest and the host read: which limit, and when it frees up."""


@dataclass
class Budget:
    """One guest's use against its limits."""

    limits: Limits = field(default_factory=Limits)
    prompts: deque[float] = field(default_factory=deque)
    """When each prompt ran, oldest first."""
    turns: deque[tuple[float, float]] = field(default_factory=deque)
    """Each finished turn's start and end."""
    running: dict[str, float] = field(default_factory=dict)
    """Turns under way, by session: when each began."""
    costs: dict[str, float] = field(default_factory=dict)
    """Per session, the latest cost the agent reported that was believed."""

    def verdict(self, now: float) -> Allowed | Held:
        """Whether a prompt may run now."""
        limits = self.limits
        if limits.prompts_per_hour is not None and self.prompts_this_hour(now) >= limits.prompts_per_hour:
            wait = self.prompts[-limits.prompts_per_hour] + HOUR - now if limits.prompts_per_hour else HOUR
            return Held(f"{_prompts(limits.prompts_per_hour)} an hour are used; the next is free {_in(wait)}")
        if limits.turn_minutes_per_hour is not None and self.minutes_this_hour(now) >= limits.turn_minutes_per_hour:
            return Held(f"{_minutes(limits.turn_minutes_per_hour)} of agent time an hour are used")
        if limits.cost is not None and self.cost() >= limits.cost:
            return Held(f"the {limits.cost:.2f} the host allowed for agents is spent")
        return Allowed()

    def prompted(self, now: float) -> None:
        self.prompts.append(now)
        while len(self.prompts) > USES_MAX:
            self.prompts.popleft()

    def turn_began(self, session_id: str, now: float) -> None:
        self.running[session_id] = now

    def turn_ended(self, session_id: str, now: float) -> None:
        began = self.running.pop(session_id, None)
        if began is not None and now >= began:
            self.turns.append((began, now))
            while len(self.turns) > USES_MAX:
                self.turns.popleft()

    def reported_cost(self, session_id: str, amount: Any) -> bool:
        """The agent's cumulative cost for a session; False (and nothing counted) when it is not
        believable."""
        if isinstance(amount, bool) or not isinstance(amount, int | float) or not math.isfinite(amount):
            return False
        before = self.costs.get(session_id, 0.0)
        if amount < before or amount > COST_MAX:
            return False
        self.costs[session_id] = float(amount)
        return True

    def prompts_this_hour(self, now: float) -> int:
        return sum(1 for at in self.prompts if now - HOUR < at <= now)

    def minutes_this_hour(self, now: float) -> float:
        since = now - HOUR
        spans = [*self.turns, *((began, now) for began in self.running.values())]
        return sum(max(0.0, end - max(began, since)) for began, end in spans) / 60

    def cost(self) -> float:
        return sum(self.costs.values())

    def left_words(self, now: float) -> str | None:
        """What is left, as the guest reads it beside the prompt box; None with no limits."""
        limits, parts = self.limits, []
        if limits.prompts_per_hour is not None:
            left = max(0, limits.prompts_per_hour - self.prompts_this_hour(now))
            parts.append(f"{_prompts(left)} left this hour (of {limits.prompts_per_hour})")
        if limits.turn_minutes_per_hour is not None:
            left_minutes = max(0.0, limits.turn_minutes_per_hour - self.minutes_this_hour(now))
            parts.append(f"{_minutes(left_minutes)} of agent time left this hour")
        if limits.cost is not None:
            parts.append(f"{max(0.0, limits.cost - self.cost()):.2f} of {limits.cost:.2f} left to spend")
        return "; ".join(parts) or None

    def to_json(self) -> dict[str, Any]:
        """What is stored, so a restart keeps each guest's use."""
        return {
            "prompts": list(self.prompts),
            "turns": [list(span) for span in self.turns],
            "costs": dict(self.costs),
        }

    @classmethod
    def from_json(cls, limits: Limits, data: Any) -> Budget:
        """A stored budget; what does not read as one is dropped (the uses start over)."""
        budget = cls(limits)
        if not isinstance(data, dict):
            return budget
        budget.prompts.extend(t for t in _numbers(data.get("prompts"))[-USES_MAX:])
        for span in data.get("turns") or []:
            pair = _numbers(span)
            if len(pair) == 2 and pair[0] <= pair[1]:
                budget.turns.append((pair[0], pair[1]))
        costs = data.get("costs")
        for session_id, amount in costs.items() if isinstance(costs, dict) else ():
            if isinstance(session_id, str):
                budget.reported_cost(session_id, amount)
        return budget


def _numbers(value: Any) -> list[float]:
    if not isinstance(value, list):
        return []
    return [float(v) for v in value if isinstance(v, int | float) and not isinstance(v, bool) and math.isfinite(v)]


def _prompts(count: int) -> str:
    return f"{count} prompt" + ("" if count == 1 else "s")


def _minutes(minutes: float) -> str:
    whole = math.floor(minutes) if minutes >= 1 else round(minutes, 1)
    return f"{whole:g} minute" + ("" if whole == 1 else "s")


def _in(seconds: float) -> str:
    minutes = max(1, math.ceil(seconds / 60))
    return f"in {minutes} minute" + ("" if minutes == 1 else "s")
