"""SIGTERM while a demo agent's turn streams for a minute: prompt and honest.

The server exits in under 3 s; the host and a guest hear "restarting" first, then the turn's end
as interrupted; the log keeps it so; and after a restart on the same port both reconnect and see
the interrupted turn.
"""

from __future__ import annotations

import asyncio
import signal
import time
from collections.abc import Callable
from typing import Any

import pytest

from canvasrelay.client.guest import Guest
from canvasrelay.protocol.session_events import TurnEndEvent
from canvasrelay.server.store import Store
from tests.support import HostClient, ServerProcess, as_sent

pytestmark = pytest.mark.timeout(180)

EXIT_WITHIN_S = 3.0
A_MINUTE_OF_CHUNKS = "/slow 300"


async def frames_until_closed(client: HostClient) -> list[dict[str, Any]]:
    frames: list[dict[str, Any]] = []
    while True:
        try:
            frames.append(await client.next_frame(timeout=15))
        except ConnectionError:
            return frames


async def guest_frames_until(guest: Guest, last: Callable[[dict[str, Any]], bool]) -> list[dict[str, Any]]:
    frames: list[dict[str, Any]] = []
    async with asyncio.timeout(60):
        while not frames or not last(frames[-1]):
            frames.append(await guest.frames.get())
    return frames


def interrupted(frame: dict[str, Any]) -> bool:
    event = frame.get("event") or {}
    return frame.get("t") == "agent-event" and event.get("kind") == "turn-end" and bool(event.get("interrupted"))


def assert_told_first(frames: list[dict[str, Any]]) -> None:
    """What was already streaming may arrive before it; the restart notice comes before the turn's
    interrupted end, and once it came the agent is heard no more."""
    kinds = [f["t"] for f in frames]
    told = kinds.index("restarting")
    ended = next(i for i, f in enumerate(frames) if interrupted(f))
    assert told < ended, kinds
    assert not any(f["t"] == "agent-event" and f["event"]["kind"] == "chunk" for f in frames[told:]), kinds


def history_events(frames: list[dict[str, Any]], session_id: str) -> list[dict[str, Any]]:
    return [e for f in frames if f.get("t") == "agent-history" and f["sessionId"] == session_id for e in f["events"]]


@pytest.mark.serve_subprocess
async def test_sigterm_during_a_turn(server: ServerProcess) -> None:
    host = await HostClient.connect(server)
    guest = await Guest(server.room_link, name="Ada", color="#3366aa").connect()
    await guest.expect("access")
    await host.send({"t": "agent-create", "id": "s1", "agent": "demo"})
    await host.expect("agent-options", sessionId="s1", timeout=60)
    await host.send({"t": "agent-prompt", "sessionId": "s1", "text": A_MINUTE_OF_CHUNKS})
    await host.expect("agent-event", sessionId="s1", timeout=60)
    await guest_frames_until(guest, lambda f: f["t"] == "agent-event")
    assert server.proc is not None
    port = int(server.base_url.rsplit(":", 1)[1])

    # The frames already on their way are not the test's business: from here on, count.
    host.seen.clear()
    while not guest.frames.empty():
        guest.frames.get_nowait()
    start = time.monotonic()
    server.proc.send_signal(signal.SIGTERM)
    to_host = asyncio.ensure_future(frames_until_closed(host))
    to_guest = asyncio.ensure_future(guest_frames_until(guest, interrupted))
    code = await asyncio.to_thread(server.proc.wait, 30)
    took = time.monotonic() - start
    server._drain()
    assert code == 0 and took < EXIT_WITHIN_S, f"exit {code} after {took:.1f} s"

    for frames in (await to_host, await to_guest):
        assert_told_first(frames)

    store = Store(server.root / ".canvas" / "canvas.db")
    try:
        logged = store.events("s1")
    finally:
        store.db.close()
    assert isinstance(logged[-1], TurnEndEvent) and logged[-1].interrupted is True
    assert [e.kind for e in logged].count("turn-end") == 1

    server.start("--port", str(port))
    await host.close()
    again = await HostClient.connect(server)
    heads = {head["id"]: head for head in again.welcome["sessions"]}
    assert heads["s1"]["status"] == "idle"
    while not (events := history_events(again.seen, "s1")) or events[-1]["seq"] < logged[-1].seq:
        await again.next_frame()
    assert events[-1] == as_sent(logged)[-1]
    # The guest reconnects by itself: a new stream (a gap, the new welcome), the turn as it ended.
    rejoined = [f["t"] for f in await guest_frames_until(guest, lambda f: f["t"] == "welcome")]
    assert "gap" in rejoined, rejoined
    while not (seen := history_events(guest.seen, "s1")) or seen[-1]["seq"] < logged[-1].seq:
        await guest.frames.get()
    assert seen[-1] == as_sent(logged)[-1]
    await guest.close()
    await again.close()
