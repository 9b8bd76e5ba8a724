"""The board core: interop vectors, refusal of bad updates, reconnection diffs, compaction, convergence."""

from __future__ import annotations

import base64
import importlib.util
import json
import random
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pycrdt import Doc, Map, Text, TransactionEvent

from canvasrelay.core import board_edits as board_api
from canvasrelay.core.board import Board, BoardUpdateError, decode_state_vector

VECTORS = Path(__file__).parent / "vectors" / "board"
JS_VECTORS = sorted(VECTORS.glob("js_*.json"))
PY_VECTORS = sorted(VECTORS.glob("py_*.json"))


def floats(value: Any) -> Any:
    """JSON with every number as a float: pycrdt reads JS integers back as floats."""
    if isinstance(value, bool) or value is None or isinstance(value, str):
        return value
    if isinstance(value, int | float):
        return float(value)
    if isinstance(value, list):
        return [floats(entry) for entry in value]
    return {key: floats(entry) for key, entry in value.items()}


def load(path: Path) -> dict[str, Any]:
    return json.loads(path.read_text(encoding="utf-8"))


def sample_board() -> Board:
    board = Board()
    note = board_api.add_note(board, "hello 😀 世界")
    shape = board_api.add_shape(board, "ellipse", "label")
    board_api.add_arrow(board, note.id, shape.id)
    board_api.add_frame(board, "terminal", "term-1", "shell")
    return board


def test_vectors_exist() -> None:
    assert len(JS_VECTORS) >= 8
    assert {p.name[3:] for p in JS_VECTORS} == {p.name[3:] for p in PY_VECTORS}


@pytest.mark.parametrize("path", JS_VECTORS + PY_VECTORS, ids=lambda p: p.stem)
def test_vector_applies_in_pycrdt(path: Path) -> None:
    vector = load(path)
    whole = Board()
    whole.apply_update(base64.b64decode(vector["update"]), origin="peer")
    assert floats(whole.to_json()) == floats(vector["expected"])
    stepwise = Board()
    for update in vector["updates"]:
        stepwise.apply_update(base64.b64decode(update), origin="peer")
    assert floats(stepwise.to_json()) == floats(vector["expected"])
    assert stepwise.updates_since_checkpoint == len(vector["updates"])


def test_unicode_vectors_read_through_the_api() -> None:
    board = Board()
    board.apply_update(base64.b64decode(load(VECTORS / "js_note_unicode.json")["update"]), origin="peer")
    assert board_api.read_item(board, "n1")["text"] == "Grüße 😀✨X 界 — ok"


def test_py_vectors_regenerate_identically() -> None:
    spec = importlib.util.spec_from_file_location("board_vector_generator", VECTORS / "generate.py")
    assert spec is not None and spec.loader is not None
    generator = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(generator)
    for generate in generator.GENERATORS:
        vector = generate()
        path = VECTORS / f"py_{vector['name']}.json"
        assert generator.render(vector) == path.read_text(encoding="utf-8"), path.name


def assert_refused(board: Board, update: bytes) -> None:
    before = board.state()
    with pytest.raises(BoardUpdateError):
        board.apply_update(update, origin="peer")
    assert board.state() == before


def real_updates() -> list[bytes]:
    return [base64.b64decode(load(path)["update"]) for path in JS_VECTORS + PY_VECTORS]


def test_truncated_real_updates_are_refused() -> None:
    board = sample_board()
    for update in real_updates():
        for end in range(len(update)):
            assert_refused(board, update[:end])
    assert len(board_api.list_items(board)) == 4


@pytest.mark.parametrize(
    "garbage", [b"", b"\x01", b"\xff" * 12, b"\x01\x01\x01\x01", bytes(range(1, 256)), b"{}", b"\x80" * 100]
)
def test_garbage_is_refused(garbage: bytes) -> None:
    assert_refused(sample_board(), garbage)


