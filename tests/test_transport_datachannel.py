"""The guest stream without a network: coalescing, chunking, the ring, skip-ahead, the inbound gate."""

from __future__ import annotations

import asyncio
import json

import pytest

from canvasrelay.core.rate_limit import InboundGate
from canvasrelay.protocol.framing import MAX_MESSAGE_BYTES, Reassembler, parse_stream_message
from canvasrelay.server.transports import datachannel as td


class FakeChannel:
    """Records what would go on the wire; the stream only needs `send` and `buffered` of a `Channel`."""

    def __init__(self) -> None:
        self.messages: list[str] = []
        self.buffered = 0

    def send(self, data: str) -> None:
        assert len(data.encode("utf-8")) <= MAX_MESSAGE_BYTES
        self.messages.append(data)


def frames_of(messages: list[str]) -> list[tuple[int, object]]:
    out: list[tuple[int, object]] = []
    reassembler = Reassembler(limit=64 << 20)
    for message in messages:
        whole = reassembler.feed(message)
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
