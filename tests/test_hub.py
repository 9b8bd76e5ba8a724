"""Real guests against a real hub and rendezvous on loopback, inside one `canvas serve`: on wrtc,
and where a test says so, aiortc guests (where wrtc has no wheel) against the wrtc hub."""

from __future__ import annotations

import asyncio
import base64
import json
import re
import time
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ClassVar, Literal

import aiohttp
import pytest
from pycrdt import Doc, Map

from canvasrelay.client.guest import Guest, HubRefused, RoomLink
from canvasrelay.core.effects import AnyEffect, Broadcast
from canvasrelay.core.feature import Feature, Route
from canvasrelay.core.peer import Peer
from canvasrelay.net.peer_connection import library
from canvasrelay.protocol import CLIENT_FRAMES, ClientFrame, ServerFrame, signal_crypto
from canvasrelay.protocol.access import Action
from canvasrelay.server.app import CanvasServer, ServeOptions
from canvasrelay.server.room_secrets import RoomSecrets
from canvasrelay.server.runtime import Adapter
from tests.probe_frames import Browse, Draw, Permission, Prompt, Ran, Type
from tests.support import HostClient, InProcessServer


class Emit(ClientFrame):
    """The host asks for `count` streamed frames, as an agent's chunks would be."""

    t: Literal["x-emit"] = "x-emit"
    action: ClassVar[Action] = Action.ADMIN
    start: int
    count: int
    pad: int = 0


class Chunk(ServerFrame):
    t: Literal["x-chunk"] = "x-chunk"
    i: int
    pad: str = ""


TEST_FRAMES: list[type[ClientFrame]] = [Prompt, Draw, Browse, Type, Permission, Emit]


@dataclass
class Served(InProcessServer):
    ran: list[str] = field(default_factory=list)


@pytest.fixture
def test_frames() -> Iterator[None]:
    for frame in TEST_FRAMES:
        CLIENT_FRAMES[frame.model_fields["t"].default] = frame
    yield
    for frame in TEST_FRAMES:
        CLIENT_FRAMES.pop(frame.model_fields["t"].default, None)


@pytest.fixture
async def served(project: Path, test_frames: None) -> AsyncIterator[Served]:
    server = CanvasServer(ServeOptions(root=project))
    served = Served(server)

    def run(what: str):  # type: ignore[no-untyped-def]
        return lambda peer, frame: [Ran(" ".join(filter(None, [what, getattr(frame, "text", ""), "by", peer.name])))]

    asked = [(Prompt, "prompt"), (Draw, "draw"), (Browse, "browse"), (Type, "type"), (Permission, "answer")]
    routes: dict[type[ClientFrame], Route[Any]] = {frame: Route(run(what)) for frame, what in asked}

    def emit(_peer: Peer, frame: Emit) -> list[AnyEffect]:
        return [Broadcast(Chunk(i=i, pad="p" * frame.pad)) for i in range(frame.start, frame.start + frame.count)]

    routes[Emit] = Route(emit)
    server.room.install(Feature("the test's frames", routes=routes))

    async def record(effect: Ran) -> None:
        served.ran.append(effect.what)

    server.runtime.install(Adapter("the test's record", {Ran: record}))
    await server.start()
    yield served
    await server.stop()


async def joined(served: Served, name: str = "Ada", **kwargs: object) -> Guest:
    guest = await Guest(served.room_link, name=name, color="#3366aa", **kwargs).connect()  # type: ignore[arg-type]
    await guest.expect("access")
    return guest


async def set_room_access(host: HostClient, access: str) -> None:
    await host.send({"t": "room-set-access", "access": access})
    await host.expect("guests", defaultAccess=access)


def board_update() -> str:
    doc = Doc()
    doc["nodes"] = nodes = Map()
    nodes["x"] = "a guest's note"
    return base64.b64encode(doc.get_update()).decode("ascii")


