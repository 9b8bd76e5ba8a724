"""The board over real WebSockets on a real `canvas serve`: fan-out, restarts, crashes, refusals, convergence."""

from __future__ import annotations

import asyncio
import base64
import random
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from pycrdt import Doc, Map, Text

from canvasrelay.core.board import Board
from canvasrelay.server.board.log import BOARD_LOG, read_updates
from tests.support import HostClient, ServerProcess


def b64(data: bytes) -> str:
    return base64.b64encode(data).decode()


class BoardClient:
    """A host page's board as a pycrdt document: edits locally, sends updates, applies what arrives."""

    def __init__(self, client: HostClient) -> None:
        self.client = client
        self.doc = Doc()
        self.items = self.doc.get("items", type=Map)
        self.doc.apply_update(base64.b64decode(client.welcome["board"]))
        self.reader: asyncio.Task[None] | None = None
        self.frames: list[dict[str, Any]] = []
        self.pong = asyncio.Event()

    @classmethod
    async def connect(cls, server: ServerProcess) -> BoardClient:
        return cls(await HostClient.connect(server))

    async def edit(self, change: Callable[[Map], None]) -> bytes:
        before = self.doc.get_state()
        with self.doc.transaction():
            change(self.items)
        update = self.doc.get_update(before)
        await self.client.send({"t": "board-update", "update": b64(update)})
        return update

    def apply(self, frame: dict[str, Any]) -> None:
        self.doc.apply_update(base64.b64decode(frame["update"]))

    def start_reading(self) -> None:
        async def read() -> None:
            while True:
                frame = await self.client.next_frame(timeout=60)
                self.frames.append(frame)
                if frame["t"] == "board-update":
                    self.apply(frame)
                elif frame["t"] == "pong":
                    self.pong.set()

        self.reader = asyncio.create_task(read())

    async def settle(self) -> None:
        """Every frame the server sent before its pong has been applied (the socket is in order)."""
        self.pong.clear()
        await self.client.send({"t": "ping"})
        async with asyncio.timeout(10):
            await self.pong.wait()

    def json(self) -> dict[str, Any]:
        return self.items.to_py() or {}

    async def close(self) -> None:
        if self.reader is not None:
            self.reader.cancel()
        await self.client.close()


def note(text: str, x: float = 0.0) -> Map:
    return Map(
        {"kind": "note", "x": x, "y": 0.0, "w": 200.0, "h": 200.0, "z": 1.0, "color": "#ffd43b", "text": Text(text)}
    )


def stored_board(root: Path) -> dict[str, Any]:
    return Board.from_updates(read_updates(root / ".canvas" / BOARD_LOG)).to_json()


async def test_an_item_added_by_one_host_reaches_the_other_and_not_back(server: ServerProcess) -> None:
    a, b = await BoardClient.connect(server), await BoardClient.connect(server)
    try:
        update = await a.edit(lambda items: items.__setitem__("n1", note("from a")))
        got = await b.client.expect("board-update")
        assert base64.b64decode(got["update"]) == update
        b.apply(got)
        assert str(b.items["n1"]["text"]) == "from a"
        await a.client.send({"t": "ping"})
        await a.client.expect("pong")
        assert not [f for f in a.client.seen if f["t"] in ("board-update", "error")]
    finally:
        await a.close()
        await b.close()


@pytest.mark.serve_subprocess
async def test_a_restart_keeps_the_board(server: ServerProcess) -> None:
    a = await BoardClient.connect(server)
    await a.edit(lambda items: items.__setitem__("n1", note("kept")))
    await a.client.send({"t": "ping"})
    await a.client.expect("pong")
    await a.close()
    server.stop()
    server.start()
    c = await BoardClient.connect(server)
    try:
        assert str(c.items["n1"]["text"]) == "kept"
    finally:
        await c.close()


async def test_a_bad_update_gets_an_error_and_changes_nothing(server: ServerProcess) -> None:
    a, b = await BoardClient.connect(server), await BoardClient.connect(server)
    try:
        await a.edit(lambda items: items.__setitem__("n1", note("before")))
        b.apply(await b.client.expect("board-update"))
        seen_before = len(b.client.seen)
        orphan = Doc()
        orphan.get("items", type=Map)["x"] = note("never sent")
        sv = orphan.get_state()
        orphan.get("items", type=Map)["x"]["x"] = 9.0
        for payload in ["not base64!", b64(b"\x01\x02\x03garbage"), b64(orphan.get_update(sv))]:
            await a.client.send({"t": "board-update", "update": payload})
            refused = await a.client.expect("error")
            assert "board" in refused["message"]
        # The connection stays, and nothing reached the other client or the board.
        await a.edit(lambda items: items["n1"]["text"].__iadd__(" after"))
        got = await b.client.expect("board-update")
        assert b.client.seen[seen_before:] == [got]
        b.apply(got)
        assert str(b.items["n1"]["text"]) == "before after"
        fresh = await BoardClient.connect(server)
        assert fresh.json() == b.json()
        await fresh.close()
    finally:
        await a.close()
        await b.close()


