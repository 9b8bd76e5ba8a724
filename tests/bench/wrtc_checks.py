"""What a first beta may hide, checked on wrtc beside aiortc: each check prints what it saw.

Run: `python -m tests.bench.wrtc_checks [--checks close,fifty,vanish,restart,relay]`. The peers are
canvas's own (`PeerLink`). Each check runs on each library in a process of its own (so threads and
memory are that check's alone); a far side that must vanish runs in a child of that (`--far`).

- `close`: ten pairs streaming 16 KiB messages as fast as they go; each sending peer is closed from
  the event loop while its buffer is full. How long each close held the loop, the longest the loop
  stood still meanwhile, and whether every far side heard the close.
- `fifty`: fifty peer connections answered in this process, their far sides in a child: threads
  and memory (RSS) per connection once open, and what is left once they are closed.
- `vanish`: the far side is killed (SIGKILL, as a laptop lid or a lost network would end it),
  idle or while this side sends: how long until this side's channel says it is lost.
- `restart`: an ICE restart (new credentials and candidates, a second offer and answer) on an open
  channel: whether both sides took new credentials, and the channel still carries messages.
- `relay`: relay-only through a real coturn on loopback (`turnserver`): the time to open, and the
  candidate pair it runs on.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import gc
import importlib
import json
import os
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

from canvasrelay.net.channel import Channel, PeerLink
from canvasrelay.net.peer_connection import library
from canvasrelay.protocol.ice import IceServer
from canvasrelay.signal.turn_credentials import mint

LIBRARIES = ("wrtc", "aiortc")
MESSAGE = b"x" * 16 * 1024
HIGH_WATER = 1 << 20
LOST_WITHIN_S = 90.0
FREED_WITHIN_S = 10.0
POLL_S = 0.05
TRAFFIC_BEFORE_S = 1.0
"""How long the channel carries ticks before its far side is killed."""


def peer(name: str, servers: list[IceServer] | None = None, relay_only: bool = False) -> PeerLink:
    return library(name).peer(servers or [], relay_only)


async def pair(offering: str, answering: str) -> tuple[PeerLink, PeerLink, Channel, Channel]:
    a, b = peer(offering), peer(answering)
    await a.accept(await b.answer(await a.offer()))
    return a, b, await a.opened(), await b.opened()


def lost_event(channel: Channel) -> asyncio.Event:
    lost = asyncio.Event()
    channel.on_lost(lost.set)
    return lost


async def flood(channel: Channel) -> None:
    """Send as fast as the channel takes it, held at the stream's high-water mark, until it is lost."""
    low = asyncio.Event()
    channel.on_buffer_low(HIGH_WATER // 4, low.set)
    with contextlib.suppress(Exception):
        while channel.is_open:
            while channel.buffered > HIGH_WATER:
                low.clear()
                await low.wait()
            channel.send(MESSAGE)
            await asyncio.sleep(0)


class LoopStall:
    """The longest the event loop stood still while it ran."""

    def __init__(self) -> None:
        self.longest = 0.0
        self._task = asyncio.get_running_loop().create_task(self._tick())

    async def _tick(self) -> None:
        last = time.perf_counter()
        while True:
            await asyncio.sleep(0.001)
            now = time.perf_counter()
            self.longest = max(self.longest, now - last - 0.001)
            last = now

    def stop(self) -> float:
        self._task.cancel()
        return self.longest


async def check_close(name: str) -> str:
    pairs = [await pair(name, name) for _ in range(10)]
    floods = [asyncio.ensure_future(flood(ours)) for _, _, ours, _ in pairs]
    heard = [lost_event(theirs) for _, _, _, theirs in pairs]
    stall = LoopStall()
    closes = []
    for a, _, ours, _ in pairs:
        while ours.buffered < HIGH_WATER // 2 and ours.is_open:
            await asyncio.sleep(0.01)
        started = time.perf_counter()
        await a.close()
        closes.append(time.perf_counter() - started)
    try:
        await asyncio.wait_for(asyncio.gather(*(event.wait() for event in heard)), 30)
        far = "every far side heard its close"
    except TimeoutError:
        far = f"{sum(not event.is_set() for event in heard)} far sides never heard the close"
    longest = stall.stop()
    for task in floods:
        task.cancel()
    for _, b, _, _ in pairs:
        await b.close()
    return (
        f"close under load, {name}: 10 closes with the buffer full took {max(closes) * 1000:.1f} ms at most "
        f"(median {sorted(closes)[5] * 1000:.1f} ms); the loop stood still {longest * 1000:.1f} ms at most; {far}"
    )


def status(field: str) -> int:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith(f"{field}:"):
            return int(line.split()[1])
    return 0


class Far:
    """The far side's peers, in a child process: they offer, we answer."""

    def __init__(self, name: str, count: int) -> None:
        command = [sys.executable, "-m", "tests.bench.wrtc_checks", "--far", name, "--count", str(count)]
        self.proc = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)

    async def line(self) -> Any:
        assert self.proc.stdout is not None
        return json.loads(await asyncio.to_thread(self.proc.stdout.readline))

    def say(self, value: object) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(json.dumps(value) + "\n")
        self.proc.stdin.flush()

    def kill(self) -> None:
        self.proc.kill()
        self.proc.wait()