async def test_view_guest_is_refused_everything(served: Served, host_client: HostClient) -> None:
    guest = await joined(served)
    assert guest.welcome["access"] == "view"
    assert guest.welcome["project"] == served.server.root.name and guest.welcome["cwd"] is None
    assert str(served.server.root) not in json.dumps(guest.seen)
    host_peer = served.server.room.peers[host_client.welcome["peerId"]]
    board_before = served.server.room.welcome(host_peer).board
    attempts: list[dict[str, object]] = [
        {"t": "term-open", "id": "t1"},
        {"t": "term-input", "id": "t1", "data": "touch pwned\n"},
        {"t": "term-resize", "id": "t1", "cols": 100, "rows": 30},
        {"t": "term-close", "id": "t1"},
        {"t": "board-update", "update": board_update()},
        {"t": "tree-watch"},
        {"t": "file-open", "path": "README.md"},
        {"t": "x-prompt", "text": "rm -rf /"},
        {"t": "x-draw"},
        {"t": "x-browse"},
        {"t": "x-type"},
        {"t": "x-permission"},
        {"t": "x-emit", "start": 0, "count": 1},
        {"t": "guest-set-access", "guestId": guest.guest_id, "access": "trusted"},
        {"t": "room-set-access", "access": "trusted"},
        {"t": "guest-kick", "guestId": guest.guest_id},
        {"t": "approval-answer", "id": "a1", "answer": "approve"},
        {"t": "terminal-grant", "guestId": guest.guest_id, "terminalId": "t1", "granted": True},
    ]
    for frame in attempts:
        await guest.send(frame)
        refusal = await guest.expect("error", ref=frame["t"])
        assert "does not allow" in refusal["message"], refusal
    await guest.send({"t": "ping"})
    await guest.expect("pong")
    assert served.ran == []
    assert served.server.room.welcome(host_peer).board == board_before
    # No shell started: the room holds no terminal, and nothing ran the typed command.
    assert served.server.terminals.terminals == {} and not (served.server.root / "pwned").exists()
    assert not any(f["t"] in ("file", "tree", "term-data") for f in guest.seen)
    assert served.server.guests.pending == {} and served.server.guests.default_access.value == "view"
    assert not any(f["t"] == "approval-request" for f in host_client.seen)
    await guest.close()


async def test_edit_prompt_needs_the_host(served: Served, host_client: HostClient) -> None:
    await set_room_access(host_client, "edit")
    guest = await joined(served)
    await guest.send({"t": "x-draw"})
    await guest.send({"t": "x-prompt", "text": "please fix the tests"})
    pending = await guest.expect("request-pending", ref="x-prompt")
    request = await host_client.expect("approval-request", id=pending["id"])
    assert request["name"] == "Ada" and request["text"] == "please fix the tests" and request["what"] == "x-prompt"
    assert served.ran == ["draw by Ada"]
    await host_client.send({"t": "approval-answer", "id": request["id"], "answer": "approve"})
    await guest.expect("approval-resolved", id=request["id"], outcome="approved")
    assert served.ran[-1] == "prompt please fix the tests by Ada"

    await guest.send({"t": "x-prompt", "text": "deny me"})
    request = await host_client.expect("approval-request", text="deny me")
    await host_client.send({"t": "approval-answer", "id": request["id"], "answer": "deny"})
    await guest.expect("approval-resolved", id=request["id"], outcome="denied")

    served.server.guests.approval_ttl = 0.5
    await guest.send({"t": "x-prompt", "text": "nobody answers"})
    await guest.expect("approval-resolved", outcome="expired", timeout=5)
    await host_client.expect("approval-resolved", outcome="expired")
    served.server.guests.approval_ttl = 60.0

    await guest.send({"t": "x-prompt", "text": "trust me"})
    request = await host_client.expect("approval-request", text="trust me")
    await host_client.send({"t": "approval-answer", "id": request["id"], "answer": "trust"})
    await guest.expect("access", access="trusted")
    await guest.send({"t": "x-prompt", "text": "directly"})
    await guest.send({"t": "x-permission"})
    assert "does not allow" in (await guest.expect("error", ref="x-permission"))["message"]
    assert served.ran == [
        "draw by Ada",
        "prompt please fix the tests by Ada",
        "prompt trust me by Ada",
        "prompt directly by Ada",
    ]
    await guest.close()


