"""The hub's fan-out on three transports, side by side in one run: Chromium pages as the guests.

Run: `python -m tests.bench.transport_fanout [--guests 5,20,50] [--workers 2]`. Needs
`pip install pylibdatachannel` for the native row (not a dependency of canvas: the ADR on the hub's
transport says why); without it that row is skipped.

For each guest count, one headless Chromium page holds that many peer connections, each offering a
data channel as the web app does; a sender process answers them all and streams to every guest
what a terminal streams to a room: small timestamped lines, paced, then a bulk of 16 KiB frames as
fast as the channels take them. Every guest's frames go through the hub's own `GuestStream`
(numbering, coalescing, the buffer's high-water mark), so only the transport under it differs:

- `aiortc-text`: one process, every peer connection on one event loop, every frame sent as text
  (the hub before frames travelled deflated);
- `aiortc`: the same, with each larger frame deflated once for all guests (the hub now);
- `aiortc-workers`: that, spread over `--workers` processes; the sender encodes each frame once
  and hands it to each worker over a pipe, and each worker writes it to its own guests;
- `native`: libdatachannel through `pylibdatachannel` 0.2.0, one process, frames deflated (it has
  no `bufferedAmount`, so nothing holds a frame back: its queue is libdatachannel's).

The bulk is canvas's own source text, as `cat` prints it: it deflates about 3 times.

Printed per row: the sender's CPU (its workers' included) per KB delivered to all guests, for the
small lines and for the bulk; the small lines' delivery p50/p99 (the sender's wall clock in each
line, against the page's on arrival); delivered bulk MB/s in all and per guest; the load average.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import multiprocessing
import os
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from multiprocessing.connection import Connection
from pathlib import Path
from typing import Any, Protocol

from playwright.async_api import Page, async_playwright

import canvasrelay
from canvasrelay.net.channel import AiortcChannel, Channel
from canvasrelay.protocol import encode
from canvasrelay.protocol.terminals import TermData
from canvasrelay.server.transports.datachannel import GuestStream
from canvasrelay.server.transports.deflate_once import SHARED, DeflateOnce
from tests.bench.browser_hub import HUB_ARGS
from tests.bench.process_cpu import cpu_seconds, settled
from tests.support import CHROMIUM

BULK_FRAME = 16 * 1024
SMALL_EVERY_S = 0.02
PHASE_TIMEOUT_S = 300.0
OPEN_TIMEOUT_S = 60.0
ANSWER, FRAME = b"A", b"F"
"""What a worker's pipe carries: offers to answer (JSON), or a frame for all its guests."""

GUESTS_JS = """
const pcs = [];
const got = [];
const latencies = [];
const opened = [];
const stamp = /T (\\d+\\.\\d+) /g;
// A frame the hub deflated: its seq (8 bytes), then the frame (canvasrelay/protocol/framing.py).
const inflated = async (data) => {
  const stream = new Blob([data.slice(8)]).stream().pipeThrough(new DecompressionStream("deflate"));
  return `[0,${await new Response(stream).text()}]`;
};
const count = (i, text) => {
  const now = (performance.timeOrigin + performance.now()) / 1000;
  const [, ...frames] = JSON.parse(text);
  for (const frame of frames) {
    got[i] += frame.data.length;
    for (const match of frame.data.matchAll(stamp)) latencies.push((now - Number(match[1])) * 1000);
  }
};
window.offer = async () => {
  const i = pcs.length;
  const pc = new RTCPeerConnection();
  const channel = pc.createDataChannel("canvas");
  pcs.push(pc);
  got.push(0);
  channel.binaryType = "arraybuffer";
  let last = Promise.resolve();
  channel.onmessage = ({data}) => {
    last = last.then(() => typeof data === "string" ? data : inflated(data)).then((text) => count(i, text));
  };
  channel.onopen = () => opened.push(i);
  await pc.setLocalDescription(await pc.createOffer());
  while (pc.iceGatheringState !== "complete") {
    await new Promise((resolve) => pc.addEventListener("icegatheringstatechange", resolve, {once: true}));
  }
  return pc.localDescription.sdp;
};
window.accept = (i, sdp) => pcs[i].setRemoteDescription({type: "answer", sdp});
window.openCount = () => opened.length;
window.received = () => got;
window.takeLatencies = () => latencies.splice(0);
"""


# -- the sender side, in a process of its own ---------------------------------------------------


