"""The session manager's sans-I/O core: status, queue, first answer wins, cancel while waiting."""

from __future__ import annotations

import json
from typing import Any

import pytest

from canvasrelay.core.agent_sessions import (
    HISTORY_PAGE_INTERVAL_S,
    MAX_QUEUE_CHARS,
    MAX_READS_PER_PEER,
    CancelTurn,
    CompactTurn,
    HistoryPage,
    ReadHistory,
    ResolvePermission,
    RewriteEvents,
    RunTurn,
    Sessions,
    StoredSession,
    StoreEvent,
)
from canvasrelay.core.effects import Broadcast, Send
from canvasrelay.core.errors import Refused
from canvasrelay.core.peer import Peer
from canvasrelay.protocol.access import Access
from canvasrelay.protocol.agents import (
    MAX_PROMPT_CHARS,
    AgentCancel,
    AgentCreate,
    AgentHistoryRequest,
    AgentPermission,
    AgentPrompt,
    SessionMeta,
)
from canvasrelay.protocol.people import PromptAttribution
from canvasrelay.protocol.session_events import LogHead, PermissionEvent, session_event, session_update, stored_json
from canvasrelay.server.agents.catalog import DEMO

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
    """The events the effects store, as the store keeps them."""
    return [json.loads(stored_json(e.event)) for e in effects if isinstance(e, StoreEvent)]


def started() -> Sessions:
    sessions = Sessions({"demo": DEMO.info()}, clock=lambda: 1.0)
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


