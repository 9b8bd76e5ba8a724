"""Terminals: the policy at the Room, and real shells through a real `canvas serve` and WebSocket."""

from __future__ import annotations

import asyncio
import os
import re
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from canvasrelay.core.effects import Multicast, Send
from canvasrelay.core.guests import HOST_COLOR, Guests
from canvasrelay.core.invites import OPEN_ID
from canvasrelay.core.peer import Peer, RoomInfo
from canvasrelay.core.room import Room
from canvasrelay.core.terminals import (
    TYPIST_REPEAT_S,
    AttachTerminal,
    KeptTerminal,
    RecordTerminals,
    ResizeTerminal,
    StartTerminal,
    TerminalRoom,
    WriteTerminal,
)
from canvasrelay.protocol import encode
from canvasrelay.protocol.access import Access
from canvasrelay.protocol.core import ErrorFrame
from canvasrelay.protocol.guests import ApprovalAnswer, GuestSetAccess, TerminalGrant
from canvasrelay.protocol.terminals import TermControl, TermInput, TermOpen, TermRename, TermTypist
from tests.people import joining
from tests.support import HostClient, ServerProcess

pytestmark = pytest.mark.timeout(60)


# -- the policy, at the Room ------------------------------------------------------------------


def make_room() -> tuple[Room, TerminalRoom, dict[Access, Peer]]:
    room = Room(RoomInfo(room_id="r", host_public_key="h", cwd="/tmp"))
    guests = Guests(room)
    terminals = TerminalRoom(room, guests)
    room.install(guests.feature())
    room.install(terminals.feature())
    peers = {access: Peer(id=access.value, access=access) for access in Access}
    for peer in peers.values():
        room.join(peer)
    return room, terminals, peers


def refused(effects: list[object]) -> str | None:
    for effect in effects:
        frame = getattr(effect, "frame", None)
        if isinstance(frame, ErrorFrame):
            return frame.message
    return None


def test_who_may_start_a_shell() -> None:
    room, _, peers = make_room()
    assert "View access does not allow running things" in (
        refused(room.receive("view", '{"t":"term-open","id":"a"}')) or ""
    )
    assert "approval" in (refused(room.receive("edit", '{"t":"term-open","id":"a"}')) or "")
    started = room.receive("trusted", '{"t":"term-open","id":"a","cols":100,"rows":30}')
    assert StartTerminal("a", 100, 30, "trusted") in started
    assert any(isinstance(e, StartTerminal) for e in room.receive("host", '{"t":"term-open","id":"b"}'))
    assert peers


def test_everyone_may_watch_an_existing_terminal() -> None:
    room, terminals, _ = make_room()
    room.receive("host", '{"t":"term-open","id":"a"}')
    for who in ("view", "edit", "trusted"):
        assert room.receive(who, '{"t":"term-open","id":"a"}') == [AttachTerminal("a", who)]
    assert terminals.watchers["a"] == {"host", "view", "edit", "trusted"}


def test_who_may_type() -> None:
    room, _, peers = make_room()
    room.receive("host", '{"t":"term-open","id":"a"}')
    room.receive("host", '{"t":"term-open","id":"b"}')
    typing = '{"t":"term-input","id":"a","data":"ls\\r"}'
    assert room.receive("host", typing)[0] == WriteTerminal("a", "ls\r", "host")
    assert room.receive("trusted", typing)[0] == WriteTerminal("a", "ls\r", "trusted")
    assert "View access does not allow typing in a terminal" in (refused(room.receive("view", typing)) or "")
    assert "Edit access does not allow typing in a terminal" in (refused(room.receive("edit", typing)) or "")
    # The host grants a guest control of one terminal: that one only, until revoked.
    peers[Access.EDIT].granted_terminals.add("a")
    assert room.receive("edit", typing)[0] == WriteTerminal("a", "ls\r", "edit")
    assert refused(room.receive("edit", '{"t":"term-input","id":"b","data":"x"}'))
    assert refused(room.receive("edit", '{"t":"term-resize","id":"b","cols":80,"rows":24}'))
    assert not refused(room.receive("edit", '{"t":"term-resize","id":"a","cols":80,"rows":24}'))
    # A view guest that asked and was handed the terminal types in it too, in that one only.
    peers[Access.VIEW].granted_terminals.add("a")
    assert room.receive("view", typing)[0] == WriteTerminal("a", "ls\r", "view")
    assert refused(room.receive("view", '{"t":"term-input","id":"b","data":"x"}'))
    peers[Access.EDIT].granted_terminals.discard("a")
    assert refused(room.receive("edit", typing))
    assert refused(room.receive("edit", '{"t":"term-close","id":"a"}'))


