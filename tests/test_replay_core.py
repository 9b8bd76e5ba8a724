"""The recording's segments and bounds, a window of it made into a replay, the timeline's moments,
the asciicast and the replay file's refusals: sans-I/O but for real files in a temporary folder."""

from __future__ import annotations

import gzip
import io
import json
import os
import tarfile
import time
from pathlib import Path

import pyte
import pytest
from pycrdt import Doc, Map, Text

from canvasrelay.core.asciicast import RESET, read_cast, write_cast
from canvasrelay.core.recording import Entry, Kind, size_text
from canvasrelay.core.replay_file import ReplayRefused, read_replay, write_replay
from canvasrelay.core.replay_window import RoomSources, StoredSession, following, window
from canvasrelay.core.timeline import Timeline
from canvasrelay.protocol.people import AuditEntry
from canvasrelay.protocol.session_events import stored_event
from canvasrelay.server.config import RecordingLimits
from canvasrelay.server.recording.segments import Recorder, read_entries, segment_files

T0 = 1_800_000_000.0


class Clock:
    def __init__(self) -> None:
        self.now = T0

    def __call__(self) -> float:
        return self.now


def _note(doc: Doc, item: str, text: str) -> bytes:
    items = doc.get("items", type=Map)
    before = doc.get_state()
    with doc.transaction():
        items[item] = Map({"kind": "note", "x": 0.0, "y": 0.0, "w": 100.0, "h": 80.0, "text": Text(text)})
    return doc.get_update(before)


def _event(text: str) -> bytes:
    return text.encode()


def screen(cols: int, rows: int, output: bytes) -> list[str]:
    emulator = pyte.Screen(cols, rows)
    stream = pyte.ByteStream(emulator)
    stream.feed(output)
    return [line.rstrip() for line in emulator.display]


def _recorded(tmp_path: Path, limits: RecordingLimits | None = None) -> tuple[Recorder, Clock]:
    clock = Clock()
    recorder = Recorder(tmp_path / "recording", limits or RecordingLimits(), clock)
    recorder.start()
    return recorder, clock


def test_a_window_shows_the_board_threads_and_screens_as_they_were(tmp_path: Path) -> None:
    recorder, clock = _recorded(tmp_path)
    doc: Doc = Doc()
    recorder.add(Kind.BOARD, "host", _note(doc, "a", "first"))
    recorder.add(Kind.TERM_START, "t1", b"")
    recorder.add(Kind.TERM_SIZE, "t1", size_text(20, 5))
    recorder.add(Kind.TERM_OUT, "t1", b"hello\r\n")
    clock.now += 10
    recorder.add(Kind.BOARD, "ada1", _note(doc, "b", "second"))
    recorder.add(Kind.EVENT, "s1", _event('{"seq":1,"kind":"turn","text":"hi","author":"Ada","time":1}'))
    # A program that draws: row 3, column 5, then back over the first line.
    recorder.add(Kind.TERM_OUT, "t1", b"\x1b[3;5Hdrawn\x1b[1;1HHELLO")
    clock.now += 10
    recorder.add(Kind.EVENT, "s1", _event('{"seq":2,"kind":"turn-end"}'))
    recorder.add(Kind.TERM_EXIT, "t1", b"0")
    recorder.close()

    entries = read_entries(tmp_path / "recording")
    record = [AuditEntry(seq=1, at=T0 + 5, who="ada1", name="Ada", action="joined", detail="with edit access")]
    sources = RoomSources("demo", entries, [StoredSession("s1", "Thread", "demo", T0, [])], record, {}, {"t1": "build"})
    room, casts = window(sources)
    timeline = Timeline(room, casts)

    early = timeline.at(T0 + 1)
    assert set(early.items()) == {"a"}
    assert early.threads["s1"].items == []
    assert screen(20, 5, early.terminals["t1"].output)[0] == "hello"

    middle = timeline.at(T0 + 11)
    assert set(middle.items()) == {"a", "b"}
    assert middle.threads["s1"].status == "running"
    assert screen(20, 5, middle.terminals["t1"].output)[:3] == ["HELLO", "", "    drawn"]

    late = timeline.at(T0 + 30)
    assert late.threads["s1"].status == "idle" and late.terminals["t1"].exit_code == 0
    kinds = [(mark.kind, mark.name) for mark in room.marks]
    assert kinds == [("board", "the host"), ("join", "Ada"), ("prompt", "Ada"), ("board", "Ada")]

    # A window from the middle starts from the board and the screen as they were then.
    later, later_casts = window(sources, start=T0 + 5)
    moment = Timeline(later, later_casts).at(T0 + 5)
    assert set(moment.items()) == {"a"} and screen(20, 5, moment.terminals["t1"].output)[0] == "hello"


