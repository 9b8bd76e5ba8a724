"""The data channel's libraries side by side in one run: wrtc and aiortc (canvas's two, through its own
`PeerLink`), and libdatachannel through `pylibdatachannel`.

Run: `python -m tests.bench.native_channel [--messages 2000]`. The libdatachannel trials need
`pip install pylibdatachannel` (not a dependency of canvas: ADR 0019 says why); without it they are
left out.

Each trial runs in a child process of its own, so one that hangs or aborts (pylibdatachannel's
`close` can deadlock when called from the event loop's thread) is reported, not fatal:

- `wrtc-pair`, `aiortc-pair`, `native-pair`: two peers of one library in one process on loopback;
  the time until the channel is open, then N messages of 16 KiB one way: delivered MB/s and the
  process's CPU seconds (both peers', so per MB it counts sending and receiving).
- `wrtc-aiortc`, `aiortc-wrtc`: the first library offers, the second answers, N messages each way.
- `native-chromium`: headless Chromium offers (as the web app does), libdatachannel answers; both
  sides send a 256 KiB message (Chromium's cap) and a small one.
- `native-aiortc`: an aiortc peer (as the Python guest) offers, libdatachannel answers.
"""

from __future__ import annotations

import argparse
import asyncio
import importlib
import os
import resource
import subprocess
import sys
import time
from typing import Any

SIZE = 16 * 1024
CAP = 256 * 1024
TRIAL_TIMEOUT_S = 600
NEVER_FREED: list[Any] = []
"""Every pylibdatachannel object a trial made: freeing one closes it, from the loop's thread, and
that can deadlock with its own threads (seen here), so none is freed before the process exits."""


def cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def report(name: str, began: float, opened: float, count: int, received: int, sent_at: float, cpu0: float) -> None:
    took, spent = time.perf_counter() - sent_at, cpu() - cpu0
    print(
        f"{name:<17} open {(opened - began) * 1000:6.0f} ms   {count} x 16 KiB: {received / took / 1e6:6.1f} MB/s, "
        f"CPU {spent:5.2f} s for {received / 1e6:.0f} MB ({spent * 1000 / (received / 1e6):5.1f} ms per MB)"
        f"   load {os.getloadavg()[0]:.2f}",
        flush=True,
    )


async def link_pair(offering: str, answering: str, count: int) -> None:
    """Two peers through canvas's own `PeerLink`, each on its library: `offering` sends `count`
    messages to `answering`, then (between two libraries) `answering` sends as many back."""
    from canvasrelay.net.channel import Channel
    from canvasrelay.net.peer_connection import library

    for name in {offering, answering}:
        importlib.import_module(library(name).module)  # its import is not its opening
    began = time.perf_counter()
    a, b = library(offering).peer([], False), library(answering).peer([], False)
    await a.accept(await b.answer(await a.offer()))
    ours, theirs = await a.opened(), await b.opened()
    opened = time.perf_counter()

    async def one_way(name: str, sender: Channel, receiver: Channel) -> None:
        done: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        got = [0, 0]

        def on_message(message: str | bytes) -> None:
            got[0] += 1
            got[1] += len(message)
            if got[0] == count and not done.done():
                done.set_result(None)

        receiver.on_message(on_message)
        low = asyncio.Event()
        sender.on_buffer_low(256 * 1024, low.set)
        at, cpu0 = time.perf_counter(), cpu()
        payload = b"x" * SIZE
        for _ in range(count):
            # The stream's own bound (HIGH_WATER in server/transports/datachannel.py), not an unbounded buffer.
            while sender.buffered > 1 << 20:
                low.clear()
                await low.wait()
            sender.send(payload)
        await done
        report(name, began, opened, count, got[1], at, cpu0)

    await one_way(f"{offering} to {answering}", ours, theirs)
    if offering != answering:
        await one_way(f"{answering} to {offering}", theirs, ours)
    await a.close()
    await b.close()


