"""`canvas replay export` of a room's `.canvas/`, then `canvas replay FILE` in Chromium: at chosen
moments the page shows the board, the thread and the terminal's screen the timeline core says the
room had then (the same moments the scripted room's test checks against the host's page); a file cut
short or changed is refused in words; the page works at 390 px dark and by keyboard."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pyte
import pytest
from pycrdt import Doc

from canvasrelay.core.recording import Kind, size_text
from canvasrelay.core.replay_file import read_replay
from canvasrelay.core.timeline import Timeline
from canvasrelay.protocol.session_events import stored_event
from canvasrelay.server.config import RecordingLimits
from canvasrelay.server.recording.segments import RECORDING_DIR, Recorder
from canvasrelay.server.store import Store
from tests.test_replay_core import T0, Clock, _note

pytestmark = [pytest.mark.browser]

WAIT_MS = 20_000
EVENTS = [
    '{"seq":1,"kind":"turn","text":"run the tests","author":"Ada","time":1}',
    '{"seq":2,"kind":"chunk","update":{"sessionUpdate":"tool_call","toolCallId":"c1","title":"make test",'
    '"kind":"execute","status":"in_progress"}}',
    '{"seq":3,"kind":"chunk","update":{"sessionUpdate":"agent_message_chunk",'
    '"content":{"type":"text","text":"All tests pass."}}}',
    '{"seq":4,"kind":"turn-end"}',
]


def canvas(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "canvasrelay", *args], capture_output=True, text=True, timeout=60)


def recorded_room(project: Path) -> None:
    """A room's `.canvas/` as `canvas serve` leaves it: a session in the store, and the recording."""
    canvas_dir = project / ".canvas"
    canvas_dir.mkdir(mode=0o700)
    store = Store(canvas_dir / "canvas.db")
    store.create_session("s1", "demo", "Tests")
    clock = Clock()
    recorder = Recorder(canvas_dir / RECORDING_DIR, RecordingLimits(), clock)
    recorder.start()
    doc: Doc = Doc()
    recorder.add(Kind.BOARD, "host", _note(doc, "n1", "the plan"))
    recorder.add(Kind.TERM_START, "t1", b"")
    recorder.add(Kind.TERM_SIZE, "t1", size_text(40, 8))
    recorder.add(Kind.TERM_OUT, "t1", b"$ ./draw\r\n")
    for step, text in enumerate(EVENTS):
        clock.now = T0 + 10 + step
        store.append_event("s1", stored_event(text))
        recorder.add(Kind.EVENT, "s1", text.encode())
    clock.now = T0 + 20
    recorder.add(Kind.BOARD, "ada1", _note(doc, "n2", "Ada's idea"))
    recorder.add(Kind.TERM_OUT, "t1", b"\x1b[2J\x1b[4;6Hdrawn\x1b[1;1Htop-left")
    recorder.close()
    store.close()


@pytest.fixture
def replay_file(tmp_path: Path) -> Path:
    project = tmp_path / "room"
    project.mkdir()
    recorded_room(project)
    out = tmp_path / "room.canvas-replay"
    done = canvas("replay", "export", "--dir", str(project), str(out))
    assert done.returncode == 0, done.stderr
    return out


@pytest.fixture
def replaying(replay_file: Path) -> Iterator[str]:
    process = subprocess.Popen(
        [sys.executable, "-m", "canvasrelay", "replay", str(replay_file), "--no-open"],
        stdout=subprocess.PIPE,
        text=True,
        env={**os.environ, "PYTHONUNBUFFERED": "1"},
    )
    assert process.stdout is not None
    line = process.stdout.readline()
    link = re.search(r"http://127\.0\.0\.1:\d+/#replay", line)
    assert link, line
    yield link.group(0)
    process.terminate()
    process.wait(timeout=10)


def screen_lines(cols: int, rows: int, output: bytes) -> list[str]:
    emulator = pyte.Screen(cols, rows)
    pyte.ByteStream(emulator).feed(output)
    return [line.rstrip() for line in emulator.display]


def page_at(page: Any, at: float) -> None:
    page.get_by_test_id("replay-scrubber").fill(str(at))


def shown_screen(page: Any) -> list[str]:
    rows = page.locator(".xterm-rows > div").all_inner_texts()
    return [row.replace("\xa0", " ").rstrip() for row in rows]


def test_the_replay_page_shows_each_moment_as_the_timeline_has_it(
    browser: Any, replay_file: Path, replaying: str
) -> None:
    _, room, casts = read_replay(replay_file.read_bytes())
    timeline = Timeline(room, casts)
    context = browser.new_context(viewport={"width": 1024, "height": 900}, color_scheme="light")
    page = context.new_page()
    page.goto(replaying)
    page.get_by_test_id("replay").wait_for(timeout=WAIT_MS)
    for at, items, said in [(T0 + 11, {"n1"}, "working"), (T0 + 25, {"n1", "n2"}, "All tests pass.")]:
        page_at(page, at)
        moment = timeline.at(at)
        assert set(moment.items()) == items
        board = page.get_by_test_id("replay-board")
        board.locator("[data-item]").nth(len(items) - 1).wait_for(timeout=WAIT_MS)
        assert {g.get_attribute("data-item") for g in board.locator("[data-item]").all()} == items
        assert said in page.get_by_test_id("replay-thread").inner_text()
        shown = moment.terminals["t1"]
        expected = screen_lines(shown.cols, shown.rows, shown.output)
        page.wait_for_function("() => document.querySelectorAll('.xterm-rows > div').length > 0")
        assert shown_screen(page)[: len(expected)] == expected
    assert "make test (in_progress)" not in page.get_by_test_id("replay-thread").inner_text()
    # Keyboard: Esc goes to the end, a mark is one Tab stop among the others.
    page_at(page, T0 + 5)
    page.get_by_test_id("replay-scrubber").press("Escape")
    assert "Ada's idea" in page.get_by_test_id("replay-board").inner_html()
    context.close()


def test_the_replay_page_fits_a_phone_in_the_dark(browser: Any, replaying: str) -> None:
    context = browser.new_context(viewport={"width": 390, "height": 844}, color_scheme="dark")
    page = context.new_page()
    page.goto(replaying)
    page.get_by_test_id("replay").wait_for(timeout=WAIT_MS)
    assert page.evaluate("document.documentElement.scrollWidth") <= 390
    page.get_by_test_id("replay-scrubber").press("Home")
    page.get_by_role("button", name="Next prompt").click()
    assert "Ada asked Tests" in page.get_by_test_id("replay-said").inner_text()
    context.close()


def test_a_file_cut_short_or_changed_is_refused_in_words(replay_file: Path, tmp_path: Path) -> None:
    blob = replay_file.read_bytes()
    cut = tmp_path / "cut.canvas-replay"
    cut.write_bytes(blob[: len(blob) // 2])
    refused = canvas("replay", str(cut), "--no-open")
    assert refused.returncode == 2 and "cut short" in refused.stderr
    changed = tmp_path / "changed.canvas-replay"
    flipped = bytearray(blob)
    flipped[len(blob) // 3] ^= 0x55
    changed.write_bytes(bytes(flipped))
    refused = canvas("replay", str(changed), "--no-open")
    assert refused.returncode == 2 and re.search(r"damaged|changed|cut short", refused.stderr)