def test_segments_rotate_and_the_oldest_go_past_the_size_bound(tmp_path: Path) -> None:
    limits = RecordingLimits(segment_mb=0.01, max_mb=0.05)
    recorder, clock = _recorded(tmp_path, limits)
    recorder.baselines = lambda: [Entry(Kind.BOARD_BASE, clock(), "", b"state")]
    for _ in range(200):
        clock.now += 1
        recorder.add(Kind.TERM_OUT, "t1", b"x" * 1000)
        recorder.flush()
    recorder.close()
    files = segment_files(tmp_path / "recording")
    assert len(files) > 1 and sum(p.stat().st_size for p in files) <= 0.06 * 1024 * 1024
    assert all(p.stat().st_mode & 0o777 == 0o600 for p in files)
    entries = read_entries(tmp_path / "recording")
    # Every segment but the first of the run begins with the board's whole state.
    assert entries[0].kind is Kind.BOARD_BASE and entries[-1].at == T0 + 200


def test_segments_older_than_the_bound_are_deleted(tmp_path: Path) -> None:
    recorder, _ = _recorded(tmp_path, RecordingLimits(segment_mb=0.001, keep_hours=1))
    recorder.add(Kind.TERM_OUT, "t1", b"old" * 500)
    recorder.flush()
    first = segment_files(tmp_path / "recording")[0]
    two_hours_ago = time.time() - 7200
    os.utime(first, (two_hours_ago, two_hours_ago))
    recorder.add(Kind.TERM_OUT, "t1", b"new" * 500)
    recorder.flush()
    recorder.close()
    assert first not in segment_files(tmp_path / "recording")


def test_a_cast_is_asciicast_v3() -> None:
    sources = RoomSources(
        "demo",
        [
            Entry(Kind.TERM_START, T0, "t1", b""),
            Entry(Kind.TERM_SIZE, T0, "t1", b"90x30"),
            Entry(Kind.TERM_OUT, T0 + 0.25, "t1", "héllo\x1b[31m".encode()),
            Entry(Kind.TERM_START, T0 + 3, "t1", b""),
            Entry(Kind.TERM_EXIT, T0 + 4.5, "t1", b"2"),
        ],
    )
    _, casts = window(sources)
    text = write_cast(casts["t1"])
    lines = text.splitlines()
    header = json.loads(lines[0])
    assert header["version"] == 3 and header["term"]["cols"] == 90 and header["term"]["rows"] == 30
    events = [json.loads(line) for line in lines[1:]]
    assert [e[1] for e in events] == ["o", "r", "o", "o", "x"] and events[2][2] == "héllo\x1b[31m"
    assert events[0][2] == events[3][2] == RESET and events[4][2] == "2"
    assert all(isinstance(e[0], float | int) and e[0] >= 0 for e in events)
    assert abs(sum(e[0] for e in events) - (T0 + 4.5 - int(T0))) < 1e-5
    assert read_cast(text).events[-1].at == pytest.approx(T0 + 4.5)


def _file(tmp_path: Path) -> bytes:
    doc: Doc = Doc()
    entries = [
        Entry(Kind.BOARD, T0, "host", _note(doc, "a", "note")),
        Entry(Kind.TERM_OUT, T0 + 1, "t1", b"out"),
        Entry(Kind.EVENT, T0 + 2, "s1", _event('{"seq":1,"kind":"notice","text":"started"}')),
    ]
    room, casts = window(RoomSources("demo", entries, [StoredSession("s1", "T", "demo", T0, [])]))
    return write_replay(room, casts, "0.1.0", T0 + 3)


def test_a_replay_file_reads_back(tmp_path: Path) -> None:
    manifest, room, casts = read_replay(_file(tmp_path))
    assert manifest.version == 1 and set(manifest.parts) == {"room.json", "terminals/t1.cast"}
    assert room.sessions[0].events[0].event == stored_event('{"seq":1,"kind":"notice","text":"started"}')
    assert casts["t1"].events[-1].data == "out"


def _repacked(blob: bytes, change: dict[str, bytes]) -> bytes:
    parts: dict[str, bytes] = {}
    with tarfile.open(fileobj=io.BytesIO(blob), mode="r:gz") as tar:
        for member in tar:
            extracted = tar.extractfile(member)
            assert extracted is not None
            parts[member.name] = extracted.read()
    parts.update(change)
    out = io.BytesIO()
    with gzip.GzipFile(fileobj=out, mode="wb") as packed, tarfile.open(fileobj=packed, mode="w") as tar:
        for name, data in parts.items():
            info = tarfile.TarInfo(name)
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
    return out.getvalue()


