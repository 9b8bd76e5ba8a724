"""Which agents run, decided without processes or a clock: the cap, who gives way, who stops."""

from __future__ import annotations

from canvasrelay.core.agent_slots import AgentSlots, Fits, Full, GiveWay, Wait


def test_below_the_cap_every_agent_fits() -> None:
    slots = AgentSlots(max_running=2, idle_seconds=60)
    assert slots.place("a", [], lambda _s: True) == Fits()
    assert slots.place("b", ["a"], lambda _s: False) == Fits()
    assert slots.place("a", ["a", "b"], lambda _s: False) == Fits()


def test_past_the_cap_the_idle_agent_used_longest_ago_gives_way() -> None:
    slots = AgentSlots(max_running=3, idle_seconds=60)
    for now, session in enumerate(["a", "b", "c"]):
        slots.in_use(session, float(now))
    slots.in_use("a", 10.0)
    busy = {"c"}
    assert slots.place("d", ["a", "b", "c"], lambda s: s not in busy) == GiveWay("b")
    busy.add("b")
    assert slots.place("d", ["a", "b", "c"], lambda s: s not in busy) == GiveWay("a")


def test_past_the_cap_with_every_agent_busy_there_is_no_place_and_the_host_is_told_why() -> None:
    slots = AgentSlots(max_running=2, idle_seconds=60)
    place = slots.place("c", ["a", "b"], lambda _s: False)
    assert isinstance(place, Full)
    assert "every place for a running agent is taken (2" in place.reason
    assert "max_running" in place.reason


def test_an_agent_started_early_never_makes_another_give_way() -> None:
    slots = AgentSlots(max_running=1, idle_seconds=60)
    assert isinstance(slots.place("b", ["a"], lambda _s: True, take_place=False), Full)


def test_an_idle_agent_is_due_to_stop_after_idle_seconds_and_a_new_use_puts_that_off() -> None:
    slots = AgentSlots(max_running=4, idle_seconds=60)
    slots.in_use("a", 0.0)
    due = slots.idle_from("a", 5.0)
    assert due == 65.0
    assert slots.due(64.9, ["a"], lambda _s: True) == []
    slots.in_use("a", 30.0)
    assert slots.due(65.0, ["a"], lambda _s: True) == []
    slots.idle_from("a", 40.0)
    assert slots.due(100.0, ["a"], lambda _s: True) == ["a"]
    assert slots.due(200.0, ["a"], lambda _s: True) == []


def test_a_busy_or_stopped_agent_is_never_due() -> None:
    slots = AgentSlots(max_running=4, idle_seconds=1)
    slots.idle_from("a", 0.0)
    slots.idle_from("b", 0.0)
    assert slots.due(5.0, ["a"], lambda s: s != "a") == []
    assert slots.due(5.0, [], lambda _s: True) == []
    slots.forget("b")
    assert slots.due(5.0, ["b"], lambda _s: True) == []


def test_a_prompt_past_the_cap_waits_for_an_agent_that_is_only_starting_rather_than_fail() -> None:
    slots = AgentSlots(max_running=2, idle_seconds=60)
    starting = {"a", "b"}
    assert slots.place("c", ["a", "b"], lambda _s: False, starting=starting.__contains__) == Wait()
    assert isinstance(
        slots.place("c", ["a", "b"], lambda _s: False, take_place=False, starting=starting.__contains__), Full
    )
    starting.discard("a")
    assert slots.place("c", ["a", "b"], lambda s: s == "a", starting=starting.__contains__) == GiveWay("a")
