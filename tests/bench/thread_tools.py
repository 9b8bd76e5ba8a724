"""Thread benchmark: a 5,000-event session with 200 tool calls (their output) and 50 edits (their
diffs), opened in Chromium, beside the same session with the tools' content taken out.

    .venv/bin/python -m tests.bench.thread_tools [--events 5000] [--tools 200] [--diffs 50] [--runs 3]

The session is written into a real store before `canvas serve` starts (tests/long_sessions.py), and
the page is the real host page. Prints, for each thread, the time from navigation to the newest
page drawn (the last reply on screen), and the frame times while the reader scrolls up through it
(requestAnimationFrame deltas over 240 frames of 120 px each, older pages loading as they come):
median, 95th percentile and the longest. The machine's load average is printed beside them.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import tempfile
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

from tests.bench.process_cpu import settled
from tests.long_sessions import reply, turn_events, write_log
from tests.support import CHROMIUM, CHROMIUM_ARGS, ServerProcess

OUTPUT_LINES = 40
FILE_LINES = 120
SCROLL_FRAMES = 240

# Scrolls the thread up by `step` px a frame for `frames` frames; returns each frame's time (ms).
SCROLL = """async (thread, [frames, step]) => {
  const times = [];
  let last = performance.now();
  for (let i = 0; i < frames; i++) {
    thread.scrollTop = Math.max(0, thread.scrollTop - step);
    await new Promise((r) => requestAnimationFrame(r));
    const now = performance.now();
    times.push(now - last);
    last = now;
  }
  return times;
}"""


def tool_events(n: int, diff: bool) -> Iterator[dict[str, Any]]:
    """One tool call with its work: a command's output, or an edit's before and after."""
    tool = f"t{n}"
    if diff:
        before = "\n".join(f"line {i} of file {n}" for i in range(FILE_LINES)) + "\n"
        after = before.replace(f"line 40 of file {n}", f"line 40 of file {n}, changed").replace(
            f"line 90 of file {n}\n", ""
        )
        content = [{"type": "diff", "path": f"/project/src/f{n}.py", "oldText": before, "newText": after}]
        start = {"title": f"Write src/f{n}.py", "kind": "edit", "content": content}
    else:
        output = "\n".join(f"\x1b[32mok\x1b[0m test_{n}_{i} passed" for i in range(OUTPUT_LINES)) + "\n"
        content = [{"type": "content", "content": {"type": "text", "text": output}}]
        start = {"title": f"pytest -k case{n}", "kind": "execute", "content": content, "rawOutput": {"exit_code": 0}}
    yield {"kind": "chunk", "update": {"sessionUpdate": "tool_call", "toolCallId": tool, "status": "pending", **start}}
    yield {"kind": "chunk", "update": {"sessionUpdate": "tool_call_update", "toolCallId": tool, "status": "completed"}}


def session(events: int, tools: int, diffs: int, with_content: bool) -> list[dict[str, Any]]:
    """`events` events in turns of the demo agent's shape, `tools` of the turns running a tool."""
    log: list[dict[str, Any]] = []
    turn = 0
    made = 0
    every = max(1, events // (tools * 12))
    while len(log) < events - 1:
        turn_log = list(turn_events(turn))
        if made < tools and turn % every == 0:
            extra = list(tool_events(made, diff=made < diffs))
            if not with_content:
                for event in extra:
                    event["update"].pop("content", None)
                    event["update"].pop("rawOutput", None)
            turn_log[2:2] = extra
            made += 1
        for event in turn_log:
            if len(log) == events - 1:
                break
            log.append({"seq": len(log) + 1, **event})
        turn += 1
    log.append({"seq": events, "kind": "turn-end"})
    return log


def measure(browser: Any, server: ServerProcess, last_reply: str) -> dict[str, float]:
    page = browser.new_page(viewport={"width": 1440, "height": 900})
    try:
        started = time.perf_counter()
        page.goto(server.host_link)
        thread = page.get_by_test_id("agent-thread")
        thread.get_by_test_id("agent-message").filter(has_text=last_reply).wait_for(timeout=60_000)
        first_paint = (time.perf_counter() - started) * 1000
        times = sorted(thread.evaluate(SCROLL, [SCROLL_FRAMES, 120])[1:])
        return {
            "newest page drawn ms": first_paint,
            "frame p50 ms": statistics.median(times),
            "frame p95 ms": times[int(len(times) * 0.95)],
            "frame max ms": times[-1],
        }
    finally:
        page.close()


def run(events: int, tools: int, diffs: int, runs: int) -> None:
    from playwright.sync_api import sync_playwright

    print(f"thread_tools: {events} events, {tools} tool calls ({diffs} edits with diffs); {load()}")
    with tempfile.TemporaryDirectory() as tmp, sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        for with_content in (True, False):
            root = Path(tmp) / ("with" if with_content else "without")
            (root / ".canvas").mkdir(parents=True, mode=0o700)
            log = session(events, tools, diffs, with_content)
            write_board(root, log)
            last_turn = max(i for i, e in enumerate(log) if e["kind"] == "turn")
            last_reply = reply(int(log[last_turn]["text"].split()[1]))[:20]
            server = ServerProcess(root).start()
            try:
                # In a thread of its own: Playwright's sync API holds this thread's event loop.
                with ThreadPoolExecutor(1) as pool:
                    pool.submit(asyncio.run, settled(server.proc.pid)).result()
                figures = [measure(browser, server, last_reply) for _ in range(runs)]
            finally:
                server.stop()
            name = "with tool output and diffs" if with_content else "without tool content"
            summary = ", ".join(f"{key} {statistics.median(f[key] for f in figures):.1f}" for key in figures[0])
            print(f"  {name}: {summary}  (median of {runs})")
        browser.close()
    print(f"  ({load()})")


def write_board(root: Path, log: list[dict[str, Any]]) -> None:
    from canvasrelay.core import board_edits
    from canvasrelay.core.board import Board
    from canvasrelay.server.board.log import BOARD_LOG, BoardLog
    from canvasrelay.server.store import open_store

    store = open_store(root / ".canvas")
    board_log, updates = BoardLog.open(root / ".canvas" / BOARD_LOG)
    try:
        write_log(store, "bench", log, created=1_700_000_000)
        edit = board_edits.add_frame(Board.from_updates(updates), "agent", "bench", x=0.0, y=0.0, w=900.0, h=760.0)
        board_log.append(edit.update)
    finally:
        board_log.close()
        store.close()


def load() -> str:
    return "load average " + " ".join(f"{x:.2f}" for x in os.getloadavg())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--events", type=int, default=5000)
    parser.add_argument("--tools", type=int, default=200)
    parser.add_argument("--diffs", type=int, default=50)
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    run(args.events, args.tools, args.diffs, args.runs)


if __name__ == "__main__":
    main()