def test_bad_terminal_frames_are_refused_by_name() -> None:
    room, _, _ = make_room()
    cases = {
        '{"t":"term-input","id":"nope","data":"x"}': "That terminal is gone",
        '{"t":"term-open","id":"../x"}': "id",
        '{"t":"term-open","id":"a","cols":0}': "cols",
        '{"t":"term-open","id":"a","rows":100000}': "rows",
        '{"t":"term-input","id":"a","data":"' + "x" * 70_000 + '"}': "data",
        '{"t":"term-resize","id":"a","cols":"wide","rows":3}': "cols",
    }
    for raw, named in cases.items():
        message = refused(room.receive("host", raw))
        assert message is not None and named in message, (raw[:60], message)


def test_a_shell_that_exits_is_reported_and_typing_is_refused() -> None:
    room, terminals, _ = make_room()
    room.receive("host", '{"t":"term-open","id":"a"}')
    effects = terminals.exited("a", 3)
    assert any(getattr(e, "code", None) == 3 and getattr(e, "peers", None) == ("host",) for e in effects)
    assert '"exitCode":3' in encode(effects[-1].frame)  # type: ignore[union-attr]
    assert "has ended" in (refused(room.receive("host", '{"t":"term-input","id":"a","data":"x"}')) or "")


def host_and_ada(
    access: Access, clock: Callable[[], float] = time.monotonic
) -> tuple[Room, Guests, TerminalRoom, Peer, Peer]:
    """A room with its host and one guest, Ada, admitted with `access`."""
    room = Room(RoomInfo(room_id="r", host_public_key="h", cwd="/tmp"))
    guests = Guests(room, clock=clock)
    terminals = TerminalRoom(room, guests)
    room.install(guests.feature())
    room.install(terminals.feature())
    guests.default_access = access
    host = Peer(id="host-1", access=Access.HOST)
    room.join(host)
    ada = guests.admit(joining("Ada", "#112233"), "guest0001", OPEN_ID)
    assert isinstance(ada, Peer)
    room.join(ada)
    return room, guests, terminals, host, ada


def test_a_grant_ends_with_its_shell() -> None:
    room, guests, terminals, host, guest = host_and_ada(Access.EDIT)
    typing = '{"t":"term-input","id":"T","data":"id\\r"}'
    grant = TerminalGrant(guest_id="guest0001", terminal_id="T", granted=True)

    room.receive(host.id, '{"t":"term-open","id":"T"}')
    room.dispatch(host, grant)
    assert room.receive(guest.id, typing)[0] == WriteTerminal("T", "id\r", guest.id)
    ended = terminals.exited("T", 0)
    told = [e.frame for e in ended if isinstance(e, Send) and e.to == guest.id]
    assert [(f.t, f.granted_terminals) for f in told] == [("access", [])]  # type: ignore[attr-defined]
    room.receive(host.id, '{"t":"term-close","id":"T"}')
    room.receive(host.id, '{"t":"term-open","id":"T"}')
    assert "does not allow typing in a terminal" in (refused(room.receive(guest.id, typing)) or "")

    # Granted while T had ended (the host's list still showed it): not a grant for the next shell.
    terminals.exited("T", 0)
    room.dispatch(host, grant)
    room.receive(host.id, '{"t":"term-close","id":"T"}')
    room.receive(host.id, '{"t":"term-open","id":"T"}')
    assert refused(room.receive(guest.id, typing))
    assert guests.guest_list().guests[0].granted_terminals == []