class Senders(Protocol):
    async def answer(self, offers: list[str]) -> list[str]: ...

    def broadcast(self, text: str) -> None: ...


class TextOnly(DeflateOnce):
    """The hub before frames travelled deflated."""

    def deflated(self, frame: str) -> bytes | None:
        return None


class StreamsOver:
    """Guests on one transport, each behind the hub's `GuestStream`: a broadcast is one `send` each."""

    def __init__(self, open_channel: Callable[[str], Any], deflater: DeflateOnce = SHARED) -> None:
        self.open_channel = open_channel
        self.deflater = deflater
        self.streams: list[GuestStream] = []

    async def answer(self, offers: list[str]) -> list[str]:
        answers = []
        for offer in offers:
            answer, channel_opened = await self.open_channel(offer)
            answers.append(answer)
            stream = GuestStream(lambda _stream: print("a guest overflowed", file=sys.stderr), deflater=self.deflater)
            self.streams.append(stream)

            def attach(channel: Channel, stream: GuestStream = stream) -> None:
                stream.attach(channel)
                channel.on_buffer_low(256 * 1024, stream.buffer_low)

            channel_opened.add_done_callback(lambda done, attach=attach: attach(done.result()))
        return answers

    def broadcast(self, text: str) -> None:
        for stream in self.streams:
            stream.send(text)


async def aiortc_channel(offer: str) -> tuple[str, asyncio.Future[Channel]]:
    from aiortc import RTCConfiguration, RTCPeerConnection, RTCSessionDescription

    pc = RTCPeerConnection(RTCConfiguration(iceServers=[]))
    opened: asyncio.Future[Channel] = asyncio.get_running_loop().create_future()

    @pc.on("datachannel")
    def _on_channel(channel: Any) -> None:
        # A channel Chromium offers is open as it arrives.
        opened.set_result(AiortcChannel(pc, channel))

    await pc.setRemoteDescription(RTCSessionDescription(offer, "offer"))
    await pc.setLocalDescription(await pc.createAnswer())
    return pc.localDescription.sdp, opened


KEPT: list[Any] = []
"""Every pylibdatachannel object: freeing one closes it from the loop's thread, which can deadlock."""


class NativeChannel:
    """The part of `Channel` a sender needs, over a pylibdatachannel channel (no `bufferedAmount`)."""

    buffered = 0
    is_open = True

    def __init__(self, channel: Any) -> None:
        self.channel = channel

    def send(self, message: str) -> None:
        self.channel.send(message)

    def on_buffer_low(self, threshold: int, handler: Callable[[], None]) -> None:
        """Never: nothing is counted as buffered."""


async def native_channel(offer: str) -> tuple[str, asyncio.Future[NativeChannel]]:
    import pylibdatachannel as ldc

    loop = asyncio.get_running_loop()
    peer = ldc.PeerConnection(ldc.Configuration([]))
    KEPT.append(peer)
    gathered: asyncio.Future[None] = loop.create_future()
    opened: asyncio.Future[NativeChannel] = loop.create_future()

    def on_gathering(state: Any) -> None:
        if state == ldc.GatheringState.COMPLETE:
            loop.call_soon_threadsafe(lambda: gathered.done() or gathered.set_result(None))

    def on_channel(channel: Any) -> None:
        KEPT.append(channel)
        loop.call_soon_threadsafe(lambda: opened.done() or opened.set_result(NativeChannel(channel)))

    peer.on_gathering_state_change(on_gathering)
    peer.on_data_channel(on_channel)
    peer.set_remote_description(ldc.Description(offer, ldc.DescriptionType.OFFER))
    await gathered
    return str(peer.local_description), opened


class Workers:
    """aiortc guests spread over worker processes; each broadcast crosses one pipe per worker."""

    def __init__(self, count: int) -> None:
        context = multiprocessing.get_context("spawn")
        self.pipes: list[Connection] = []
        for _ in range(count):
            ours, theirs = context.Pipe()
            context.Process(target=run_worker, args=(theirs,), daemon=True).start()
            self.pipes.append(ours)

    async def answer(self, offers: list[str]) -> list[str]:
        shares = [offers[i :: len(self.pipes)] for i in range(len(self.pipes))]
        for pipe, share in zip(self.pipes, shares, strict=True):
            pipe.send_bytes(ANSWER + json.dumps(share).encode())
        answered = [json.loads(await asyncio.to_thread(pipe.recv_bytes)) for pipe in self.pipes]
        # Back in the offers' order: worker i answered offers i, i + n, i + 2n, …
        answers = [""] * len(offers)
        for i, share in enumerate(answered):
            answers[i :: len(self.pipes)] = share
        return answers

    def broadcast(self, text: str) -> None:
        data = FRAME + text.encode()
        for pipe in self.pipes:
            pipe.send_bytes(data)


