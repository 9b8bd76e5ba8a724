"""The board feature without sockets: the Room's board handlers, presence, compaction, the tools facade."""

from __future__ import annotations

import base64
import json
from pathlib import Path

import pytest
from pycrdt import Doc, Map, Text

from canvasrelay.core import board_edits as board_api
from canvasrelay.core.board import Board
from canvasrelay.core.board_room import (
    IDLE_COMPACT_S,
    AwarenessDue,
    BoardRoom,
    CompactBoard,
)
from canvasrelay.core.board_room import StoreBoardUpdate as Store_
from canvasrelay.core.effects import Broadcast, Send
from canvasrelay.core.feature import Feature
from canvasrelay.core.peer import Peer, RoomInfo
from canvasrelay.core.room import Room
from canvasrelay.protocol.access import Access
from canvasrelay.protocol.board import (
    AWARENESS_INTERVAL_S,
    AWARENESS_TIMEOUT_S,
    MAX_DRAGGING,
    MAX_SELECTION,
    AwarenessOut,
    BoardSync,
    BoardUpdateOut,
)
from canvasrelay.protocol.core import ErrorFrame
from canvasrelay.server.board.host import BoardStore
from canvasrelay.server.board.log import BOARD_LOG, read_updates


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def b64(data: bytes) -> str:
    return base64.b64encode(data).decode()


def make_room(compact_every: int = 500) -> tuple[Room, BoardRoom, Clock]:
    room = Room(RoomInfo(room_id="r", host_public_key="h", cwd="/"))
    clock = Clock()
    board_room = BoardRoom(room, Board(), clock=clock, compact_every=compact_every)
    room.install(board_room.feature())
    return room, board_room, clock


def note_update(doc: Doc, item_id: str = "n1", text: str = "hi") -> bytes:
    before = doc.get_state()
    items = doc.get("items", type=Map)
    items[item_id] = Map({"kind": "note", "x": 0.0, "y": 0.0, "w": 200.0, "h": 200.0, "z": 1.0, "text": Text(text)})
    return doc.get_update(before)


def frame(t: str, **fields: object) -> str:
    return json.dumps({"t": t, **fields})


def test_welcome_carries_the_full_board() -> None:
    room, board_room, _ = make_room()
    board_api.add_note(board_room.board, "on the board")
    welcome = room.join(Peer("a", Access.HOST))[0]
    assert isinstance(welcome, Send)
    doc = Doc()
    doc.apply_update(base64.b64decode(welcome.frame.board))  # type: ignore[attr-defined]
    assert [str(item["text"]) for item in doc.get("items", type=Map).values()] == ["on the board"]


def test_an_update_is_applied_stored_then_sent_to_the_others_only() -> None:
    room, board_room, _ = make_room()
    room.join(Peer("a", Access.HOST))
    update = note_update(Doc())
    effects = room.receive("a", frame("board-update", update=b64(update)))
    assert effects[0] == Store_(update, by="a"), "stored with who made it, for the recording"
    assert isinstance(effects[1], Broadcast) and effects[1].exclude == "a"
    assert isinstance(effects[1].frame, BoardUpdateOut) and base64.b64decode(effects[1].frame.update) == update
    assert "n1" in board_room.board.to_json()


def test_bad_updates_are_refused_and_change_nothing() -> None:
    room, board_room, _ = make_room()
    room.join(Peer("a", Access.HOST))
    before = board_room.board.state()
    other = Doc()
    note_update(other, "first")
    dependent = other.get_state()
    other.get("items", type=Map)["first"]["x"] = 5.0
    depends_on_missing = other.get_update(dependent)
    cases = {
        "not base64": "%%%",
        "garbage": b64(b"\xff\x13garbage"),
        "missing deps": b64(depends_on_missing),
    }
    for label, payload in cases.items():
        effects = room.receive("a", frame("board-update", update=payload))
        assert len(effects) == 1, label
        reply = effects[0]
        assert isinstance(reply, Send) and isinstance(reply.frame, ErrorFrame), label
        # A frame that fails parsing has no `ref` yet; its message names the frame instead.
        assert "board-update" in (reply.frame.ref or reply.frame.message), label
    assert board_room.board.state() == before