def native_peer(loop: asyncio.AbstractEventLoop) -> tuple[Any, asyncio.Future[None]]:
    """A pylibdatachannel peer and a future set once its candidates are gathered (its callbacks
    come from libdatachannel's threads)."""
    import pylibdatachannel as ldc

    peer = ldc.PeerConnection(ldc.Configuration([]))
    gathered: asyncio.Future[None] = loop.create_future()

    def on_state(state: Any) -> None:
        if state == ldc.GatheringState.COMPLETE:
            loop.call_soon_threadsafe(lambda: gathered.done() or gathered.set_result(None))

    peer.on_gathering_state_change(on_state)
    NEVER_FREED.append(peer)
    return peer, gathered


Answering = tuple[Any, asyncio.Future[None], asyncio.Future[Any], asyncio.Queue[int]]


def answer_with_native(loop: asyncio.AbstractEventLoop, offer: str) -> Answering:
    """A pylibdatachannel peer answering `offer`: (peer, its gathering done, its channel once open,
    the sizes it received)."""
    import pylibdatachannel as ldc

    peer, gathered = native_peer(loop)
    opened: asyncio.Future[Any] = loop.create_future()
    received: asyncio.Queue[int] = asyncio.Queue()

    def on_channel(channel: Any) -> None:
        NEVER_FREED.append(channel)  # an unreferenced channel is collected, and closes
        channel.on_message(lambda m: loop.call_soon_threadsafe(received.put_nowait, len(m)))
        loop.call_soon_threadsafe(lambda: opened.done() or opened.set_result(channel))

    peer.on_data_channel(on_channel)
    peer.set_remote_description(ldc.Description(offer, ldc.DescriptionType.OFFER))
    return peer, gathered, opened, received


async def native_pair(count: int) -> None:
    import pylibdatachannel as ldc

    loop = asyncio.get_running_loop()
    began = time.perf_counter()
    a, a_gathered = native_peer(loop)
    done: asyncio.Future[None] = loop.create_future()
    got = [0, 0]
    channel = a.create_data_channel("canvas")
    NEVER_FREED.append(channel)
    opened: asyncio.Future[None] = loop.create_future()
    channel.on_open(lambda: loop.call_soon_threadsafe(lambda: opened.done() or opened.set_result(None)))
    await a_gathered
    b, b_gathered, _, _ = answer_with_native(loop, str(a.local_description))

    def on_channel(incoming: Any) -> None:
        NEVER_FREED.append(incoming)

        def on_message(message: bytes) -> None:
            got[0] += 1
            got[1] += len(message)
            if got[0] == count:
                loop.call_soon_threadsafe(lambda: done.done() or done.set_result(None))

        incoming.on_message(on_message)

    b.on_data_channel(on_channel)
    await b_gathered
    a.set_remote_description(ldc.Description(str(b.local_description), ldc.DescriptionType.ANSWER))
    await opened
    at, cpu0 = time.perf_counter(), cpu()
    payload = b"x" * SIZE
    # pylibdatachannel 0.2.0 exposes no bufferedAmount: nothing bounds what waits to be sent.
    for _ in range(count):
        channel.send(payload)
    await done
    report("pylibdatachannel", began, at, count, got[1], at, cpu0)


async def native_with_chromium() -> None:
    from playwright.async_api import async_playwright

    from tests.support import CHROMIUM, CHROMIUM_ARGS

    loop = asyncio.get_running_loop()
    async with async_playwright() as playwright:
        browser = await playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        page = await browser.new_page()
        began = time.perf_counter()
        offer = await page.evaluate(
            """async () => {
              const pc = new RTCPeerConnection({iceServers: []});
              window.ch = pc.createDataChannel('canvas'); window.got = []; window.pc = pc;
              ch.onmessage = (e) => got.push(typeof e.data === 'string' ? e.data.length : e.data.byteLength);
              await pc.setLocalDescription(await pc.createOffer());
              await new Promise(r => { pc.onicegatheringstatechange = () => pc.iceGatheringState === 'complete' && r();
                                       if (pc.iceGatheringState === 'complete') r(); });
              return pc.localDescription.sdp;
            }"""
        )
        peer, gathered, opened, received = answer_with_native(loop, offer)
        await gathered
        await page.evaluate("(sdp) => pc.setRemoteDescription({type: 'answer', sdp})", str(peer.local_description))
        channel = await asyncio.wait_for(opened, 20)
        took = time.perf_counter() - began
        channel.send("y" * CAP)
        channel.send("hello")
        await page.wait_for_function("() => got.length >= 2", timeout=20_000)
        chromium_got = await page.evaluate("() => got")
        await page.evaluate(f"() => {{ ch.send('z'.repeat({CAP})); ch.send('hi'); }}")
        native_got = [await asyncio.wait_for(received.get(), 20) for _ in range(2)]
        mdns = ".local" in offer
        print(
            f"chromium offers, pylibdatachannel answers: open {took * 1000:.0f} ms (mDNS candidates: {mdns}); "
            f"Chromium received {chromium_got}, pylibdatachannel {native_got}   load {os.getloadavg()[0]:.2f}",
            flush=True,
        )
        await browser.close()