def run_worker(pipe: Connection) -> None:
    asyncio.run(worker(pipe))


async def worker(pipe: Connection) -> None:
    loop = asyncio.get_running_loop()
    senders = StreamsOver(aiortc_channel)
    answered: asyncio.Queue[list[str]] = asyncio.Queue()

    def readable() -> None:
        while pipe.poll():
            try:
                data = pipe.recv_bytes()
            except EOFError:  # the sender is gone
                os._exit(0)
            if data.startswith(ANSWER):
                task = loop.create_task(senders.answer(json.loads(data[1:])))
                task.add_done_callback(lambda done: answered.put_nowait(done.result()))
            else:
                senders.broadcast(data[1:].decode())

    loop.add_reader(pipe.fileno(), readable)
    while True:
        pipe.send_bytes(json.dumps(await answered.get()).encode())


def sender_of(kind: str, workers: int) -> Senders:
    if kind == "aiortc-text":
        return StreamsOver(aiortc_channel, TextOnly())
    if kind == "aiortc":
        return StreamsOver(aiortc_channel)
    if kind == "native":
        return StreamsOver(native_channel)
    return Workers(workers)


async def sender(kind: str, workers: int) -> None:
    """Answers the offers on stdin; then sends what each command line asks for, and says when done."""
    senders = sender_of(kind, workers)
    lines = asyncio.StreamReader()
    loop = asyncio.get_running_loop()
    await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(lines), sys.stdin)
    while raw := await lines.readline():
        command = json.loads(raw)
        if command["do"] == "answer":
            reply: object = await senders.answer(command["offers"])
        elif command["do"] == "small":
            reply = 0
            for n in range(command["lines"]):
                line = f"T {time.time():.6f} agent chunk {n}: the quick brown fox jumps\r\n"
                senders.broadcast(encode(TermData(id="bench", data=line)))
                reply += len(line)
                await asyncio.sleep(SMALL_EVERY_S)
        else:
            reply = 0
            for data in bulk_output(command["frames"]):
                senders.broadcast(encode(TermData(id="bench", data=data)))
                reply += len(data)
                # One turn of the loop per frame, as output reaches the hub: the streams write meanwhile.
                await asyncio.sleep(0)
        print(json.dumps(reply), flush=True)


def bulk_output(frames: int) -> list[str]:
    """What `cat` of canvas's own sources prints, in frames of 16 KiB: real text, which deflates about
    3 times (a listing or a build log deflates more, numbers less)."""
    text = "".join(path.read_text() for path in sorted(Path(canvasrelay.__file__).parent.rglob("*.py")))
    text = text.replace("\n", "\r\n")
    return [text[(n * BULK_FRAME) % (len(text) - BULK_FRAME) :][:BULK_FRAME] for n in range(frames)]


def run_sender(kind: str, workers: int) -> None:
    asyncio.run(sender(kind, workers))
    # Skips interpreter shutdown, where pylibdatachannel's peers would be closed from this thread.
    os._exit(0)


# -- the measuring side -------------------------------------------------------------------------


def tree_cpu(pid: int) -> float:
    """CPU seconds of `pid` and its children (a sender's workers)."""
    total = cpu_seconds(pid)
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                if int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1]) == pid:
                    total += cpu_seconds(int(entry.name))
            except OSError:
                continue
    return total


class Sender:
    def __init__(self, kind: str, workers: int) -> None:
        command = [sys.executable, "-m", "tests.bench.transport_fanout", "--sender", kind, "--workers", str(workers)]
        self.proc = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)

    async def ask(self, **command: object) -> Any:
        assert self.proc.stdin is not None and self.proc.stdout is not None
        self.proc.stdin.write(json.dumps(command) + "\n")
        self.proc.stdin.flush()
        return json.loads(await asyncio.to_thread(self.proc.stdout.readline))

    def stop(self) -> None:
        self.proc.kill()
        self.proc.wait()