def test_a_view_guest_may_not_edit_but_sees_and_is_seen() -> None:
    room, board_room, _ = make_room()
    room.join(Peer("g", Access.VIEW, name="Guest", color="#112233"))
    effects = room.receive("g", frame("board-update", update=b64(note_update(Doc()))))
    assert isinstance(effects[0], Send) and isinstance(effects[0].frame, ErrorFrame)
    assert "View access does not allow editing the board" in effects[0].frame.message
    assert board_room.board.to_json() == {}
    state = {"name": "Mallory", "color": "#ffffff", "cursor": {"x": 1, "y": 2}}
    effects = room.receive("g", frame("awareness", state=state))
    assert isinstance(effects[0], Broadcast) and isinstance(effects[0].frame, AwarenessOut)
    # The room's name and colour for a guest, not the ones it claims.
    assert effects[0].frame.state is not None
    assert (effects[0].frame.state.name, effects[0].frame.state.color) == ("Guest", "#112233")


def test_sync_sends_only_what_the_client_lacks() -> None:
    room, board_room, _ = make_room()
    room.join(Peer("a", Access.HOST))
    board_api.add_note(board_room.board, "one")
    client = Doc()
    client.apply_update(board_room.board.state())
    board_api.add_note(board_room.board, "two")
    effects = room.receive("a", frame("board-sync", stateVector=b64(client.get_state())))
    reply = effects[0]
    assert isinstance(reply, Send) and isinstance(reply.frame, BoardSync)
    missing = base64.b64decode(reply.frame.update)
    assert len(missing) < len(board_room.board.state())
    client.apply_update(missing)
    assert client.get("items", type=Map).to_py() == board_room.board.to_json()
    assert base64.b64decode(reply.frame.state_vector) == board_room.board.state_vector()
    bad = room.receive("a", frame("board-sync", stateVector=b64(b"\x05\x01")))
    assert isinstance(bad[0], Send) and isinstance(bad[0].frame, ErrorFrame)


def test_awareness_is_relayed_given_to_joiners_and_expires() -> None:
    room, board_room, clock = make_room()
    room.join(Peer("a", Access.HOST))
    state = {"name": "Ann", "color": "#ff0000", "cursor": {"x": 10.5, "y": -3}, "selection": ["n1"]}
    effects = room.receive("a", frame("awareness", state=state))
    assert isinstance(effects[0], Broadcast) and effects[0].exclude == "a"
    joined = room.join(Peer("b", Access.HOST))
    relayed = [e.frame for e in joined if isinstance(e, Send) and isinstance(e.frame, AwarenessOut)]
    assert [(f.peer, f.state and f.state.name) for f in relayed] == [("a", "Ann")]
    room.receive("b", frame("awareness", state={**state, "name": "Bob"}))
    clock.now += AWARENESS_TIMEOUT_S + 1
    room.receive("b", frame("awareness", state={**state, "name": "Bob"}))
    gone = board_room.tick(clock())
    assert [(e.frame.peer, e.frame.state) for e in gone if isinstance(e, Broadcast)] == [("a", None)]  # type: ignore[union-attr]
    left = room.leave("b")
    assert [(e.frame.peer, e.frame.state) for e in left if isinstance(e, Broadcast)] == [("b", None)]  # type: ignore[union-attr]


def test_awareness_is_bounded_and_validated() -> None:
    room, _, _ = make_room()
    room.join(Peer("a", Access.HOST))
    bad_states = [
        {"name": "x" * 65, "color": "#ff0000"},
        {"name": "a", "color": "red; background: url(x)"},
        {"name": "a", "color": "#ff0000", "cursor": {"x": 1e308, "y": 0}},
        {"name": "a", "color": "#ff0000", "selection": ["x"] * (MAX_SELECTION + 1)},
        {"name": "a", "color": "#ff0000", "selection": ["x" * 33]},
        {"name": "a", "color": "#ff0000", "dragging": [{"id": "x", "x": 0, "y": 0}] * (MAX_DRAGGING + 1)},
        {"name": "a", "color": "#ff0000", "editing": "x" * 33},
        {"name": "a", "color": "#ff0000", "extra": 1},
    ]
    for state in bad_states:
        effects = room.receive("a", frame("awareness", state=state))
        assert isinstance(effects[0], Send) and isinstance(effects[0].frame, ErrorFrame), state


def test_the_largest_presence_is_small() -> None:
    room, _, _ = make_room()
    room.join(Peer("a", Access.HOST))
    ids = [f"{i:032d}" for i in range(MAX_SELECTION)]
    state = {
        "name": "n" * 64,
        "color": "#ff0000",
        "cursor": {"x": -1234567.123456789, "y": -1234567.123456789},
        "selection": ids,
        "dragging": [{"id": i, "x": -1234567.123456789, "y": -1234567.123456789} for i in ids[:MAX_DRAGGING]],
        "editing": ids[0],
    }
    effects = room.receive("a", frame("awareness", state=state))
    assert isinstance(effects[0], Broadcast)
    assert len(effects[0].frame.model_dump_json(by_alias=True)) < 1500