@pytest.mark.serve_subprocess
async def test_kill9_right_after_an_update_was_sent_on_keeps_it(server: ServerProcess) -> None:
    a, b = await BoardClient.connect(server), await BoardClient.connect(server)
    await a.edit(lambda items: items.__setitem__("n1", note("survives a crash")))
    await b.client.expect("board-update")
    server.kill9()
    await a.close()
    await b.close()
    assert str(stored_board(server.root)["n1"]["text"]) == "survives a crash"
    server.start()
    c = await BoardClient.connect(server)
    try:
        assert str(c.items["n1"]["text"]) == "survives a crash"
    finally:
        await c.close()


async def test_a_reconnecting_client_syncs_both_ways_by_state_vector(server: ServerProcess) -> None:
    a, b = await BoardClient.connect(server), await BoardClient.connect(server)
    try:
        await a.edit(lambda items: items.__setitem__("n1", note("shared")))
        b.apply(await b.client.expect("board-update"))
        await b.client.close()
        # While b is away: a edits on the server, b edits offline.
        await a.edit(lambda items: items.__setitem__("n2", note("while b was away")))
        before = b.doc.get_state()
        b.items["n3"] = note("made offline")
        offline = b.doc.get_update(before)
        b.client = await HostClient.connect(server)
        await b.client.send({"t": "board-sync", "stateVector": b64(b.doc.get_state())})
        reply = await b.client.expect("board-sync")
        missing = base64.b64decode(reply["update"])
        assert len(missing) < len(base64.b64decode(b.client.welcome["board"]))
        b.apply(reply)
        server_lacks = b.doc.get_update(base64.b64decode(reply["stateVector"]))
        assert server_lacks == offline or len(server_lacks) <= len(offline) + 8
        await b.client.send({"t": "board-update", "update": b64(server_lacks)})
        a.apply(await a.client.expect("board-update"))
        assert a.json() == b.json()
        assert set(a.json()) == {"n1", "n2", "n3"}
    finally:
        await a.close()
        await b.close()


async def test_awareness_reaches_the_others_and_expires_when_a_client_leaves(server: ServerProcess) -> None:
    a, b = await HostClient.connect(server), await HostClient.connect(server)
    try:
        state = {"name": "Ann", "color": "#e03131", "cursor": {"x": 12.5, "y": 40}}
        await a.send({"t": "awareness", "state": state})
        got = await b.expect("awareness")
        assert got["state"]["cursor"] == {"x": 12.5, "y": 40.0} and got["state"]["name"] == "Ann"
        await a.send({"t": "awareness", "state": {**state, "cursor": {"x": "left", "y": 0}}})
        assert "cursor" in (await a.expect("error"))["message"]
        await a.close()
        gone = await b.expect("awareness", peer=got["peer"])
        assert gone["state"] is None
    finally:
        await b.close()


async def test_random_concurrent_edits_from_three_clients_converge(server: ServerProcess) -> None:
    clients = [await BoardClient.connect(server) for _ in range(3)]
    rng = random.Random(20240603)

    def random_edit() -> Callable[[Map], None]:
        choice = rng.random()

        def change(items: Map) -> None:
            # The keys as they are when the edit is made: a remote delete may have landed since.
            keys = list(items.keys())
            if not keys or choice < 0.3:
                items[f"i{rng.randrange(1 << 30)}"] = note(rng.choice(["a", "é", "😀", "世界"]), rng.uniform(-500, 500))
            elif choice < 0.6:
                items[rng.choice(keys)]["x"] = rng.uniform(-1000, 1000)
            elif choice < 0.85:
                text = items[rng.choice(keys)]["text"]
                # pycrdt offsets are UTF-8 bytes: the ends are the offsets that are always valid.
                text.insert(rng.choice([0, len(text)]), rng.choice(["x", "ü", "🙂"]))
            else:
                del items[rng.choice(keys)]

        return change

    try:
        for client in clients:
            client.start_reading()
        for _ in range(30):
            # Each round, all three edit before any hears the others: truly concurrent edits.
            await asyncio.gather(*(c.edit(random_edit()) for c in clients))
            await asyncio.sleep(rng.choice([0, 0, 0.005]))
        for client in clients:
            await client.settle()
        for client in clients:
            await client.settle()
        states = [c.json() for c in clients]
        assert states[0] == states[1] == states[2]
        assert len(states[0]) > 0
        assert not [f for c in clients for f in c.frames if f["t"] == "error"]
    finally:
        for client in clients:
            await client.close()
    server.stop()
    assert stored_board(server.root) == states[0]