async def test_host_lists_raises_lowers_and_kicks(served: Served, host_client: HostClient) -> None:
    guest = await joined(served)
    listing = await host_client.expect("guests")
    while not listing["guests"]:
        listing = await host_client.expect("guests")
    assert [(g["name"], g["access"], g["connected"]) for g in listing["guests"]] == [("Ada", "view", True)]
    await host_client.send({"t": "guest-set-access", "guestId": guest.guest_id, "access": "edit"})
    await guest.expect("access", access="edit")
    await host_client.send({"t": "guest-set-access", "guestId": guest.guest_id, "access": "view"})
    await guest.expect("access", access="view")
    await host_client.send({"t": "guest-kick", "guestId": guest.guest_id})
    bye = await guest.expect("bye")
    assert "removed" in bye["reason"]
    again = Guest(served.room_link, name="Ada", identity=guest.identity)
    with pytest.raises(HubRefused, match="removed"):
        await again.connect()
    await guest.close()


async def test_the_join_page_learns_whose_room_it_is_and_who_is_there(served: Served, host_client: HostClient) -> None:
    visitor = Guest(served.room_link, name="Bo")
    about = await visitor.about()
    assert (about.project, about.host, about.access) == ("project", None, "view")
    await host_client.send({"t": "host-profile", "name": "Hana", "color": "#aa3366"})
    await host_client.send({"t": "room-set-access", "access": "edit"})
    await host_client.expect("guests", defaultAccess="edit")
    about = await visitor.about()
    assert (about.project, about.host, about.access) == ("project", "Hana", "edit")
    # Everyone hears who is here: the host by the name it gave, each guest with its access.
    guest = await joined(served)
    people = await guest.expect("people")
    while len(people["people"]) < 2:
        people = await guest.expect("people")
    assert sorted((p["name"], p["access"]) for p in people["people"]) == [("Ada", "edit"), ("Hana", "host")]
    await guest.close()


async def test_wrong_keys_and_a_blind_rendezvous(served: Served) -> None:
    link = RoomLink.parse(served.room_link)
    spy_url = f"{link.signal}?topic={signal_crypto.topic(link.key)}"
    async with aiohttp.ClientSession() as session, session.ws_connect(spy_url) as spy:
        relayed: list[str] = []
        refusals: list[str] = []
        # A peer without the room key: its offer opens for nobody, so nobody answers it; the hub
        # only signs a refusal of that very envelope, which tells the sender its key is wrong.
        stranger = signal_crypto.signal_key(RoomSecrets.generate().room_key)
        stranger_offer = signal_crypto.seal(stranger, {"kind": "offer", "from": "x", "sdp": "v=0", "nonce": "AA"})
        await spy.send_str(stranger_offer)
        impostor_link = served.room_link.replace(link.host_key, RoomSecrets.generate().host_public_key)
        with pytest.raises(HubRefused, match="prove"):
            await Guest(impostor_link, name="Mallory", reconnect=False).connect()
        guest = await joined(served, name="Zed Secretname")
        await guest.close()
        async with asyncio.timeout(5):
            while len(relayed) < 4:
                text = (await spy.receive()).data
                (refusals if text.startswith(signal_crypto.REFUSAL_TAG) else relayed).append(text)
    assert len(refusals) == 1 and signal_crypto.refuses(link.host_key, refusals[0], stranger_offer)
    key = signal_crypto.signal_key(link.key)
    opened = [signal_crypto.open_envelope(key, text) for text in relayed]
    assert [m["kind"] for m in opened] == ["offer", "answer", "offer", "answer"]
    assert opened[1]["to"] == opened[0]["from"] and opened[3]["to"] == opened[2]["from"]
    # The relay sees only opaque base64url: no JSON, no SDP line ("v=0" has a character outside the
    # alphabet). Only words long enough never to turn up by chance in random base64 are looked for.
    opaque = re.compile(r"[A-Za-z0-9_-]+")
    assert all(opaque.fullmatch(text) for text in relayed)
    signed = [part for text in refusals for part in text.removeprefix(signal_crypto.REFUSAL_TAG).split(".")]
    assert all(opaque.fullmatch(part) for part in signed)
    for text in relayed + refusals:
        for plain in ("fingerprint", "candidate", link.room_id, link.key, "Secretname"):
            assert plain not in text


