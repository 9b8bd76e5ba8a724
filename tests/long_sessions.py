"""Long agent sessions written straight into a real store, in the demo agent's shapes: a prompt, a
plan, a reply streamed in chunks, now and then a write with its tool call and permission, the end.

For the tests and benchmarks of rooms that ran for a day: writing 50,000 events through a real
agent would take an hour, and what is measured here is the store, the server and the clients.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from canvasrelay.core import board_edits, session_log
from canvasrelay.core.board import Board
from canvasrelay.protocol.agents import SessionMeta
from canvasrelay.protocol.session_events import LogHead, session_event, stored_json
from canvasrelay.server.board.log import BOARD_LOG, BoardLog
from canvasrelay.server.store import Store, open_store

WORDS = ["the", "parser", "reads", "each", "line", "and", "keeps", "the", "tokens", "it", "needs", "for", "the"]


def reply(turn: int) -> str:
    """The text of one turn's reply: what a test looks for on the screen."""
    return f"You said: turn {turn}. " + " ".join(WORDS[(turn + i) % len(WORDS)] for i in range(12))


def turn_events(turn: int) -> Iterator[dict[str, Any]]:
    """One turn without seqs: every fifth is a write that asks for permission."""
    yield {"kind": "turn", "text": f"turn {turn}", "author": "host", "time": 1_700_000_000 + turn}
    plan = [{"content": "read the request", "status": "completed"}, {"content": "answer", "status": "in_progress"}]
    yield {"kind": "chunk", "update": {"sessionUpdate": "plan", "entries": plan}}
    if turn % 5 == 4:
        tool = f"w{turn}"
        yield {
            "kind": "chunk",
            "update": {"sessionUpdate": "tool_call", "toolCallId": tool, "title": f"Write t{turn}.txt", "kind": "edit"},
        }
        yield {
            "kind": "permission",
            "requestId": f"p{turn}",
            "toolCallId": tool,
            "title": f"Write t{turn}.txt",
            "options": [{"optionId": "allow_once", "name": "Allow", "kind": "allow_once"}],
        }
        yield {"kind": "permission-resolved", "requestId": f"p{turn}", "optionId": "allow_once", "by": "host"}
        yield {
            "kind": "chunk",
            "update": {"sessionUpdate": "tool_call_update", "toolCallId": tool, "status": "completed"},
        }
    words = reply(turn).split(" ")
    for i in range(0, len(words), 2):
        text = " ".join(words[i : i + 2]) + ("" if i + 2 >= len(words) else " ")
        yield {
            "kind": "chunk",
            "update": {"sessionUpdate": "agent_message_chunk", "content": {"type": "text", "text": text}},
        }
    yield {"kind": "turn-end"}


def session_events(count: int) -> list[dict[str, Any]]:
    """A log of `count` events (the last turn cut short if need be, then ended)."""
    events: list[dict[str, Any]] = []
    turn = 0
    while len(events) < count - 1:
        for event in turn_events(turn):
            if len(events) == count - 1:
                break
            events.append({"seq": len(events) + 1, **event})
        turn += 1
    events.append({"seq": count, "kind": "turn-end"})
    return events


def write_sessions(root: Path, sessions: int, events: int, on_board: bool = True) -> list[str]:
    """`sessions` sessions of `events` events each in `root`'s store, each in a frame on the board."""
    store = open_store(root / ".canvas")
    board_log, updates = BoardLog.open(root / ".canvas" / BOARD_LOG)
    try:
        board = Board.from_updates(updates)
        ids = []
        for n in range(sessions):
            session_id = f"long{n}"
            write_log(store, session_id, session_events(events), created=1_700_000_000 + n)
            if on_board:
                edit = board_edits.add_frame(board, "agent", session_id, x=n * 520.0, y=0.0, w=500.0, h=640.0)
                board_log.append(edit.update)
            ids.append(session_id)
        return ids
    finally:
        board_log.close()
        store.close()


def write_log(store: Store, session_id: str, events: list[dict[str, Any]], created: float) -> None:
    """The session's row and log in one transaction, as the server leaves them after a turn."""
    head = LogHead()
    for event in events:
        head = session_log.advance(head, session_event(event))
    store.create_session(session_id, "demo", "", SessionMeta(agent_label="Demo agent"))
    with store.db:
        store.db.execute("UPDATE sessions SET created = ? WHERE id = ?", (created, session_id))
        store.db.executemany(
            "INSERT INTO session_events (session_id, seq, event) VALUES (?, ?, ?)",
            [(session_id, e["seq"], _json(e)) for e in events],
        )
        store.db.execute("UPDATE sessions SET head = ? WHERE id = ?", (stored_json(head), session_id))


def _json(value: Any) -> str:
    return json.dumps(value, separators=(",", ":"))
