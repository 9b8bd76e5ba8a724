"""The typed event log: every vector's events and thread are what the models say, every kind the
server writes is in the models, the API's schema and the generated TypeScript."""

import json
import re
from pathlib import Path
from typing import Any

import pytest
from pydantic import TypeAdapter, ValidationError

from canvasrelay.core import agent_sessions
from canvasrelay.core.agent_sessions import Sessions, StoreEvent
from canvasrelay.core.peer import Peer
from canvasrelay.protocol.access import Access
from canvasrelay.protocol.agents import AgentCreate, AgentEvent, AgentPrompt
from canvasrelay.protocol.session_events import (
    EVENT_MODELS,
    SESSION_EVENT_KINDS,
    SessionEvent,
    Thread,
    ToolCallUpdate,
    ToolContentBlock,
    session_event,
    session_update,
    stored_json,
)
from canvasrelay.protocol.typescript import generate
from canvasrelay.server.agents.catalog import DEMO
from canvasrelay.server.http.api import sessions as api_sessions
from tests.support import thread_of

VECTORS = sorted((Path(__file__).parent / "vectors" / "session_log").glob("*.json"))
UNTYPED = "unknown_ignored"
"""The vector that holds what no model allows on purpose: the fold must still pass over it."""
EVENT = TypeAdapter(SessionEvent)


def _vectors() -> list[dict[str, Any]]:
    return [json.loads(path.read_text(encoding="utf-8")) for path in VECTORS]


def _kinds_the_core_writes() -> set[str]:
    """Every kind the session core names where it makes an event."""
    source = Path(agent_sessions.__file__).read_text(encoding="utf-8")
    return set(re.findall(r'kind="([a-z-]+)"', source))


def test_every_vector_event_and_thread_is_typed() -> None:
    for vector in _vectors():
        if vector["name"] == UNTYPED:
            continue
        for event in vector["events"] + vector["compacted"]:
            EVENT.validate_python(event)
        Thread.model_validate(vector["thread"])


def test_the_vectors_cover_every_event_kind_and_every_update_canvas_draws() -> None:
    events = [event for vector in _vectors() for event in vector["events"]]
    assert {event["kind"] for event in events} >= set(SESSION_EVENT_KINDS)
    updates = {event["update"].get("sessionUpdate") for event in events if event["kind"] == "chunk"}
    assert updates >= {
        "agent_message_chunk",
        "agent_thought_chunk",
        "user_message_chunk",
        "tool_call",
        "tool_call_update",
        "plan",
        "usage_update",
        "available_commands_update",
        "config_option_update",
    }
    contents = {
        block["type"]
        for e in events
        if e["kind"] == "chunk"
        for block in e["update"].get("content") or []
        if isinstance(block, dict) and "tool_call" in e["update"]["sessionUpdate"]
    }
    assert contents >= {"content", "diff", "terminal"}


def test_every_kind_the_core_writes_is_a_typed_kind() -> None:
    written = _kinds_the_core_writes()
    assert written == set(SESSION_EVENT_KINDS), "the core writes a kind the models do not name (or none of one)"


def test_the_api_schema_names_every_kind_and_refers_to_each_model() -> None:
    schema = api_sessions.SSE_EVENT["properties"]
    assert set(schema["event"]["enum"]) == {*SESSION_EVENT_KINDS, "deleted"}
    refs = [one["$ref"].rsplit("/", 1)[1] for one in schema["data"]["contentSchema"]["oneOf"]]
    assert refs == [model.__name__ for model in EVENT_MODELS]


def test_the_generated_typescript_has_every_kind() -> None:
    text = generate()
    assert f"export const SESSION_EVENT_KINDS = {json.dumps(list(SESSION_EVENT_KINDS))} as const;" in text
    for kind in SESSION_EVENT_KINDS:
        assert f'kind: "{kind}";' in text
    for model in EVENT_MODELS:
        assert f"export interface {model.__name__} " in text


def test_a_kind_left_out_of_the_models_is_refused_not_sent() -> None:
    with pytest.raises(ValidationError):
        AgentEvent(session_id="s", event={"seq": 1, "kind": "mystery"})  # type: ignore[arg-type]


