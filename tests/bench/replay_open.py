"""The replay of a two-hour room: how long it takes to open, to jump, and how big its file is.

    .venv/bin/python -m tests.bench.replay_open [--board 5000] [--events 10000] [--mb 50]

Writes a recording as `canvas serve` does (through the `Recorder`, with its segments and their
baselines): `--board` board updates (notes added and moved by two people), `--events` session
events (turns of streamed chunks with a tool call each) also kept in the store as the server keeps
them, and `--mb` of terminal output (build-log lines with colours and cursor moves), spread over
two hours. Then prints: the export's time and size against the store's bytes on disk (recording
and canvas.db), the time to open the file (read and checked, then the timeline built), and the
time of jumps to 20 moments spread over the room (board, every thread and every terminal there).
"""

from __future__ import annotations

import argparse
import random
import statistics
import tempfile
import time
from pathlib import Path

from pycrdt import Doc, Map, Text

from canvasrelay.core.recording import Entry, Kind, size_text
from canvasrelay.core.replay_file import read_replay
from canvasrelay.core.timeline import Timeline
from canvasrelay.protocol.session_events import stored_event, stored_json
from canvasrelay.server.config import RecordingLimits
from canvasrelay.server.recording.export import export_replay
from canvasrelay.server.recording.segments import RECORDING_DIR, Recorder, recording_bytes
from canvasrelay.server.store import DB_FILE, Store

HOURS = 2.0


class Clock:
    def __init__(self, start: float) -> None:
        self.now = start

    def __call__(self) -> float:
        return self.now


def _events(count: int) -> list[str]:
    out, seq = [], 0
    while len(out) < count:
        seq += 1
        out.append(f'{{"seq":{seq},"kind":"turn","text":"step {seq}","author":"Ada","time":1}}')
        seq += 1
        out.append(
            f'{{"seq":{seq},"kind":"chunk","update":{{"sessionUpdate":"tool_call","toolCallId":"c{seq}",'
            '"title":"make test","kind":"execute","status":"completed"}}'
        )
        for _ in range(20):
            seq += 1
            out.append(
                f'{{"seq":{seq},"kind":"chunk","update":{{"sessionUpdate":"agent_message_chunk",'
                '"content":{"type":"text","text":"Some words of the answer, streamed. "}}}'
            )
        seq += 1
        out.append(f'{{"seq":{seq},"kind":"turn-end"}}')
    return out[:count]


def record(canvas_dir: Path, board: int, events: int, mb: float) -> tuple[float, float]:
    start = time.time() - HOURS * 3600
    clock = Clock(start)
    recorder = Recorder(canvas_dir / RECORDING_DIR, RecordingLimits(max_mb=4096), clock)
    doc: Doc = Doc()
    items = doc.get("items", type=Map)
    recorder.baselines = lambda: [Entry(Kind.BOARD_BASE, clock(), "", doc.get_update())]
    recorder.start()
    store = Store(canvas_dir / DB_FILE)
    store.create_session("s1", "demo", "Build")
    line = b"\x1b[32m[ok]\x1b[0m compiled module %06d in 12 ms\r\n"
    chunks = int(mb * 1024 * 1024 / (len(line % 0) * 40))
    logs = _events(events)
    total = board + len(logs) + chunks
    plan = ["b"] * board + ["e"] * len(logs) + ["t"] * chunks
    random.Random(7).shuffle(plan)
    next_event = 0
    recorder.add(Kind.TERM_START, "t1", b"")
    recorder.add(Kind.TERM_SIZE, "t1", size_text(120, 40))
    for step, what in enumerate(plan):
        clock.now = start + HOURS * 3600 * step / total
        if what == "b":
            before = doc.get_state()
            with doc.transaction():
                key = f"n{step % 300}"
                if key in items:
                    items[key]["x"] = float(step % 1000)
                else:
                    items[key] = Map({"kind": "note", "x": 0.0, "y": 0.0, "w": 160.0, "h": 100.0, "text": Text("idea")})
            recorder.add(Kind.BOARD, "host" if step % 2 else "ada1", doc.get_update(before))
        elif what == "e":
            event = stored_event(logs[next_event])
            next_event += 1
            store.stage_event("s1", event)
            recorder.add(Kind.EVENT, "s1", stored_json(event).encode())
        else:
            recorder.add(Kind.TERM_OUT, "t1", b"".join(line % (step * 40 + i) for i in range(40)))
        if step % 1000 == 0:
            recorder.flush()
            store.commit()
    recorder.close()
    store.close()
    return start, clock.now


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--board", type=int, default=5000)
    parser.add_argument("--events", type=int, default=10000)
    parser.add_argument("--mb", type=float, default=50.0)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        canvas_dir = Path(folder) / ".canvas"
        canvas_dir.mkdir()
        began = time.perf_counter()
        start, end = record(canvas_dir, args.board, args.events, args.mb)
        print(
            f"recorded {args.board} board updates, {args.events} events, {args.mb:.0f} MB of output "
            f"in {time.perf_counter() - began:.1f} s"
        )
        stored = recording_bytes(canvas_dir / RECORDING_DIR) + (canvas_dir / DB_FILE).stat().st_size
        began = time.perf_counter()
        blob = export_replay(canvas_dir)
        exported = time.perf_counter() - began
        print(
            f"export: {exported:.2f} s, {len(blob) / 1e6:.1f} MB against {stored / 1e6:.1f} MB in the store "
            f"({len(blob) / stored:.3f} of it)"
        )
        opens = []
        for _ in range(3):
            began = time.perf_counter()
            _, room, casts = read_replay(blob)
            timeline = Timeline(room, casts)
            opens.append(time.perf_counter() - began)
        print(f"open (read, checked, timeline built): best {min(opens):.2f} s of 3")
        jumps = []
        for index in range(20):
            at = start + (end - start) * random.Random(index).random()
            began = time.perf_counter()
            timeline.at(at)
            jumps.append(time.perf_counter() - began)
        print(
            f"jump to a moment (board, thread, terminal): median {statistics.median(jumps) * 1000:.0f} ms, "
            f"max {max(jumps) * 1000:.0f} ms over 20"
        )


if __name__ == "__main__":
    main()