async def native_with_aiortc() -> None:
    from aiortc import RTCConfiguration, RTCPeerConnection, RTCSessionDescription

    loop = asyncio.get_running_loop()
    failures: list[str] = []
    # aiortc's connect runs as a task of its own; its failure only reaches the loop's handler.
    loop.set_exception_handler(lambda _loop, context: failures.append(repr(context.get("exception"))))
    guest = RTCPeerConnection(RTCConfiguration(iceServers=[]))
    channel = guest.createDataChannel("canvas")
    guest_open = asyncio.Event()
    channel.on("open", guest_open.set)
    await guest.setLocalDescription(await guest.createOffer())
    peer, gathered, opened, _ = answer_with_native(loop, guest.localDescription.sdp)
    await gathered
    await guest.setRemoteDescription(RTCSessionDescription(str(peer.local_description), "answer"))
    try:
        await asyncio.wait_for(asyncio.gather(opened, guest_open.wait()), 20)
        print("aiortc offers, pylibdatachannel answers: the channel opens", flush=True)
    except TimeoutError:
        print(f"aiortc offers, pylibdatachannel answers: the channel never opens: {'; '.join(failures)}", flush=True)
    await guest.close()


TRIALS = {
    "wrtc-pair": lambda n: link_pair("wrtc", "wrtc", n),
    "aiortc-pair": lambda n: link_pair("aiortc", "aiortc", n),
    "wrtc-aiortc": lambda n: link_pair("wrtc", "aiortc", n),
    "aiortc-wrtc": lambda n: link_pair("aiortc", "wrtc", n),
    "native-pair": lambda n: native_pair(n),
    "native-chromium": lambda _n: native_with_chromium(),
    "native-aiortc": lambda _n: native_with_aiortc(),
}


def run_trial(name: str, count: int) -> None:
    asyncio.run(TRIALS[name](count))
    sys.stdout.flush()
    # Skips interpreter shutdown, where pylibdatachannel's peers would be closed from this thread.
    os._exit(0)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--messages", type=int, default=2000)
    parser.add_argument("--trial", choices=sorted(TRIALS), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.trial:
        run_trial(args.trial, args.messages)
    try:
        import pylibdatachannel  # noqa: F401

        names = list(TRIALS)
    except ImportError:
        print("pylibdatachannel is not installed: wrtc and aiortc alone (pip install pylibdatachannel for the rest)")
        names = [name for name in TRIALS if not name.startswith("native")]
    for name in names:
        command = [sys.executable, "-m", "tests.bench.native_channel", "--trial", name]
        command += ["--messages", str(args.messages)]
        try:
            done = subprocess.run(command, timeout=TRIAL_TIMEOUT_S, capture_output=True, text=True)
        except subprocess.TimeoutExpired:
            print(f"{name}: no result within {TRIAL_TIMEOUT_S} s")
            continue
        print(done.stdout.rstrip() or f"{name}: ended with code {done.returncode}")
        if done.returncode != 0:
            errors = [line for line in done.stderr.splitlines() if "Error" in line or "error" in line]
            print("  " + (errors[-1] if errors else f"exit code {done.returncode}"))


if __name__ == "__main__":
    main()