# -- real shells through the real server ------------------------------------------------------


PROMPT_AFTER = r"{}\r\n(?s:.*)[#$] $"
"""A line of output, then the shell's next prompt as the last thing shown."""


class Screen:
    """What one client's terminal shows: the `term-data` of one terminal, from its last replay."""

    def __init__(self, client: HostClient, tid: str) -> None:
        self.client = client
        self.tid = tid
        self.text = ""
        self.exit_code: int | None = None
        self.errors: list[str] = []
        """What the server refused meanwhile, for a failure's message."""

    async def pump(self, timeout: float) -> bool:
        try:
            frame = await self.client.next_frame(timeout)
        except TimeoutError:
            return False
        if frame.get("id") == self.tid and frame["t"] == "term-data":
            self.text = frame["data"] if frame.get("replay") else self.text + frame["data"]
        elif frame.get("id") == self.tid and frame["t"] == "term-exit":
            self.exit_code = frame["code"]
        elif frame["t"] == "error":
            self.errors.append(frame["message"])
        return True

    async def until(self, pattern: str, timeout: float = 15.0) -> re.Match[str]:
        deadline = time.monotonic() + timeout
        while not (found := re.search(pattern, self.text)):
            if time.monotonic() > deadline:
                said = f" (exit code {self.exit_code}, errors {self.errors})"
                raise TimeoutError(f"{pattern!r} not in {self.text[-500:]!r}{said}")
            await self.pump(deadline - time.monotonic())
        return found

    async def settle(self, quiet: float = 0.6) -> str:
        while await self.pump(quiet):
            pass
        return self.text


async def open_terminal(client: HostClient, tid: str, **size: int) -> Screen:
    await client.send({"t": "term-open", "id": tid, **size})
    return Screen(client, tid)


async def test_echo_comes_back(host: HostClient) -> None:
    screen = await open_terminal(host, "t1")
    await host.send({"t": "term-input", "id": "t1", "data": "echo round$((20+22))trip\r"})
    await screen.until("round42trip")


async def test_stty_size_follows_the_last_resize(host: HostClient) -> None:
    screen = await open_terminal(host, "t1", cols=80, rows=24)
    await host.send({"t": "term-resize", "id": "t1", "cols": 90, "rows": 20})
    await host.send({"t": "term-resize", "id": "t1", "cols": 132, "rows": 43})
    await host.send({"t": "term-input", "id": "t1", "data": "stty size\r"})
    await screen.until(r"\r43 132\r\n")


async def test_a_late_client_sees_what_an_early_one_saw(server: ServerProcess, host: HostClient) -> None:
    early = await open_terminal(host, "t1")
    await host.send({"t": "term-input", "id": "t1", "data": "for i in $(seq 1 300); do echo line$i; done\r"})
    # The shell's prompt after a line ends its output: wait for it, not for a quiet spell.
    await early.until(PROMPT_AFTER.format("line300"))
    seen = early.text
    late_client = await HostClient.connect(server)
    try:
        assert any(t["id"] == "t1" for t in (await late_client.expect("terminals"))["terminals"])
        late = await open_terminal(late_client, "t1")
        await late.until(PROMPT_AFTER.format("line300"))
        assert late.text == seen and "line1\r\n" in late.text
        # From then on both see the same live output.
        await late_client.send({"t": "term-input", "id": "t1", "data": "echo after$((1+1))\r"})
        await late.until(PROMPT_AFTER.format("after2"))
        await early.until(PROMPT_AFTER.format("after2"))
        assert late.text == early.text
    finally:
        await late_client.close()