async def test_bad_frames_get_errors_and_the_channel_stays(served: Served) -> None:
    guest = await joined(served)
    await guest.send("not json")
    assert "not JSON" in (await guest.expect("error"))["message"]
    await guest.send({"t": "no-such-frame"})
    assert "unknown frame type" in (await guest.expect("error"))["message"]
    await guest.send({"t": "x-prompt", "text": 5})
    assert "bad x-prompt frame" in (await guest.expect("error"))["message"]
    big = json.dumps({"t": "x-prompt", "text": "é" * 300_000}, ensure_ascii=False)
    await guest.send(big)
    assert "does not allow" in (await guest.expect("error", ref="x-prompt"))["message"]
    await guest.send(json.dumps({"t": "x-prompt", "text": "a" * (2 << 20)}))
    assert "too large" in (await guest.expect("error"))["message"]
    guest.channel.send('{"t":"chunk","id":1,"more":"yes"}')  # type: ignore[union-attr]
    assert "malformed chunk" in (await guest.expect("error"))["message"]
    await guest.send({"t": "ping"})
    await guest.expect("pong")
    await guest.close()


async def test_a_flooding_guest_is_throttled_and_another_still_answered(served: Served) -> None:
    # How fast the calm guest is answered is a figure for the benchmarks (tests/bench/), not a test.
    flooder = await joined(served, name="Flood")
    calm = await joined(served, name="Calm")
    stop = asyncio.Event()

    async def flood() -> None:
        while not stop.is_set():
            for _ in range(50):
                await flooder.send({"t": "ping"})
            await asyncio.sleep(0.005)

    flooding = asyncio.get_running_loop().create_task(flood())
    # Over its rate, or with its queue full (whichever a loaded machine hits first), it is told.
    # Its pings are answered until it is over its rate (or its queue is full): then it is told.
    assert (await flooder.expect("error", timeout=15))["message"].startswith("throttled: ")
    round_trips = []
    for _ in range(20):
        start = time.perf_counter()
        await calm.send({"t": "ping"})
        await calm.expect("pong")
        round_trips.append((time.perf_counter() - start) * 1000)
    stop.set()
    await flooding
    round_trips.sort()
    print(f"calm guest round trip under flood: p50 {round_trips[10]:.1f} ms, max {round_trips[-1]:.1f} ms")
    assert len(round_trips) == 20
    await flooder.close()
    await calm.close()


@pytest.mark.parametrize("webrtc", ["wrtc", "aiortc"])
async def test_a_dropped_guest_resumes_without_a_gap(served: Served, host_client: HostClient, webrtc: str) -> None:
    guest = await joined(served, webrtc=library(webrtc))
    await host_client.send({"t": "x-emit", "start": 0, "count": 200})
    await guest.expect("x-chunk", i=199)
    await guest.drop()
    await host_client.send({"t": "x-emit", "start": 200, "count": 300})
    await guest.expect("x-chunk", i=499, timeout=20)
    received = [f["i"] for f in guest.seen if f["t"] == "x-chunk"]
    assert received == list(range(500))
    assert not any(f["t"] in ("gap", "welcome") for f in guest.seen[1:])
    assert guest.connections == 2
    listing = served.server.guests.guest_list()
    assert [(g.name, g.connected) for g in listing.guests] == [("Ada", True)]
    await guest.close()


async def test_a_guest_beyond_the_ring_gets_a_gap_and_the_full_state(served: Served, host_client: HostClient) -> None:
    guest = await joined(served, reconnect=False)
    await host_client.send({"t": "x-emit", "start": 0, "count": 10})
    await guest.expect("x-chunk", i=9)
    await guest.drop()
    await host_client.send({"t": "x-emit", "start": 10, "count": 5})
    await host_client.send({"t": "ping"})
    await host_client.expect("pong")
    served.server.hub.live[guest.guest_id].stream.ring.clear()  # type: ignore[union-attr]
    await guest.connect()
    gap = await guest.expect("gap")
    assert gap["after"] is not None
    await guest.expect("welcome")
    assert not any(f["t"] == "x-chunk" and f["i"] >= 10 for f in guest.seen)
    await host_client.send({"t": "x-emit", "start": 15, "count": 1})
    await guest.expect("x-chunk", i=15)
    await guest.close()


