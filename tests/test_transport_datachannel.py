"""The guest stream without a network: coalescing, chunking, the ring, skip-ahead, the inbound gate."""

from __future__ import annotations

import asyncio
import json
import random
import zlib

import pytest

from canvasrelay.core.rate_limit import InboundGate
from canvasrelay.protocol.framing import (
    MAX_MESSAGE_BYTES,
    SEQ_BYTES,
    Reassembler,
    compressed_message,
    inflated_message,
    parse_stream_message,
)
from canvasrelay.server.transports import datachannel as td
from canvasrelay.server.transports import deflate_once


class FakeChannel:
    """Records what would go on the wire; the stream only needs `send` and `buffered` of a `Channel`."""

    def __init__(self) -> None:
        self.messages: list[str | bytes] = []
        self.buffered = 0

    def send(self, data: str | bytes) -> None:
        assert len(data if isinstance(data, bytes) else data.encode("utf-8")) <= MAX_MESSAGE_BYTES
        self.messages.append(data)


def frames_of(messages: list[str | bytes]) -> list[tuple[int, object]]:
    out: list[tuple[int, object]] = []
    reassembler = Reassembler(limit=64 << 20)
    for message in messages:
        whole = inflated_message(message, 64 << 20) if isinstance(message, bytes) else reassembler.feed(message)
        if whole is None:
            continue
        seq, frames = parse_stream_message(whole)
        assert seq is not None
        out += [(seq + i, f) for i, f in enumerate(frames)]
    return out


async def drain(stream: td.GuestStream) -> None:
    while stream.pending:
        await asyncio.sleep(0)
    await asyncio.sleep(0)


async def test_small_frames_are_coalesced_and_numbered() -> None:
    stream = td.GuestStream(on_overflow=lambda s: None)
    channel = FakeChannel()
    for i in range(100):
        stream.send(json.dumps({"t": "x", "i": i}))
    stream.attach(channel)
    await drain(stream)
    assert len(channel.messages) == 1
    assert frames_of(channel.messages) == [(i + 1, {"t": "x", "i": i}) for i in range(100)]


async def test_large_frames_are_chunked_under_the_cap() -> None:
    stream = td.GuestStream(on_overflow=lambda s: None)
    channel = FakeChannel()
    stream.attach(channel)
    text = "😀" * 200_000
    stream.send(json.dumps({"t": "big", "text": text}, ensure_ascii=False))
    await drain(stream)
    assert len(channel.messages) > 3
    assert frames_of(channel.messages) == [(1, {"t": "big", "text": text})]


async def test_resume_replays_from_the_ring_or_says_it_cannot() -> None:
    stream = td.GuestStream(on_overflow=lambda s: None)
    for i in range(10):
        stream.send(json.dumps({"i": i}))
    assert stream.can_resume_after(4) and stream.can_resume_after(10)
    channel = FakeChannel()
    stream.attach(channel, after=4)
    await drain(stream)
    assert [seq for seq, _ in frames_of(channel.messages)] == [5, 6, 7, 8, 9, 10]
    stream.ring.popleft()
    assert not stream.can_resume_after(0) and stream.can_resume_after(1)
    assert not stream.can_resume_after(11)