async def answer_far(name: str, count: int) -> tuple[Far, list[PeerLink], list[Channel]]:
    far = Far(name, count)
    offers = await far.line()
    peers = [peer(name) for _ in offers]
    far.say([await p.answer(offer) for p, offer in zip(peers, offers, strict=True)])
    channels = [await asyncio.wait_for(p.opened(), 30) for p in peers]
    return far, peers, channels


async def check_fifty(name: str) -> str:
    importlib.import_module(library(name).module)
    gc.collect()
    threads0, rss0 = status("Threads"), status("VmRSS")
    far, peers, channels = await answer_far(name, 50)
    threads, rss = status("Threads"), status("VmRSS")
    # Not a loop: its variable would keep the last connection alive.
    await asyncio.gather(*(p.close() for p in peers))
    far.kill()
    del peers, channels
    gc.collect()
    left = ""
    if name == "wrtc":
        native = await _native_left()
        left = f" ({native[0]} native connections, {native[1]} factories left)"
    return (
        f"fifty peer connections, {name}: {threads} threads (before {threads0}), "
        f"{(rss - rss0) / 50:.0f} KB each; after closing them {status('Threads')} threads{left}, "
        f"{status('VmRSS') - rss0:+d} KB"
    )


async def _native_left() -> tuple[int, int]:
    """wrtc's native connections and factories still alive, once libwebrtc has freed what it will
    (on its own threads, with no event to wait on: asked until none are left, or `FREED_WITHIN_S`)."""
    import wrtc

    deadline = time.monotonic() + FREED_WITHIN_S
    while True:
        left = wrtc._alive()["RTCPeerConnection"], wrtc._alive_factories()
        if left == (0, 0) or time.monotonic() > deadline:
            return left
        await asyncio.sleep(POLL_S)


async def check_vanish(name: str, sending: bool) -> str:
    far, peers, channels = await answer_far(name, 1)
    lost = lost_event(channels[0])
    sender = asyncio.ensure_future(ticks(channels[0])) if sending else None
    await asyncio.sleep(TRAFFIC_BEFORE_S)  # the pause is the check: a peer that has been talking a while
    far.kill()
    killed = time.monotonic()
    try:
        await asyncio.wait_for(lost.wait(), LOST_WITHIN_S)
        said = f"lost after {time.monotonic() - killed:.1f} s"
    except TimeoutError:
        said = f"still open after {LOST_WITHIN_S:.0f} s"
    if sender is not None:
        sender.cancel()
    await peers[0].close()
    return f"far side killed, {name}, {'sending' if sending else 'idle'}: the channel was {said}"


async def ticks(channel: Channel) -> None:
    with contextlib.suppress(Exception):
        while channel.is_open:
            channel.send(MESSAGE)
            await asyncio.sleep(0.01)


async def check_restart(offering: str) -> str:
    answering = "aiortc" if offering == "wrtc" else "wrtc"
    said = []
    for far in (offering, answering):
        a, b, ours, theirs = await pair(offering, far)
        got: asyncio.Queue[str | bytes] = asyncio.Queue()
        theirs.on_message(got.put_nowait)
        started = time.monotonic()
        try:
            fresh = await restart_ice(a, b)
            ours.send("after the restart")
            message = await asyncio.wait_for(got.get(), 20)
            said.append(f"to {far}: {fresh}, and {message!r} arrived {time.monotonic() - started:.2f} s after it began")
        except Exception as exc:
            said.append(f"to {far}: failed: {type(exc).__name__}: {exc}"[:200])
        await a.close()
        await b.close()
    return f"ICE restart, {offering} offering " + "; ".join(said)


def ufrag(sdp: str) -> str:
    return next((line.split(":", 1)[1] for line in sdp.splitlines() if line.startswith("a=ice-ufrag:")), "")