def test_partly_applied_updates_leave_the_board_unchanged() -> None:
    # yrs applies some of these corrupted updates half-way and then raises: a bare Doc changes.
    # Fixed bytes (a committed vector) and a fixed seed keep the corruptions the same every run.
    # A bare Doc finds the half-applied ones cheaply; the board is checked on each of those and
    # on every tenth of the rest.
    rng = random.Random(7)
    original = base64.b64decode(load(VECTORS / "py_frames.json")["update"])
    base = base64.b64decode(load(VECTORS / "py_arrow.json")["update"])
    half_applied: list[bytes] = []
    others: list[bytes] = []
    for _ in range(3000):
        corrupt = bytearray(original)
        for _ in range(rng.randrange(1, 4)):
            corrupt[rng.randrange(len(corrupt))] = rng.randrange(256)
        bare = Doc()
        bare.apply_update(base)
        bare_before = bare.get_update()
        try:
            bare.apply_update(bytes(corrupt))
        except Exception:
            if bare.get_update() != bare_before:
                half_applied.append(bytes(corrupt))
                continue
        others.append(bytes(corrupt))
    assert half_applied
    for corrupt in half_applied + others[::10]:
        board = Board.from_updates([base])
        before = board.state()
        try:
            board.apply_update(corrupt, origin="peer")
        except BoardUpdateError:
            assert board.state() == before
        # The board stays usable either way.
        board_api.add_note(board, "still fine")
        assert Board.from_updates([board.state()]).to_json() == board.to_json()


@settings(max_examples=300, deadline=None)
@given(st.binary(max_size=200))
def test_random_bytes_are_refused_or_harmless(data: bytes) -> None:
    board = sample_board()
    before = board.state()
    try:
        board.apply_update(data, origin="peer")
    except BoardUpdateError:
        assert board.state() == before
    else:
        assert Board.from_updates([before, data]).to_json() == board.to_json()


def test_update_with_missing_dependencies_is_refused() -> None:
    client = Doc()
    items = client.get("items", type=Map)
    items["n"] = Map({"kind": "note", "text": Text("one")})
    seen = client.get_state()
    text = items["n"]["text"]
    text += " two"
    later = client.get_update(seen)
    board = Board()
    assert_refused(board, later)
    board.apply_update(client.get_update(), origin="peer")
    assert board.to_json() == {"n": {"kind": "note", "text": "one two"}}


def test_from_updates_refuses_a_corrupt_row() -> None:
    good = sample_board().state()
    with pytest.raises(BoardUpdateError):
        Board.from_updates([good, good[:-3]])


def test_diff_gives_a_reconnecting_client_exactly_what_it_lacks() -> None:
    server = Board()
    stored: list[bytes] = []
    for text in ("first", "second"):
        stored.append(board_api.add_note(server, text).update)
    client = Doc()
    client.get("items", type=Map)
    for update in stored:
        client.apply_update(update)
    offline_at = client.get_state()
    note = board_api.add_note(server, "while you were away")
    board_api.move(server, note.id, 5, 5)
    missing = server.diff(offline_at)
    client.apply_update(missing)
    assert client.get("items", type=Map).to_py() == server.to_json()
    assert client.get_state() == server.state_vector()
    # What it lacks and no more: nothing new for a client that is up to date.
    assert decode_state_vector(server.state_vector()) == decode_state_vector(client.get_state())
    up_to_date = server.diff(client.get_state())
    again = Doc()
    again.apply_update(up_to_date)
    assert again.get("items", type=Map).to_py() in (None, {})


@pytest.mark.parametrize("bad", [b"", b"\x01", b"\x02\x01", b"\x00\x00", b"\xff" * 11, b"\x01\x01\x01\x01"])
def test_diff_refuses_a_bad_state_vector(bad: bytes) -> None:
    with pytest.raises(BoardUpdateError):
        sample_board().diff(bad)


def test_compaction_counter() -> None:
    board = Board()
    assert not board.needs_compaction(3)
    rows = [board_api.add_note(board, str(i)).update for i in range(3)]
    assert board.updates_since_checkpoint == 3 and board.needs_compaction(3)
    # Rebuilt from the store: the first row is the base, the others count.
    rebuilt = Board.from_updates(rows)
    assert rebuilt.updates_since_checkpoint == 2 and rebuilt.to_json() == board.to_json()
    checkpoint = board.checkpoint()
    assert board.updates_since_checkpoint == 0 and not board.needs_compaction(3)
    compacted = Board.from_updates([checkpoint])
    assert compacted.updates_since_checkpoint == 0 and compacted.to_json() == board.to_json()
    board.apply_update(Board().state(), origin="peer")
    assert board.updates_since_checkpoint == 1