async def test_a_guest_too_far_behind_overflows_once() -> None:
    overflowed: list[int] = []
    stream = td.GuestStream(on_overflow=lambda s: overflowed.append(s.last_seq))
    frame = "x" * 100_000
    for _ in range(td.MAX_PENDING_BYTES // len(frame) + 5):
        stream.send(frame)
    assert len(overflowed) == 1 and stream.pending_bytes == 0 and not stream.pending


def test_reassembler_refuses_oversized_and_interrupted() -> None:
    reassembler = Reassembler(limit=10)
    assert reassembler.feed('{"t":"chunk","id":1,"more":true,"data":"12345"}') is None
    with pytest.raises(ValueError, match="too large"):
        reassembler.feed('{"t":"chunk","id":1,"more":true,"data":"123456"}')
    assert reassembler.feed('{"t":"chunk","id":2,"more":true,"data":"1"}') is None
    with pytest.raises(ValueError, match="interrupted"):
        reassembler.feed('{"t":"ping"}')


def test_the_rest_of_an_oversized_message_is_dropped_not_read_as_a_message() -> None:
    reassembler = Reassembler(limit=10)
    with pytest.raises(ValueError, match="too large"):
        reassembler.feed('{"t":"chunk","id":1,"more":true,"data":"12345678901"}')
    assert reassembler.feed('{"t":"chunk","id":1,"more":true,"data":"tail"}') is None
    assert reassembler.feed('{"t":"chunk","id":1,"more":false,"data":"end"}') is None
    assert reassembler.feed('{"t":"ping"}') == '{"t":"ping"}'


def test_inbound_gate_admits_a_burst_then_drops() -> None:
    gate = InboundGate(rate=0.001, burst=5)
    assert [gate.admit() for _ in range(7)] == [True] * 5 + [False] * 2
    assert gate.should_warn() and not gate.should_warn()


def test_reassembler_counts_bytes_not_characters() -> None:
    reassembler = Reassembler(limit=10)
    assert reassembler.feed('{"t":"chunk","id":1,"more":true,"data":"éé"}') is None
    with pytest.raises(ValueError, match="too large"):
        reassembler.feed('{"t":"chunk","id":1,"more":true,"data":"éééé"}')


def test_a_dropped_piece_takes_its_whole_message_and_nothing_else() -> None:
    reassembler = Reassembler()
    assert reassembler.feed('{"t":"chunk","id":7,"more":true,"data":"ab"}') is None
    reassembler.discard('{"t":"chunk","id":7,"more":true,"data":"cd"}')
    assert reassembler.feed('{"t":"chunk","id":7,"more":false,"data":"ef"}') is None
    assert reassembler.feed('{"t":"chunk","id":8,"more":true,"data":"{\\"t\\":"}') is None
    assert reassembler.feed('{"t":"chunk","id":8,"more":false,"data":"\\"ping\\"}"}') == '{"t":"ping"}'
    reassembler.discard('{"t":"ping"}')
    assert reassembler.feed('{"t":"ping"}') == '{"t":"ping"}'


def test_a_nested_chunk_is_malformed_not_a_crash() -> None:
    reassembler = Reassembler()
    with pytest.raises(ValueError, match="malformed chunk"):
        reassembler.feed('{"t":"chunk","id":1,"more":true,"data":"a","x":' + "[" * 5000 + "]" * 5000 + "}")
    assert reassembler.feed('{"t":"ping"}') == '{"t":"ping"}'


def test_inbound_gate_counts_bytes_as_well_as_frames() -> None:
    gate = InboundGate(rate=1000, burst=1000, byte_rate=0.001, byte_burst=1000)
    assert gate.admit(600) and not gate.admit(600) and gate.admit(400) and not gate.admit(1)


def terminal_output(lines: int) -> str:
    """A frame of what a terminal prints: a listing, which deflates several times, as real output does."""
    listing = "".join(
        f"-rw-r--r-- 1 ada staff {n * 37 % 9000:>5} Dec  4 02:{n % 60:02} file-{n}.txt\r\n" for n in range(lines)
    )
    return json.dumps({"t": "term-data", "id": "T", "data": listing})


def count_deflations(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """The sizes the hub deflates from now on, one per deflation."""
    deflations: list[int] = []
    real_compress = zlib.compress

    def counted(data: bytes, level: int) -> bytes:
        deflations.append(len(data))
        return real_compress(data, level)

    monkeypatch.setattr(deflate_once.zlib, "compress", counted)
    return deflations


async def test_terminal_output_travels_deflated_once_for_every_guest(monkeypatch: pytest.MonkeyPatch) -> None:
    deflations = count_deflations(monkeypatch)
    deflater = deflate_once.DeflateOnce()
    guests = [(td.GuestStream(lambda s: None, deflater=deflater), FakeChannel()) for _ in range(5)]
    output, small = terminal_output(400), json.dumps({"t": "term-data", "id": "T", "data": "$ "})
    for stream, channel in guests:
        stream.attach(channel)
    for frame in (small, output, small):
        for stream, _ in guests:
            stream.send(frame)
    for stream, _ in guests:
        await drain(stream)
    assert len(deflations) == 1
    for _, channel in guests:
        assert [frame for _, frame in frames_of(channel.messages)] == [json.loads(f) for f in (small, output, small)]
        binary = [m for m in channel.messages if isinstance(m, bytes)]
        assert len(binary) == 1 and len(binary[0]) < len(output) / 3


async def test_small_frames_coalesced_past_2_kib_travel_deflated_once_for_guests_in_step(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    deflations = count_deflations(monkeypatch)
    deflater = deflate_once.DeflateOnce()
    guests = [(td.GuestStream(lambda s: None, deflater=deflater), FakeChannel()) for _ in range(5)]
    lines = [
        json.dumps({"t": "term-data", "id": "T", "data": f"agent chunk {n}: the quick brown fox"}) for n in range(100)
    ]
    for stream, _ in guests:
        for line in lines:
            stream.send(line)
    for stream, channel in guests:
        stream.attach(channel)
        await drain(stream)
        assert len(channel.messages) == 1 and isinstance(channel.messages[0], bytes)
        assert frames_of(channel.messages) == [(n + 1, json.loads(line)) for n, line in enumerate(lines)]
    assert len(deflations) == 1


async def test_a_frame_still_above_the_cap_deflated_travels_as_chunks() -> None:
    stream, channel = td.GuestStream(lambda s: None, deflater=deflate_once.DeflateOnce()), FakeChannel()
    stream.attach(channel)
    noise = "".join(chr(random.randrange(0x10000, 0x10FFFF)) for _ in range(125_000))
    frame = json.dumps({"t": "term-data", "id": "T", "data": noise}, ensure_ascii=False)
    stream.send(frame)
    await drain(stream)
    assert all(isinstance(m, str) for m in channel.messages) and len(channel.messages) > 1
    assert frames_of(channel.messages) == [(1, json.loads(frame))]


def test_a_compressed_message_cannot_stand_for_more_than_the_limit_or_garbage() -> None:
    bomb = compressed_message(1, zlib.compress(b'"' + b"a" * 10_000_000 + b'"'))
    assert len(bomb) < 20_000
    with pytest.raises(ValueError, match="above 1000000 bytes"):
        inflated_message(bomb, 1_000_000)
    with pytest.raises(ValueError, match="does not inflate"):
        inflated_message(b"\0" * SEQ_BYTES + b"not deflated", 1000)
    with pytest.raises(ValueError, match="cut short"):
        inflated_message(compressed_message(1, zlib.compress(b'{"t":"ping"}')[:-4]), 1000)
    assert inflated_message(compressed_message(7, zlib.compress(b'{"t":"ping"}')), 1000) == '[7,{"t":"ping"}]'