def test_a_queue_holds_a_bounded_number_of_characters() -> None:
    sessions = started()
    sessions.prompt(HOST, AgentPrompt(session_id="s", text="first"))
    longest = "x" * MAX_PROMPT_CHARS
    for _ in range(MAX_QUEUE_CHARS // MAX_PROMPT_CHARS):
        sessions.prompt(HOST, AgentPrompt(session_id="s", text=longest))
    with pytest.raises(Refused, match="too long in all") as refused:
        sessions.prompt(HOST, AgentPrompt(session_id="s", text="one more"))
    assert refused.value.kind == "conflict"
    assert sum(len(q.text) for q in sessions.sessions["s"].queued) == MAX_QUEUE_CHARS


def test_first_answer_wins_and_the_second_is_told() -> None:
    sessions = started()
    sessions.prompt(HOST, AgentPrompt(session_id="s", text="/write a.txt hi"))
    request_id, _ = sessions.ask("s", REQUEST)
    assert sessions.sessions["s"].status == "waiting"
    first = sessions.answer(HOST, AgentPermission(session_id="s", request_id=request_id, answer="once", by="ann"))
    resolved = stored(first)[0]
    assert (resolved["optionId"], resolved["by"]) == ("allow_once", "ann")
    assert any(isinstance(e, ResolvePermission) and e.choice and e.choice.option_id == "allow_once" for e in first)
    with pytest.raises(Refused, match="already answered") as refused:
        sessions.answer(OTHER, AgentPermission(session_id="s", request_id=request_id, answer="reject"))
    assert refused.value.kind == "conflict"


def test_cancel_while_waiting_resolves_the_permission_as_cancelled() -> None:
    sessions = started()
    sessions.prompt(HOST, AgentPrompt(session_id="s", text="/write a.txt hi"))
    sessions.ask("s", REQUEST)
    effects = sessions.cancel(HOST, AgentCancel(session_id="s"))
    assert stored(effects)[0]["kind"] == "permission-resolved" and stored(effects)[0]["optionId"] is None
    assert isinstance(effects[-1], CancelTurn)
    assert sessions.turn_ended("s", cancelled=True)


def test_restore_closes_a_running_turn_as_interrupted() -> None:
    sessions = Sessions({"demo": DEMO.info()})
    head = LogHead(status="running", last_seq=1, turn_open=True)
    effects = sessions.restore(StoredSession("r", "demo", "", None, 1.0, SessionMeta(), head))
    assert stored(effects) == [{"seq": 2, "kind": "turn-end", "interrupted": True}]
    assert sessions.sessions["r"].status == "idle"
    assert next(e for e in effects if isinstance(e, StoreEvent)).head == LogHead(status="idle", last_seq=2)


def test_each_stored_event_carries_the_head_after_it() -> None:
    sessions = started()
    sessions.prompt(HOST, AgentPrompt(session_id="s", text="/write a.txt hi"))
    _, effects = sessions.ask("s", REQUEST)
    saved = next(e for e in effects if isinstance(e, StoreEvent))
    assert isinstance(saved.event, PermissionEvent)
    assert saved.head == LogHead(status="waiting", last_seq=2, open=(saved.event.request_id,), turn_open=True)
    sessions.answer(HOST, AgentPermission(session_id="s", request_id=saved.event.request_id, answer="once"))
    assert saved.head.open == (saved.event.request_id,) and sessions.sessions["s"].head.open == ()


def test_history_is_read_as_an_effect_one_page_per_request_and_bounded_per_peer() -> None:
    sessions = started()
    sessions.prompt(HOST, AgentPrompt(session_id="s", text="hi"))
    reads = [sessions.history(HOST, AgentHistoryRequest(session_id="s", before=2)) for _ in range(MAX_READS_PER_PEER)]
    assert all(isinstance(r[0], ReadHistory) and r[0].before == 2 and r[0].asked for r in reads)
    with pytest.raises(Refused, match="on their way"):
        sessions.history(HOST, AgentHistoryRequest(session_id="s", after=0))
    event = {"seq": 1, "kind": "turn", "text": "hi", "sha256": "", "author": "host", "time": 1.0}
    sent = sessions.history_read(reads[0][0], HistoryPage([session_event(event)], after=0, through=1))  # type: ignore[arg-type]
    assert isinstance(sent[0], Send) and sent[0].to == HOST.id
    assert sent[0].frame.model_dump(by_alias=True) == {
        "t": "agent-history",
        "sessionId": "s",
        "events": [{**event, "asWritten": None, "byHost": False}],
        "after": 0,
        "through": 1,
    }
    assert isinstance(sessions.history(HOST, AgentHistoryRequest(session_id="s"))[0], ReadHistory)


def test_one_peers_pages_take_turns_at_the_reader_and_another_peer_does_not_wait_behind_them() -> None:
    sessions = started()
    sessions.clock = lambda: 100.0
    sessions.prompt(HOST, AgentPrompt(session_id="s", text="hi"))
    delays = [sessions.history(HOST, AgentHistoryRequest(session_id="s"))[0].delay for _ in range(3)]  # type: ignore[attr-defined]
    assert delays == pytest.approx([0.0, HISTORY_PAGE_INTERVAL_S, 2 * HISTORY_PAGE_INTERVAL_S])
    assert sessions.history(OTHER, AgentHistoryRequest(session_id="s"))[0].delay == 0.0  # type: ignore[attr-defined]


def test_a_join_reads_the_newest_page_of_each_history_shortest_first() -> None:
    sessions = started()
    sessions.create(HOST, AgentCreate(id="long", agent="demo"))
    sessions.create(HOST, AgentCreate(id="empty", agent="demo"))
    for text in ("a", "b"):
        sessions.prompt(HOST, AgentPrompt(session_id="long", text=text))
        sessions.turn_ended("long")
    sessions.prompt(HOST, AgentPrompt(session_id="s", text="one"))
    reads = sessions.joined(OTHER)
    assert [(r.session_id, r.after, r.before, r.asked) for r in reads] == [  # type: ignore[union-attr]
        ("s", None, None, False),
        ("long", None, None, False),
    ]


def test_a_finished_turn_is_compacted_and_every_client_told_which_seqs() -> None:
    sessions = started()
    sessions.prompt(HOST, AgentPrompt(session_id="s", text="hi"))
    chunk = {"sessionUpdate": "agent_message_chunk", "content": {"type": "text", "text": "a"}}
    sessions.update("s", session_update(chunk))
    ended = sessions.turn_ended("s")
    assert [e for e in ended if isinstance(e, CompactTurn)] == [CompactTurn("s", 0, 3)]
    events = [session_event({"seq": 1, "kind": "turn", "text": "hi"}), session_event({"seq": 3, "kind": "turn-end"})]
    rewritten = sessions.compacted("s", 0, 3, events)
    assert isinstance(rewritten[0], RewriteEvents) and rewritten[0].through == 3
    notice = rewritten[1]
    assert isinstance(notice, Broadcast)
    assert notice.frame.model_dump(by_alias=True) == {
        "t": "agent-compacted",
        "sessionId": "s",
        "after": 0,
        "through": 3,
    }
    assert sessions.compacted("gone", 0, 3, []) == []


def test_the_switch_for_named_prompts_is_the_sessions_stored_and_restored() -> None:
    sessions = started()
    assert sessions.names_prompts("s") and sessions.sessions["s"].frame_head().named_prompts
    effects = sessions.name_prompts(HOST, PromptAttribution(session_id="s", on=False))
    (meta,) = [e.frame for e in effects if isinstance(e, Broadcast)]
    assert meta.meta.named_prompts is False and not sessions.names_prompts("s")
    saved = sessions.sessions["s"].meta()
    restored = Sessions({"demo": DEMO.info()})
    restored.restore(StoredSession("s", "demo", "", None, 1.0, saved, LogHead()))
    assert not restored.names_prompts("s") and restored.sessions["s"].frame_head().named_prompts is False
    with pytest.raises(Refused):
        sessions.name_prompts(HOST, PromptAttribution(session_id="gone", on=True))


def test_a_named_guest_prompt_keeps_the_guests_words_in_its_turn_and_in_the_queue() -> None:
    sessions = started()
    ada = Peer(id="guest-ada", access=Access.EDIT, name="Ada")
    named = AgentPrompt(session_id="s", text="Ada (guest, edit): one", written="one")
    assert stored(sessions.prompt(ada, named))[0]["asWritten"] == "one"
    sessions.prompt(ada, named.model_copy(update={"text": "Ada (guest, edit): two", "written": "two"}))
    assert sessions.sessions["s"].queued[0].as_written == "two"


def test_a_session_is_called_by_its_agent_and_numbered_only_from_the_second() -> None:
    sessions = started()
    sessions.create(HOST, AgentCreate(id="t", agent="demo"))
    sessions.create(HOST, AgentCreate(id="u", agent="demo"))
    assert [sessions.sessions[i].title for i in "stu"] == ["Demo agent", "Demo agent 2", "Demo agent 3"]


def test_the_hosts_prompt_says_the_host_sent_it_in_its_turn_and_in_the_queue() -> None:
    sessions = started()
    ada = Peer(id="guest-ada", access=Access.TRUSTED, name="Ada")
    turn = stored(sessions.prompt(HOST, AgentPrompt(session_id="s", text="one", author="Maria")))[0]
    assert (turn["author"], turn["byHost"]) == ("Maria", True)
    sessions.prompt(ada, AgentPrompt(session_id="s", text="two"))
    sessions.prompt(HOST, AgentPrompt(session_id="s", text="three", author="Maria"))
    assert [(q.author, q.by_host) for q in sessions.sessions["s"].queued] == [("Ada", False), ("Maria", True)]