async def test_exit_code_is_sent(host: HostClient) -> None:
    screen = await open_terminal(host, "t1")
    await host.send({"t": "term-input", "id": "t1", "data": "exit 7\r"})
    async with asyncio.timeout(15):
        while screen.exit_code is None:
            await screen.pump(15)
    assert screen.exit_code == 7
    listing = [frame for frame in host.seen if frame["t"] == "terminals"][-1]
    assert listing["terminals"] == [
        {
            "id": "t1",
            "name": "Terminal 1",
            "running": False,
            "exitCode": 7,
            "endedWhileStopped": False,
            "controllers": [],
            "cols": 80,
            "rows": 24,
            "pinned": False,
        }
    ]
    await host.send({"t": "term-input", "id": "t1", "data": "echo\r"})
    assert "has ended" in (await host.expect("error"))["message"]


def alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as stat:
            return stat.read().rsplit(")", 1)[1].split()[0] != "Z"
    except FileNotFoundError:
        return False


async def test_server_stop_leaves_no_shell(project: Path) -> None:
    server = ServerProcess(project).start()
    try:
        host = await HostClient.connect(server)
        pids: list[int] = []
        for tid in ("t1", "t2"):
            screen = await open_terminal(host, tid)
            await host.send({"t": "term-input", "id": tid, "data": "sleep 1000 & echo pids:$$:$!:\r"})
            found = await screen.until(r"pids:(\d+):(\d+):")
            pids += [int(found.group(1)), int(found.group(2))]
        assert all(alive(pid) for pid in pids)
        await host.close()
    finally:
        assert server.stop() == 0
    deadline = time.monotonic() + 5
    while any(alive(pid) for pid in pids) and time.monotonic() < deadline:
        await asyncio.sleep(0.05)
    assert not [pid for pid in pids if alive(pid)]


async def test_bad_frames_get_an_error_and_the_connection_stays(host: HostClient) -> None:
    await host.send({"t": "term-input", "id": "t1", "data": "x" * 70_000})
    assert "data" in (await host.expect("error"))["message"]
    await host.send({"t": "term-open", "id": "x" * 65})
    assert "id" in (await host.expect("error"))["message"]
    await host.send({"t": "ping"})
    await host.expect("pong")
    assert not any(os.sep in t.get("id", "") for t in host.seen)


def peak_rss_kb(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1])
    raise LookupError("no VmHWM")


@pytest.mark.serve_subprocess
async def test_a_stalled_client_skips_ahead_and_memory_stays_bounded(server: ServerProcess, host: HostClient) -> None:
    assert server.proc is not None
    stalled = await HostClient.connect(server)
    try:
        fast = await open_terminal(host, "t1")
        await stalled.send({"t": "term-open", "id": "t1"})
        await fast.until(r"\$ |# ")
        before = peak_rss_kb(server.proc.pid)
        # ~20 MB of output while `stalled` reads nothing.
        await host.send(
            {"t": "term-input", "id": "t1", "data": "yes 0123456789abcdef | head -n 1000000; echo END$((6*7))\r"}
        )
        await fast.until("END42", timeout=60)
        grown_mib = (peak_rss_kb(server.proc.pid) - before) / 1024
        assert grown_mib < 64, f"server grew by {grown_mib:.0f} MiB"
        late = Screen(stalled, "t1")
        await late.until("END42", timeout=30)
        replays = [f for f in stalled.seen if f["t"] == "term-data" and f["id"] == "t1" and f["replay"]]
        assert len(replays) >= 2, "the stalled client got the ring's replay instead of a backlog"
        assert len(late.text) < 3 * 1024 * 1024
    finally:
        await stalled.close()


