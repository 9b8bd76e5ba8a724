"""A guest's budget for the room's agents, on a fake clock: prompts an hour, agent minutes an hour,
cost as the agent reports it; past a limit the prompt is held with the reason in words."""

from __future__ import annotations

from pathlib import Path

import pytest

from canvasrelay.core.budgets import HOUR, Allowed, Budget, Held, Limits
from canvasrelay.core.errors import ConfigError
from canvasrelay.server.config import CanvasConfig, load_config


def test_no_limits_allows_everything_and_says_nothing() -> None:
    budget = Budget()
    for t in range(100):
        budget.prompted(float(t))
    assert budget.verdict(100.0) == Allowed()
    assert budget.left_words(100.0) is None


def test_prompts_an_hour_hold_the_next_until_the_oldest_is_an_hour_old() -> None:
    budget = Budget(Limits(prompts_per_hour=2))
    assert budget.left_words(0.0) == "2 prompts left this hour (of 2)"
    budget.prompted(0.0)
    budget.prompted(600.0)
    assert budget.left_words(601.0) == "0 prompts left this hour (of 2)"
    held = budget.verdict(601.0)
    assert isinstance(held, Held)
    assert held.reason == "2 prompts an hour are used; the next is free in 50 minutes"
    assert budget.verdict(HOUR + 1) == Allowed()
    assert budget.left_words(HOUR + 1) == "1 prompt left this hour (of 2)"


def test_agent_minutes_count_finished_turns_and_the_one_running() -> None:
    budget = Budget(Limits(turn_minutes_per_hour=5))
    budget.turn_began("s1", 0.0)
    budget.turn_ended("s1", 180.0)
    assert budget.left_words(180.0) == "2 minutes of agent time left this hour"
    budget.turn_began("s2", 200.0)
    assert budget.verdict(300.0) == Allowed()
    held = budget.verdict(380.0)
    assert isinstance(held, Held) and held.reason == "5 minutes of agent time an hour are used"
    budget.turn_ended("s2", 380.0)
    # an hour on, only what fell inside the hour counts
    assert budget.minutes_this_hour(HOUR + 180.0) == 3.0
    assert budget.verdict(HOUR + 180.0) == Allowed()


def test_cost_is_the_agent_s_cumulative_figure_and_a_misreport_is_not_believed() -> None:
    budget = Budget(Limits(cost=1.0))
    assert budget.reported_cost("s1", 0.25)
    assert budget.reported_cost("s1", 0.5)
    assert not budget.reported_cost("s1", 0.1)  # went down
    assert not budget.reported_cost("s1", float("nan"))
    assert not budget.reported_cost("s1", -3)
    assert not budget.reported_cost("s1", 1e9)  # past any real spend
    assert not budget.reported_cost("s1", "0.9")
    assert budget.reported_cost("s2", 0.3)
    assert budget.cost() == 0.8
    assert budget.left_words(0.0) == "0.20 of 1.00 left to spend"
    budget.reported_cost("s2", 0.5)
    held = budget.verdict(0.0)
    assert isinstance(held, Held) and held.reason == "the 1.00 the host allowed for agents is spent"


def test_the_limits_that_need_no_report_hold_when_the_cost_is_missing() -> None:
    budget = Budget(Limits(prompts_per_hour=1, cost=1.0))
    budget.prompted(0.0)
    assert not budget.reported_cost("s1", None)
    assert isinstance(budget.verdict(1.0), Held)


def test_a_budget_survives_being_stored_and_a_bad_record_starts_over() -> None:
    budget = Budget(Limits(prompts_per_hour=3, turn_minutes_per_hour=10, cost=2.0))
    budget.prompted(10.0)
    budget.turn_began("s1", 10.0)
    budget.turn_ended("s1", 70.0)
    budget.reported_cost("s1", 0.4)
    again = Budget.from_json(budget.limits, budget.to_json())
    assert again.left_words(100.0) == budget.left_words(100.0)
    assert again.left_words(100.0) == (
        "2 prompts left this hour (of 3); 9 minutes of agent time left this hour; 1.60 of 2.00 left to spend"
    )
    broken = Budget.from_json(budget.limits, {"prompts": ["x", True, 5.0], "turns": [[9, 1], "y"], "costs": [1]})
    assert list(broken.prompts) == [5.0] and not broken.turns and broken.cost() == 0
    assert Budget.from_json(budget.limits, "nonsense").to_json() == {"prompts": [], "turns": [], "costs": {}}


def test_the_defaults_come_from_the_project_config(tmp_path: Path) -> None:
    assert CanvasConfig().budgets.limits() == Limits()
    (tmp_path / ".canvas").mkdir()
    config = tmp_path / ".canvas" / "config.toml"
    config.write_text("[budgets]\nprompts_per_hour = 20\nturn_minutes_per_hour = 15.5\ncost = 2.5\n")
    assert load_config(tmp_path / ".canvas").budgets.limits() == Limits(20, 15.5, 2.5)
    config.write_text("[budgets]\nprompts_per_hour = -1\n")
    with pytest.raises(ConfigError, match=r"budgets\.prompts_per_hour"):
        load_config(tmp_path / ".canvas")