def test_peer_updates_carry_the_peer_as_origin() -> None:
    source = sample_board()
    board = Board()
    origins: list[object] = []
    board.items.observe_deep(lambda events: origins.append(events[0].transaction.origin))
    board.apply_update(source.state(), origin="guest-7")
    assert origins == ["guest-7"]


# Convergence: three clients edit concurrently and exchange updates through the server in random order.

IDS = ("a", "b", "c", "d")
TEXTS = st.text(alphabet="ab é😀世", min_size=1, max_size=4)
EDITS = st.one_of(
    st.tuples(st.just("add"), st.sampled_from(IDS), TEXTS),
    st.tuples(st.just("move"), st.sampled_from(IDS), st.floats(-1e4, 1e4), st.floats(-1e4, 1e4)),
    st.tuples(st.just("insert"), st.sampled_from(IDS), st.floats(0, 1), TEXTS),
    st.tuples(st.just("delete"), st.sampled_from(IDS)),
)
STEPS = st.lists(
    st.one_of(
        st.tuples(st.just("edit"), st.integers(0, 2), EDITS),
        st.tuples(st.just("send"), st.integers(0, 2)),
        st.tuples(st.just("receive"), st.integers(0, 2)),
    ),
    max_size=40,
)


class Client:
    def __init__(self, client_id: int) -> None:
        self.doc = Doc(client_id=client_id)
        self.items = self.doc.get("items", type=Map)
        self.outbox: list[bytes] = []
        self.inbox: list[bytes] = []
        self.receiving = False
        self.doc.observe(self._collect)

    def _collect(self, event: TransactionEvent) -> None:
        # Only local edits go out; what came from the server must not echo back.
        if not self.receiving:
            self.outbox.append(event.update)

    def edit(self, edit: tuple[Any, ...]) -> None:
        kind, item_id = edit[0], edit[1]
        if kind == "add":
            self.items[item_id] = Map({"kind": "note", "x": 0.0, "y": 0.0, "text": Text(edit[2])})
            return
        item = self.items.get(item_id)
        if item is None:
            return
        if kind == "move":
            with self.doc.transaction():
                item["x"], item["y"] = edit[2], edit[3]
        elif kind == "insert":
            text = str(item["text"])
            # pycrdt offsets are UTF-8 bytes: insert at a character boundary.
            at = len(text[: round(edit[2] * len(text))].encode())
            item["text"].insert(at, edit[3])
        else:
            del self.items[item_id]

    def receive(self) -> None:
        self.receiving = True
        for update in self.inbox:
            self.doc.apply_update(update)
        self.receiving = False
        self.inbox.clear()


def send(server: Board, stored: list[bytes], clients: list[Client], sender: int) -> None:
    for update in clients[sender].outbox:
        server.apply_update(update, origin=f"client-{sender}")
        stored.append(update)
        for index, client in enumerate(clients):
            if index != sender:
                client.inbox.append(update)
    clients[sender].outbox.clear()


@settings(max_examples=120, deadline=None)
@given(STEPS)
def test_concurrent_edits_converge(steps: list[tuple[Any, ...]]) -> None:
    server = Board()
    stored: list[bytes] = []
    clients = [Client(client_id) for client_id in (11, 22, 33)]
    for step in steps:
        if step[0] == "edit":
            clients[step[1]].edit(step[2])
        elif step[0] == "send":
            send(server, stored, clients, step[1])
        else:
            clients[step[1]].receive()
    while any(client.outbox or client.inbox for client in clients):
        for index, client in enumerate(clients):
            send(server, stored, clients, index)
            client.receive()
    expected = server.to_json()
    for client in clients:
        assert (client.items.to_py() or {}) == expected
    assert Board.from_updates(stored).to_json() == expected
    compacted = Board.from_updates([server.checkpoint()])
    assert compacted.to_json() == expected
    assert compacted.state_vector() == server.state_vector()