async def test_closing_a_terminal_ends_its_shell_and_says_so(host: HostClient) -> None:
    screen = await open_terminal(host, "t1")
    await host.send({"t": "term-input", "id": "t1", "data": "echo up$((2+2))\r"})
    await screen.until("up4")
    await host.send({"t": "term-close", "id": "t1"})
    async with asyncio.timeout(15):
        while screen.exit_code is None:
            await screen.pump(15)
    # Hung up (SIGHUP), or killed when a loaded machine let the shell outlast the close grace.
    assert screen.exit_code in (128 + 1, 128 + 9), screen.exit_code
    async with asyncio.timeout(5):
        while not any(f["t"] == "terminals" and f["terminals"] == [] for f in host.seen):
            await host.next_frame()


# -- names and control, at the Room -----------------------------------------------------------


def guest_room() -> tuple[Room, TerminalRoom, Guests, Peer, Peer]:
    room = Room(RoomInfo(room_id="r", host_public_key="h", cwd="/tmp"))
    guests = Guests(room)
    terminals = TerminalRoom(room, guests)
    room.install(guests.feature())
    room.install(terminals.feature())
    host = Peer(id="host-1", access=Access.HOST)
    room.join(host)
    guests.default_access = Access.EDIT
    ada = guests.admit(joining("Ada", "#112233"), "guest0001", OPEN_ID)
    assert isinstance(ada, Peer)
    room.join(ada)
    return room, terminals, guests, host, ada


def listing(effects: list[object]) -> list[tuple[str, list[str]]]:
    """The last terminal listing among the effects: each terminal's name and who controls it."""
    frames = [e.frame for e in effects if getattr(e, "frame", None) is not None and e.frame.t == "terminals"]  # type: ignore[attr-defined]
    return [(t.name, [c.name for c in t.controllers]) for t in frames[-1].terminals]


def test_terminals_are_named_in_order_and_the_host_renames_them() -> None:
    room, terminals, _, host, ada = guest_room()
    assert listing(room.dispatch(host, TermOpen(id="a"))) == [("Terminal 1", [])]
    assert listing(room.dispatch(host, TermOpen(id="b"))) == [("Terminal 1", []), ("Terminal 2", [])]
    assert listing(room.dispatch(host, TermRename(id="a", name="  build  "))) == [("build", []), ("Terminal 2", [])]
    assert "does not allow managing the room" in (refused(room.dispatch(ada, TermRename(id="b", name="mine"))) or "")
    assert terminals.terminals["b"].name == "Terminal 2"


def test_a_guest_asks_for_control_and_holds_it_until_the_host_takes_it_back() -> None:
    room, _, guests, host, ada = guest_room()
    room.dispatch(host, TermOpen(id="a"))
    typing = TermInput(id="a", data="ls\r")
    assert "does not allow typing" in (refused(room.dispatch(ada, typing)) or "")
    asked = room.dispatch(ada, TermControl(id="a"))
    (request,) = [e.frame for e in asked if getattr(e, "frame", None) is not None and e.frame.t == "approval-request"]  # type: ignore[attr-defined]
    assert (request.what, request.subject) == ("term-control", "a")
    handed = room.dispatch(host, ApprovalAnswer(id=request.id, answer="approve"))
    assert listing(handed) == [("Terminal 1", ["Ada"])]
    assert room.dispatch(ada, typing)[0] == WriteTerminal("a", "ls\r", ada.id)
    back = room.dispatch(host, TerminalGrant(guest_id="guest0001", terminal_id="a", granted=False))
    assert listing(back) == [("Terminal 1", [])]
    assert "does not allow typing" in (refused(room.dispatch(ada, typing)) or "")
    assert guests.controllers("a") == []