async def until(page: Page, condition: str, timeout: float) -> None:
    await page.wait_for_function(condition, timeout=timeout * 1000, polling=50)


async def trial(page: Page, kind: str, guests: int, workers: int, small: int, bulk_frames: int) -> str:
    sender = Sender(kind, workers)
    try:
        offers = [await page.evaluate("() => offer()") for _ in range(guests)]
        answers = await asyncio.wait_for(sender.ask(do="answer", offers=offers), OPEN_TIMEOUT_S)
        for i, answer in enumerate(answers):
            await page.evaluate("([i, sdp]) => accept(i, sdp)", [i, answer])
        await until(page, f"() => openCount() === {guests}", OPEN_TIMEOUT_S)
        pid = sender.proc.pid
        await settled(pid, tree_cpu)  # the sender and its workers, after their handshakes
        cpu0 = tree_cpu(pid)
        small_bytes = await sender.ask(do="small", lines=small)
        await until(page, f"() => received().every((n) => n >= {small_bytes})", PHASE_TIMEOUT_S)
        latencies = sorted(await page.evaluate("() => takeLatencies()"))
        cpu1, t1 = tree_cpu(pid), time.monotonic()
        whole = small_bytes + await sender.ask(do="bulk", frames=bulk_frames)
        await until(page, f"() => received().every((n) => n >= {whole})", PHASE_TIMEOUT_S)
        cpu2, t2 = tree_cpu(pid), time.monotonic()
    finally:
        sender.stop()
    bulk_bytes = guests * (whole - small_bytes)
    bulk_rate = bulk_bytes / (t2 - t1) / 1e6
    return (
        f"{guests:>6} {kind:>15} {(cpu1 - cpu0) * 1000 / (guests * small_bytes / 1024):>9.3f} "
        f"{(cpu2 - cpu1) * 1000 / (bulk_bytes / 1024):>9.3f} "
        f"{statistics.median(latencies):>7.1f} {latencies[int(len(latencies) * 0.99)]:>7.1f} "
        f"{bulk_rate:>9.2f} {bulk_rate / guests:>10.2f}  load {os.getloadavg()[0]:.2f}"
    )


async def main(counts: list[int], kinds: list[str], workers: int, small: int, bulk_mb: float) -> None:
    print(
        f"{'guests':>6} {'sender':>15} {'small ms/KB':>9} {'bulk ms/KB':>9} {'p50 ms':>7} {'p99 ms':>7} "
        f"{'bulk MB/s':>9} {'MB/s/guest':>10}"
    )
    bulk_frames = int(bulk_mb * 1e6 / BULK_FRAME)
    async with async_playwright() as playwright:
        browser = await playwright.chromium.launch(executable_path=CHROMIUM, args=HUB_ARGS)
        for guests in counts:
            for kind in kinds:
                page = await browser.new_page()
                await page.set_content("<!doctype html><title>guests</title>")
                await page.add_script_tag(content=GUESTS_JS)
                try:
                    print(await trial(page, kind, guests, workers, small, bulk_frames), flush=True)
                except Exception as exc:  # a row that fails is reported, and the next runs
                    print(f"{guests:>6} {kind:>15} no figures: {type(exc).__name__}: {exc}"[:200], flush=True)
                await page.close()
        await browser.close()


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--guests", default="5,20,50", help="guest counts, comma-separated")
    parser.add_argument("--workers", type=int, default=os.cpu_count() or 2)
    parser.add_argument("--small", type=int, default=200, help="small lines, one every 20 ms")
    parser.add_argument("--bulk-mb", type=float, default=1.0, help="bulk per guest, MB")
    parser.add_argument("--transports", help="of aiortc-text, aiortc, aiortc-workers, native (default: all there are)")
    parser.add_argument("--sender", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.sender:
        run_sender(args.sender, args.workers)
    try:
        import pylibdatachannel  # noqa: F401

        kinds = ["aiortc-text", "aiortc", "aiortc-workers", "native"]
    except ImportError:
        print("pylibdatachannel is not installed: aiortc alone (pip install pylibdatachannel for the rest)")
        kinds = ["aiortc-text", "aiortc", "aiortc-workers"]
    kinds = args.transports.split(",") if args.transports else kinds
    asyncio.run(main([int(n) for n in args.guests.split(",")], kinds, args.workers, args.small, args.bulk_mb))