def test_a_peer_sending_presence_fast_is_relayed_at_most_every_interval_latest_first() -> None:
    room, board_room, clock = make_room()
    room.join(Peer("a", Access.HOST))
    room.join(Peer("b", Access.HOST))

    def state(x: float) -> str:
        return frame("awareness", state={"name": "Ann", "color": "#ff0000", "cursor": {"x": x, "y": 0}})

    def relayed(effects: list[object]) -> list[float]:
        frames = [e.frame for e in effects if isinstance(e, Broadcast) and isinstance(e.frame, AwarenessOut)]
        return [f.state.cursor.x for f in frames if f.state is not None and f.state.cursor is not None]

    assert relayed(room.receive("a", state(1))) == [1]
    clock.now += AWARENESS_INTERVAL_S / 4
    held = room.receive("a", state(2))
    assert relayed(held) == [] and len(held) == 1 and isinstance(held[0], AwarenessDue)
    assert held[0].delay == pytest.approx(AWARENESS_INTERVAL_S * 3 / 4)
    for x in range(3, 10):
        assert room.receive("a", state(x)) == []
    # another peer's presence is not held back by the first one's
    assert relayed(room.receive("b", state(100))) == [100]
    clock.now += AWARENESS_INTERVAL_S / 4
    assert board_room.flush_awareness() == [AwarenessDue(pytest.approx(AWARENESS_INTERVAL_S / 2))]  # type: ignore[arg-type]
    clock.now += AWARENESS_INTERVAL_S
    assert relayed(board_room.flush_awareness()) == [9]
    assert board_room.flush_awareness() == []
    room.receive("a", state(10))
    room.leave("a")
    assert board_room.flush_awareness() == [] and "a" not in board_room.sent_at and not board_room.unsent


def test_compaction_by_count_and_when_idle(tmp_path: Path) -> None:
    path = tmp_path / BOARD_LOG
    adapter = BoardStore.load(path)
    board_log = adapter.log
    room = Room(RoomInfo(room_id="r", host_public_key="h", cwd="/"))
    clock = Clock()
    board_room = BoardRoom(room, adapter.board, clock=clock, compact_every=5)
    room.install(board_room.feature())
    room.join(Peer("a", Access.HOST))
    doc = Doc()
    compactions = 0
    for i in range(12):
        for effect in room.receive("a", frame("board-update", update=b64(note_update(doc, f"n{i}", "x" * i)))):
            if isinstance(effect, Store_):
                board_log.append(effect.update)
            elif isinstance(effect, CompactBoard):
                compactions += 1
                board_log.replace(adapter.board.checkpoint())
    assert compactions == 2
    assert len(read_updates(path)) == 1 + 2
    assert board_room.tick(clock()) == []
    clock.now += IDLE_COMPACT_S
    assert board_room.tick(clock()) == [CompactBoard()]
    board_log.replace(adapter.board.checkpoint())
    assert len(read_updates(path)) == 1
    assert Board.from_updates(read_updates(path)).to_json() == adapter.board.to_json()
    board_log.close()


def test_only_the_host_takes_a_running_sessions_frame_off_the_board() -> None:
    room, board_room, _ = make_room()
    room.install(Feature("the test's sessions", live=lambda ref: ref == "running-session"))
    room.join(Peer("host", Access.HOST))
    room.join(Peer("g", Access.EDIT, name="Guest", color="#112233"))
    live = board_api.add_frame(board_room.board, "agent", "running-session").id
    gone = board_api.add_frame(board_room.board, "agent", "deleted-session").id

    def removal(item_id: str) -> str:
        """An update deleting `item_id` from a page that holds the board as it is now."""
        doc = Doc()
        doc.apply_update(board_room.board.state())
        before = doc.get_state()
        del doc.get("items", type=Map)[item_id]
        return b64(doc.get_update(before))

    refused = room.receive("g", frame("board-update", update=removal(live)))
    assert isinstance(refused[0], Send) and isinstance(refused[0].frame, ErrorFrame)
    assert "only the host can remove it" in refused[0].frame.message
    assert live in board_room.board.to_json()
    # A frame whose session is gone is a guest's to tidy away; the host may remove either.
    assert any(isinstance(e, Store_) for e in room.receive("g", frame("board-update", update=removal(gone))))
    assert gone not in board_room.board.to_json()
    assert any(isinstance(e, Store_) for e in room.receive("host", frame("board-update", update=removal(live))))
    assert live not in board_room.board.to_json()