def test_an_update_of_a_kind_canvas_does_not_draw_passes_through_verbatim() -> None:
    update = {"sessionUpdate": "current_mode_update", "currentModeId": "code", "_meta": {"x": [1]}}
    frame = AgentEvent(session_id="s", event={"seq": 1, "kind": "chunk", "update": update})  # type: ignore[arg-type]
    assert frame.model_dump(by_alias=True)["event"]["update"] == update


def test_a_tool_update_keeps_what_the_agent_sent_beside_the_typed_fields() -> None:
    update = {
        "sessionUpdate": "tool_call_update",
        "toolCallId": "t",
        "content": [{"type": "diff", "path": "/w/a", "oldText": "a", "newText": "b"}],
        "rawOutput": {"exit_code": 1},
        "_meta": {"claudeCode": {"toolName": "Edit"}},
    }
    typed = ToolCallUpdate.model_validate(update)
    dumped = typed.model_dump(by_alias=True, exclude_none=True)
    assert dumped == update


def test_a_long_tool_output_is_cut_and_says_so() -> None:
    text = "x" * (agent_sessions.MAX_TOOL_TEXT_CHARS + 10)
    update = session_update(
        {
            "sessionUpdate": "tool_call_update",
            "toolCallId": "t",
            "content": [{"type": "content", "content": {"type": "text", "text": text}}],
        }
    )
    bounded = agent_sessions._bounded(update)
    assert isinstance(bounded, ToolCallUpdate) and bounded.content
    block = bounded.content[0]
    assert isinstance(block, ToolContentBlock) and hasattr(block.content, "text")
    kept = block.content.text
    assert kept.startswith("x" * agent_sessions.MAX_TOOL_TEXT_CHARS)
    assert kept.endswith("(10 more characters not kept)")
    assert json.loads(stored_json(update))["content"][0]["content"]["text"] == text


def test_a_turn_end_says_how_long_the_turn_took_and_the_head_offers_the_agents_commands() -> None:
    now = [100.0]
    sessions = Sessions({"demo": DEMO.info()}, clock=lambda: now[0])
    host = Peer("host-1", Access.HOST, "host")
    sessions.create(host, AgentCreate(id="s", agent="demo"))
    sessions.prompt(host, AgentPrompt(session_id="s", text="hi"))
    commands = [{"name": "run", "description": "Run a command"}]
    update = session_update({"sessionUpdate": "available_commands_update", "availableCommands": commands})
    announced = sessions.update("s", update)
    heads = [e.frame.meta for e in announced if hasattr(e, "frame") and hasattr(e.frame, "meta")]
    assert [c.name for c in heads[-1].commands] == ["run"]
    now[0] = 112.5
    ended = [e.event for e in sessions.turn_ended("s") if isinstance(e, StoreEvent)]
    assert json.loads(stored_json(ended[-1])) == {"seq": 2, "kind": "turn-end", "elapsed": 12.5}


def test_every_turn_end_is_an_item_with_its_elapsed_time() -> None:
    thread = thread_of(
        [
            {"seq": 1, "kind": "turn", "text": "a", "author": "host", "time": 0},
            {"seq": 2, "kind": "turn-end", "elapsed": 2.5},
        ]
    )
    assert thread["items"][-1] == {
        "type": "turn-end",
        "seq": 2,
        "error": None,
        "errorDetail": None,
        "cancelled": False,
        "interrupted": False,
        "elapsed": 2.5,
    }


def test_every_event_is_stored_as_it_was_written_before_the_models() -> None:
    """The store's JSON of an event is the JSON an event of that kind was stored as before: a log
    written by an earlier canvas reads, and is written back, the same."""
    for vector in _vectors():
        for event in vector["events"] + vector["compacted"]:
            try:
                typed = session_event(event)
            except ValidationError:
                assert vector["name"] == UNTYPED
                continue
            assert json.loads(stored_json(typed)) == event


def test_an_update_without_a_kind_is_no_event() -> None:
    with pytest.raises(ValidationError):
        session_update({"content": {"type": "text", "text": "x"}})