def test_a_view_guest_asks_for_a_terminal_types_once_approved_and_loses_it_when_lowered() -> None:
    room, _, guests, host, ada = guest_room()
    room.dispatch(host, GuestSetAccess(guest_id="guest0001", access="view"))
    room.dispatch(host, TermOpen(id="a"))
    typing = TermInput(id="a", data="ls\r")
    asked = room.dispatch(ada, TermControl(id="a"))
    (request,) = [e.frame for e in asked if getattr(e, "frame", None) is not None and e.frame.t == "approval-request"]  # type: ignore[attr-defined]
    assert listing(room.dispatch(host, ApprovalAnswer(id=request.id, answer="approve"))) == [("Terminal 1", ["Ada"])]
    assert room.dispatch(ada, typing)[0] == WriteTerminal("a", "ls\r", ada.id)
    room.dispatch(host, GuestSetAccess(guest_id="guest0001", access="edit"))
    assert room.dispatch(ada, typing)[0] == WriteTerminal("a", "ls\r", ada.id)
    lowered = room.dispatch(host, GuestSetAccess(guest_id="guest0001", access="view"))
    assert listing(lowered) == [("Terminal 1", [])] and guests.controllers("a") == []
    assert "does not allow typing" in (refused(room.dispatch(ada, typing)) or "")


def test_a_guests_approved_new_terminal_is_the_guests_to_type_in() -> None:
    room, _, _, host, ada = guest_room()
    asked = room.dispatch(ada, TermOpen(id="g1"))
    (request,) = [e.frame for e in asked if getattr(e, "frame", None) is not None and e.frame.t == "approval-request"]  # type: ignore[attr-defined]
    opened = room.dispatch(host, ApprovalAnswer(id=request.id, answer="approve"))
    assert any(isinstance(e, StartTerminal) for e in opened)
    assert listing(opened) == [("Terminal 1", ["Ada"])]
    assert room.dispatch(ada, TermInput(id="g1", data="x"))[0] == WriteTerminal("g1", "x", ada.id)


def test_who_typed_is_named_to_the_watchers_when_it_changes_and_after_a_pause() -> None:
    now = [100.0]
    room, _, _, host, ada = host_and_ada(Access.TRUSTED, clock=lambda: now[0])
    room.receive(host.id, '{"t":"term-open","id":"T"}')
    room.receive(ada.id, '{"t":"term-open","id":"T"}')

    def named(peer: Peer) -> list[tuple[tuple[str, ...], str, str]]:
        effects = room.receive(peer.id, '{"t":"term-input","id":"T","data":"x"}')
        frames = [e for e in effects if isinstance(e, Multicast) and isinstance(e.frame, TermTypist)]
        return [(e.to, e.frame.name, e.frame.color) for e in frames]  # type: ignore[attr-defined]

    watchers = tuple(sorted((host.id, ada.id)))
    assert named(ada) == [(watchers, "Ada", "#112233")]
    assert named(ada) == [], "the same typist within a second is not named again"
    assert named(host) == [(watchers, "Host", HOST_COLOR)]
    now[0] += TYPIST_REPEAT_S
    assert named(host) == [(watchers, "Host", HOST_COLOR)]


def test_kept_terminals_come_back_as_they_were_and_are_recorded_on_change() -> None:
    room, terminals, _ = make_room()
    terminals.restore(
        [
            KeptTerminal("a", "build", running=True),
            KeptTerminal("b", "", running=False, exit_code=7, ended_while_stopped=True),
        ]
    )
    listed = {t.id: t for t in terminals.listing().frame.terminals}  # type: ignore[attr-defined]
    assert (listed["a"].name, listed["a"].running) == ("build", True)
    assert (listed["b"].name, listed["b"].exit_code, listed["b"].ended_while_stopped) == ("Terminal 1", 7, True)
    opened = room.receive("host", '{"t":"term-open","id":"a"}')
    assert opened[:2] == [AttachTerminal("a", "host"), ResizeTerminal("a", 80, 24)], "it takes the view's size"
    renamed = room.receive("host", '{"t":"term-rename","id":"a","name":"tests"}')
    records = [e for e in renamed if isinstance(e, RecordTerminals)]
    assert [r.name for r in records[0].terminals] == ["tests", "Terminal 1"]
    ended = terminals.exited("a", 0)
    assert [(r.id, r.running, r.exit_code) for e in ended if isinstance(e, RecordTerminals) for r in e.terminals] == [
        ("a", False, 0),
        ("b", False, 7),
    ]