async def restart_ice(a: Any, b: Any) -> str:
    """A second offer with new ICE credentials, answered (what `restartIce()` asks for): which
    sides took new credentials."""
    from canvasrelay.net.rtc_wrtc import WrtcPeer

    if not isinstance(a, WrtcPeer):
        raise NotImplementedError("aiortc cannot offer an ICE restart (it has no restartIce)")
    before = (ufrag(a.pc.local_description.sdp), ufrag(a.pc.remote_description.sdp))
    a.pc.restart_ice()
    await a.pc.set_local_description(await a.pc.create_offer())
    # The bench reaches into the peer: canvas itself never restarts ICE (a dropped guest offers anew).
    a._gathered.clear()
    offer = await a._description()
    if isinstance(b, WrtcPeer):
        import webrtc

        await b.pc.set_remote_description(webrtc.RTCSessionDescriptionInit(type="offer", sdp=offer))
        await b.pc.set_local_description(await b.pc.create_answer())
        answer = b.pc.local_description.sdp
    else:
        from aiortc import RTCSessionDescription

        await b.pc.setRemoteDescription(RTCSessionDescription(offer, "offer"))
        await b.pc.setLocalDescription(await b.pc.createAnswer())
        answer = b.pc.localDescription.sdp
    await a.accept(answer)
    renewed = [
        side
        for side, old, new in zip(("the offer", "the answer"), before, (ufrag(offer), ufrag(answer)), strict=True)
        if old != new
    ]
    return f"new credentials in {' and '.join(renewed) or 'neither'}"


async def check_relay(name: str, coturn_url: str, secret: str) -> str:
    username, password = mint(secret.encode(), lifetime=600)
    servers = [IceServer((coturn_url,), username=username, credential=password)]
    importlib.import_module(library(name).module)
    started = time.monotonic()
    a, b = peer(name, servers, relay_only=True), peer(name, servers, relay_only=True)
    await a.accept(await b.answer(await a.offer()))
    try:
        await asyncio.wait_for(asyncio.gather(a.opened(), b.opened()), 30)
        said = f"open in {time.monotonic() - started:.2f} s on {await a.route()}"
    except TimeoutError:
        said = "never opened (30 s)"
    await a.close()
    await b.close()
    return f"relay-only through coturn, {name}: {said}"


async def far_side(name: str, count: int) -> None:
    """The child: offers, takes the answers, stays until killed or told to go."""
    peers = [peer(name) for _ in range(count)]
    print(json.dumps([await p.offer() for p in peers]), flush=True)
    answers = json.loads(await asyncio.to_thread(sys.stdin.readline))
    for p, answer in zip(peers, answers, strict=True):
        await p.accept(answer)
    for p in peers:
        (await p.opened()).on_message(lambda _message: None)
    await asyncio.to_thread(sys.stdin.read)


async def with_coturn(run: Callable[[str, str], Awaitable[None]]) -> None:
    from tests.services import Coturn

    with tempfile.TemporaryDirectory() as folder:
        coturn = Coturn(workdir=Path(folder)).start()
        try:
            await run(coturn.url, coturn.secret)
        finally:
            coturn.stop()


async def one(check: str, name: str) -> None:
    if check == "close":
        print(await check_close(name), flush=True)
    elif check == "fifty":
        print(await check_fifty(name), flush=True)
    elif check == "vanish":
        for sending in (False, True):
            print(await check_vanish(name, sending), flush=True)
    elif check == "restart":
        print(await check_restart(name), flush=True)
    else:

        async def relay(url: str, secret: str) -> None:
            print(await check_relay(name, url, secret), flush=True)

        await with_coturn(relay)


def main(checks: list[str]) -> None:
    print(f"load {os.getloadavg()[0]:.2f}", flush=True)
    for check in checks:
        for name in LIBRARIES:
            command = [sys.executable, "-m", "tests.bench.wrtc_checks", "--only", f"{check}:{name}"]
            try:
                done = subprocess.run(command, timeout=300, capture_output=True, text=True)
                print(done.stdout.rstrip() or f"{check}, {name}: nothing said; exit code {done.returncode}", flush=True)
            except subprocess.TimeoutExpired:
                print(f"{check}, {name}: no answer within 300 s", flush=True)
    print(f"load {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--checks", default="close,fifty,vanish,restart,relay")
    parser.add_argument("--only", help=argparse.SUPPRESS)
    parser.add_argument("--far", help=argparse.SUPPRESS)
    parser.add_argument("--count", type=int, default=1, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.far:
        with contextlib.suppress(KeyboardInterrupt, BrokenPipeError):
            asyncio.run(far_side(args.far, args.count))
        os._exit(0)
    if args.only:
        check, name = args.only.split(":")
        asyncio.run(one(check, name))
        os._exit(0)
    signal.signal(signal.SIGPIPE, signal.SIG_DFL)
    main(args.checks.split(","))
