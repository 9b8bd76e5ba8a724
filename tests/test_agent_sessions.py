"""The session manager's sans-I/O core: status, queue, first answer wins, cancel while waiting."""

from __future__ import annotations

from typing import Any

from canvasrelay.core.agent_sessions import CancelTurn, ResolvePermission, RunTurn, Sessions, StoreEvent
from canvasrelay.core.effects import Broadcast, Send
from canvasrelay.core.room import Peer
from canvasrelay.protocol.access import Access
from canvasrelay.protocol.agents import AgentCancel, AgentCreate, AgentPermission, AgentPrompt
from canvasrelay.server.agent_catalog import DEMO

HOST = Peer("host-1", Access.HOST, "host")
OTHER = Peer("host-2", Access.HOST, "host")
REQUEST = {
    "toolCall": {"toolCallId": "w1", "title": "Write a.txt", "kind": "edit"},
    "options": [
        {"optionId": "allow_once", "name": "Allow", "kind": "allow_once"},
        {"optionId": "reject_once", "name": "Reject", "kind": "reject_once"},
    ],
}


def stored(effects: list[Any]) -> list[dict[str, Any]]:
    return [e.event for e in effects if isinstance(e, StoreEvent)]


def started() -> Sessions:
    sessions = Sessions({"demo": DEMO.info()}, lambda _sid, _after, _limit: [], clock=lambda: 1.0)
    sessions.create(HOST, AgentCreate(id="s", agent="demo"))
    return sessions


def test_every_event_is_stored_before_it_is_broadcast() -> None:
    sessions = started()
    effects = sessions.prompt(HOST, AgentPrompt(session_id="s", text="hi"))
    store = next(i for i, e in enumerate(effects) if isinstance(e, StoreEvent))
    send = next(i for i, e in enumerate(effects) if isinstance(e, Broadcast))
    assert store < send
    assert any(isinstance(e, RunTurn) for e in effects)
    assert sessions.sessions["s"].status == "running"


def test_a_prompt_during_a_turn_is_queued_and_runs_when_it_ends() -> None:
    sessions = started()
    sessions.prompt(HOST, AgentPrompt(session_id="s", text="first"))
    queued = sessions.prompt(HOST, AgentPrompt(session_id="s", text="second"))
    assert not stored(queued) and [q.text for q in sessions.sessions["s"].queued] == ["second"]
    ended = sessions.turn_ended("s")
    assert [e["kind"] for e in stored(ended)] == ["turn-end", "turn"]
    assert stored(ended)[1]["text"] == "second"
    assert any(isinstance(e, RunTurn) and e.text == "second" for e in ended)


def test_first_answer_wins_and_the_second_is_told() -> None:
    sessions = started()
    sessions.prompt(HOST, AgentPrompt(session_id="s", text="/write a.txt hi"))
    request_id, _ = sessions.ask("s", REQUEST)
    assert sessions.sessions["s"].status == "waiting"
    first = sessions.answer(HOST, AgentPermission(session_id="s", request_id=request_id, answer="once", by="ann"))
    resolved = stored(first)[0]
    assert (resolved["optionId"], resolved["by"]) == ("allow_once", "ann")
    assert any(isinstance(e, ResolvePermission) and e.choice and e.choice.option_id == "allow_once" for e in first)
    second = sessions.answer(OTHER, AgentPermission(session_id="s", request_id=request_id, answer="reject"))
    assert len(second) == 1 and isinstance(second[0], Send) and second[0].to == OTHER.id
    assert "already answered" in second[0].frame.message  # type: ignore[attr-defined]


def test_cancel_while_waiting_resolves_the_permission_as_cancelled() -> None:
    sessions = started()
    sessions.prompt(HOST, AgentPrompt(session_id="s", text="/write a.txt hi"))
    sessions.ask("s", REQUEST)
    effects = sessions.cancel(HOST, AgentCancel(session_id="s"))
    assert stored(effects)[0]["kind"] == "permission-resolved" and stored(effects)[0]["optionId"] is None
    assert isinstance(effects[-1], CancelTurn)
    assert sessions.turn_ended("s", cancelled=True)


def test_restore_closes_a_running_turn_as_interrupted() -> None:
    sessions = Sessions({"demo": DEMO.info()}, lambda _sid, _after, _limit: [])
    row = {"id": "r", "agent": "demo", "title": "", "created": 1.0, "meta": {}}
    effects = sessions.restore(row, [{"seq": 1, "kind": "turn", "text": "x", "author": "a", "time": 1}])
    assert stored(effects) == [{"seq": 2, "kind": "turn-end", "interrupted": True}]
    assert sessions.sessions["r"].status == "idle"
