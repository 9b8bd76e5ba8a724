"""Store writes commit in groups, and no frame goes out before the rows it follows are durable."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

from canvasrelay.core.effects import Broadcast, Effect
from canvasrelay.core.peer import Peer, RoomInfo
from canvasrelay.core.room import Room
from canvasrelay.protocol import encode
from canvasrelay.protocol.access import Access
from canvasrelay.protocol.core import Pong
from canvasrelay.protocol.session_events import NoticeEvent
from canvasrelay.server.runtime import Adapter, Runtime
from canvasrelay.server.store import Store


class Recorder:
    """A transport that notes, for every frame it is given, whether the store had rows uncommitted."""

    def __init__(self, store: Store) -> None:
        self.store = store
        self.sent: list[tuple[str, bool]] = []
        self.backlog = 0

    def send(self, text: str, at_once: bool = False) -> None:
        self.sent.append((text, self.store.db.in_transaction))

    async def flush(self) -> None:
        pass

    async def below(self, chars: int) -> None:
        pass

    async def close(self, code: int, reason: str) -> None:
        pass


class StageEvent(Effect):
    """A session event to store, as the agents host stages one per update it hears."""

    def __init__(self, text: str) -> None:
        self.text = text


def opened(path: Path) -> Store:
    store = Store(path)
    store.create_session("s", "demo")
    return store


def stage_in(store: Store, effect: StageEvent) -> None:
    # The store's own connection sees its staged rows: the next seq follows them.
    seq = len(store.events("s")) + 1
    store.stage_event("s", NoticeEvent(seq=seq, kind="notice", text=effect.text))


def stored(path: Path) -> list[str]:
    store = Store(path)
    try:
        return [event.text for event in store.events("s") if isinstance(event, NoticeEvent)]
    finally:
        store.close()


async def test_rows_staged_in_one_turn_commit_once_and_frames_wait_for_it(tmp_path: Path) -> None:
    store = opened(tmp_path / "canvas.db")
    commits: list[int] = []

    def commit() -> None:
        commits.append(len(store.events("s")))
        store.commit()

    room = Room(RoomInfo(room_id="r", host_public_key="h", cwd="/"))
    runtime = Runtime(room, commit=commit)

    async def stage(effect: StageEvent) -> None:
        stage_in(store, effect)
        runtime.staged()

    runtime.install(Adapter("the test's store", {StageEvent: stage}))
    recorder = Recorder(store)
    await runtime.connect(Peer("p", Access.HOST), recorder)
    recorder.sent.clear()

    await asyncio.gather(
        *(runtime.run([StageEvent(str(n)), Broadcast(Pong())]) for n in range(5)),
    )
    assert commits == [5]
    assert len(recorder.sent) == 5 and not any(uncommitted for _, uncommitted in recorder.sent)

    await runtime.run([Broadcast(Pong())])
    assert commits == [5] and len(recorder.sent) == 6
    store.close()
    assert stored(tmp_path / "canvas.db") == [str(n) for n in range(5)]


class ClosingRecorder(Recorder):
    """A Recorder that also notes, in the same list, when it is closed."""

    async def close(self, code: int, reason: str) -> None:
        self.sent.append((f"closed {code}", self.store.db.in_transaction))


async def test_what_an_adapter_heard_before_the_stop_goes_out_before_the_restart_notice(tmp_path: Path) -> None:
    store = Store(tmp_path / "canvas.db")
    room = Room(RoomInfo(room_id="r", host_public_key="h", cwd="/"))
    runtime = Runtime(room, commit=store.commit)
    order: list[str] = []

    async def quiet() -> None:
        # As the agents host carries out the chunk it read just before the signal.
        order.append("quiet")
        await runtime.run([Broadcast(Pong())])

    async def interrupt() -> None:
        order.append("interrupt")

    runtime.on_stopping(interrupt, quiet=quiet)
    recorder = ClosingRecorder(store)
    await runtime.connect(Peer("p", Access.HOST), recorder)
    recorder.sent.clear()

    await runtime.stopping()
    assert order == ["quiet", "interrupt"]
    assert [json.loads(text)["t"] for text, _ in recorder.sent] == ["pong", "restarting"]
    store.close()


async def test_a_stopping_server_sends_its_last_frames_only_once_their_rows_commit(tmp_path: Path) -> None:
    store = opened(tmp_path / "canvas.db")
    room = Room(RoomInfo(room_id="r", host_public_key="h", cwd="/"))
    runtime = Runtime(room, commit=store.commit)

    async def stage(effect: StageEvent) -> None:
        stage_in(store, effect)
        runtime.staged()

    async def interrupt() -> None:
        # As the agents host ends a running turn: a stored row, then the frame that tells it.
        await runtime.run([StageEvent("turn-end"), Broadcast(Pong())])

    runtime.install(Adapter("the test's store", {StageEvent: stage}))
    runtime.on_stopping(interrupt)
    recorder = ClosingRecorder(store)
    await runtime.connect(Peer("p", Access.HOST), recorder)
    recorder.sent.clear()

    await runtime.stopping()
    assert [(json.loads(text)["t"], uncommitted) for text, uncommitted in recorder.sent] == [
        ("restarting", False),
        ("pong", False),
    ]
    # A row staged as the transports close: its frame still leaves, committed, before the goodbye.
    stage_in(store, StageEvent("late"))
    runtime.staged()
    runtime.multicast(Pong(), ["p"])
    await runtime.close()
    assert recorder.sent[2:] == [(encode(Pong()), False), ("closed 1001", False)]
    store.close()
    assert stored(tmp_path / "canvas.db") == ["turn-end", "late"]