def test_a_damaged_or_newer_file_is_refused_in_words(tmp_path: Path) -> None:
    blob = _file(tmp_path)
    with pytest.raises(ReplayRefused, match="cut short"):
        read_replay(blob[: len(blob) // 2])
    flipped = bytearray(blob)
    flipped[len(blob) // 2] ^= 0xFF
    with pytest.raises(ReplayRefused, match=r"damaged|changed|cut short"):
        read_replay(bytes(flipped))
    with pytest.raises(ReplayRefused, match=r"terminals/t1\.cast does not match its checksum"):
        read_replay(_repacked(blob, {"terminals/t1.cast": b'{"version": 3, "term": {"cols": 1, "rows": 1}}\n'}))
    manifest = json.loads(_repacked_part(blob, "manifest.json"))
    manifest["version"] = 2
    with pytest.raises(ReplayRefused, match=r"made by a newer canvas .* Update canvas to open it"):
        read_replay(_repacked(blob, {"manifest.json": json.dumps(manifest).encode()}))
    with pytest.raises(ReplayRefused, match="part its manifest does not name"):
        read_replay(_repacked(blob, {"extra.txt": b"x"}))
    with pytest.raises(ReplayRefused, match="not a canvas replay file"):
        read_replay(b"PK\x03\x04 a zip")


def _repacked_part(blob: bytes, name: str) -> bytes:
    with tarfile.open(fileobj=io.BytesIO(blob), mode="r:gz") as tar:
        extracted = tar.extractfile(name)
        assert extracted is not None
        return extracted.read()


def test_what_came_after_a_moment_is_the_rest_of_the_whole_window(tmp_path: Path) -> None:
    """The host's open timeline grows by `following`: up to T plus what came after T is the whole
    recording (the board's changes, the events, the output), a board run that goes on past T is
    one mark, and the recorder's tail in memory holds what the segments do."""
    recorder, clock = _recorded(tmp_path, RecordingLimits(segment_mb=1))
    doc: Doc = Doc()
    recorder.add(Kind.TERM_START, "t1", b"")
    recorder.add(Kind.TERM_NAME, "t1", b"Build log")
    recorder.add(Kind.BOARD, "host", _note(doc, "a", "first"))
    recorder.add(Kind.TERM_OUT, "t1", b"one\r\n")
    clock.now += 5
    cut = clock.now
    clock.now += 5
    recorder.add(Kind.BOARD, "host", _note(doc, "b", "second"))
    recorder.add(Kind.BOARD, "agent:s1", _note(doc, "c", "the agent's"))
    recorder.add(Kind.EVENT, "s1", _event('{"seq":1,"kind":"turn","text":"hi","author":"Ada","time":1}'))
    recorder.add(Kind.TERM_OUT, "t1", b"two\r\n")
    tail = recorder.since(T0)
    recorder.close()
    entries = read_entries(tmp_path / "recording")
    assert tail is not None and [e.at for e in tail] == [e.at for e in entries if e.at > T0]
    assert recorder.since(T0 - 1) is None, "the tail does not reach back before this run"
    sessions = [StoredSession("s1", "Tests", "demo", T0, [])]
    whole, whole_casts = window(RoomSources("demo", entries, sessions))
    early, _ = window(RoomSources("demo", entries, sessions), end=cut)
    rest, rest_casts = following(RoomSources("demo", [e for e in entries if e.at > cut - 30], sessions), cut)
    assert [c.update for c in early.board] + [c.update for c in rest.board] == [c.update for c in whole.board]
    assert [t.event for t in rest.sessions[0].events] == [t.event for t in whole.sessions[0].events]
    assert [e.data for e in rest_casts["t1"].events] == ["two\r\n"]
    assert whole.terminals[0].name == "Build log"
    board_marks = [(m.who, m.name) for m in rest.marks if m.kind == "board"]
    assert board_marks == [("agent:s1", "Tests")], "the host's run goes on from before; the agent's is its session's"
    assert [m.kind for m in rest.marks].count("prompt") == 1 and rest.start == cut and rest.end == whole.end
    assert [e.data for e in whole_casts["t1"].events] == [RESET, "one\r\n", "two\r\n"]


def test_what_came_after_a_new_segment_holds_no_screen_twice(tmp_path: Path) -> None:
    """A segment begins with each terminal's recent output, which the timeline already showed: what
    came after a moment before it has only the output that came after, once."""
    recorder, clock = _recorded(tmp_path, RecordingLimits(segment_mb=1))
    recorder.baselines = lambda: [Entry(Kind.TERM_BASE, clock(), "t1", b"one")]
    recorder.add(Kind.TERM_START, "t1", b"")
    recorder.add(Kind.TERM_OUT, "t1", b"one")
    cut = clock.now + 0.5
    clock.now += 1
    # Another terminal's output fills the segment: the next begins with t1's screen.
    recorder.add(Kind.TERM_OUT, "t2", b"x" * (1024 * 1024 + 1))
    clock.now += 1
    recorder.add(Kind.TERM_OUT, "t1", b" after")
    recorder.close()
    entries = read_entries(tmp_path / "recording")
    assert len(segment_files(tmp_path / "recording")) == 2
    assert any(e.kind is Kind.TERM_BASE and e.at > cut for e in entries)
    _, casts = following(RoomSources("demo", entries), cut)
    assert [e.data for e in casts["t1"].events] == [" after"]