async def test_an_edit_guest_opens_a_real_terminal_once_approved(served: Served, host_client: HostClient) -> None:
    await set_room_access(host_client, "edit")
    guest = await joined(served)
    await guest.send({"t": "term-open", "id": "gt1", "cols": 80, "rows": 24})
    request = await host_client.expect("approval-request", what="term-open")
    await guest.send({"t": "term-input", "id": "gt1", "data": "echo nope\n"})
    assert "does not allow" in (await guest.expect("error", ref="term-input"))["message"]
    await host_client.send({"t": "approval-answer", "id": request["id"], "answer": "approve"})
    await guest.expect("term-data", id="gt1")
    # The host's approval hands the new terminal to the guest who asked for it.
    await guest.expect("access", grantedTerminals=["gt1"])
    listing = await host_client.expect("terminals")
    while not listing["terminals"] or not listing["terminals"][0]["controllers"]:
        listing = await host_client.expect("terminals")
    assert [(t["name"], [c["name"] for c in t["controllers"]]) for t in listing["terminals"]] == [
        ("Terminal 1", ["Ada"])
    ]
    await host_client.send({"t": "term-open", "id": "gt1", "cols": 80, "rows": 24})
    await guest.send({"t": "term-input", "id": "gt1", "data": "echo typed-by-$((20+22))\n"})
    for watcher in (guest, host_client):
        async with asyncio.timeout(10):
            while "typed-by-42" not in json.dumps(await watcher.expect("term-data", id="gt1")):
                pass
    await host_client.send({"t": "term-close", "id": "gt1"})
    await guest.close()


async def test_a_terminal_grant_does_not_pass_to_the_next_shell_under_its_id(
    served: Served, host_client: HostClient
) -> None:
    await set_room_access(host_client, "edit")
    guest = await joined(served)
    await host_client.send({"t": "term-open", "id": "T", "cols": 80, "rows": 24})
    await host_client.send({"t": "terminal-grant", "guestId": guest.guest_id, "terminalId": "T", "granted": True})
    await guest.expect("access", grantedTerminals=["T"])
    await guest.send({"t": "term-open", "id": "T"})
    await guest.send({"t": "term-input", "id": "T", "data": "echo first-$((6*7))\n"})
    async with asyncio.timeout(10):
        while "first-42" not in (await guest.expect("term-data", id="T"))["data"]:
            pass
    await guest.send({"t": "term-input", "id": "T", "data": "exit\n"})
    await host_client.expect("term-exit", timeout=10, id="T")
    await guest.expect("access", grantedTerminals=[])
    # The host clears the ended terminal and opens a new shell under the same id.
    await host_client.send({"t": "term-close", "id": "T"})
    await host_client.send({"t": "term-open", "id": "T", "cols": 80, "rows": 24})
    fresh = {"id": "T", "name": "Terminal 1", "running": True, "exitCode": None, "endedWhileStopped": False}
    fresh |= {"controllers": [], "cols": 80, "rows": 24, "pinned": False}
    await host_client.expect("terminals", terminals=[fresh])
    await guest.send({"t": "term-input", "id": "T", "data": "touch pwned\n"})
    refusal = await guest.expect("error", ref="term-input")
    assert "does not allow typing in a terminal the host has not handed over" in refusal["message"]
    await host_client.send({"t": "term-close", "id": "T"})
    assert not (served.server.root / "pwned").exists()
    await guest.close()


async def test_a_guest_that_falls_behind_skips_to_the_full_state(served: Served, host_client: HostClient) -> None:
    guest = await joined(served)
    # One burst larger than a guest may have unsent: the hub gives up on the backlog at once.
    await host_client.send({"t": "x-emit", "start": 0, "count": 100, "pad": 100_000})
    gap = await guest.expect("gap", timeout=20)
    assert "behind" in gap["reason"]
    await guest.expect("welcome")
    await host_client.send({"t": "x-emit", "start": 100, "count": 1})
    await guest.expect("x-chunk", i=100, timeout=20)
    assert served.server.hub.live[guest.guest_id].stream.pending_bytes < 1 << 20  # type: ignore[union-attr]
    await guest.close()
