"""The session log's own cost, in this process: what each streamed chunk costs the server, and
folding and compacting a 5,000-event turn.

    .venv/bin/python -m tests.bench.session_log_speed [--events 5000] [--runs 7]

The workload is one turn of `--events` updates as an agent streams them: reply chunks of ~30
characters, and every 25th update a tool call, then its result (10 lines of output and a raw exit
code). Printed, each the best and the median of `--runs`:

- append: each update as the agent host gets it (JSON) through everything the server does per
  chunk before any I/O: made an event (`session_update`, `Sessions.update`), its store row and head
  written as JSON (`stored_json`), and its `agent-event` frame encoded; per chunk in µs;
- fold: the stored rows of that turn read back (`stored_event`) and folded (`session_log.fold`);
- compact: the turn compacted and both logs folded, as the store's reader checks a compaction;
- page: a history page of 200 stored rows made into its `agent-history` frame and encoded, split
  into what the store's reader thread does (reading the rows into events) and what the event
  loop does (`Sessions.history_read`, the frame's JSON).

No sockets and no SQLite: the figures are the log's own, so two versions compare on one machine.
The load average is printed beside them (the machine is shared).
"""

from __future__ import annotations

import argparse
import os
import statistics
import time
from collections.abc import Callable
from typing import Any

from canvasrelay.core import session_log
from canvasrelay.core.agent_sessions import HISTORY_PAGE, HistoryPage, ReadHistory, Sessions, StoreEvent
from canvasrelay.core.effects import Broadcast, Send
from canvasrelay.core.peer import Peer
from canvasrelay.protocol.access import Access
from canvasrelay.protocol.agents import AgentCreate, AgentPrompt
from canvasrelay.protocol.base import encode
from canvasrelay.protocol.session_events import session_update, stored_event, stored_json
from canvasrelay.server.agents.catalog import DEMO

TOOL_EVERY = 25
OUTPUT = "src/canvasrelay/core/session_log.py\n" * 10


def updates(count: int) -> list[dict[str, Any]]:
    """A turn's updates as JSON, the way an agent streams them."""
    out: list[dict[str, Any]] = []
    for n in range(count):
        if n % TOOL_EVERY == 0:
            out.append(
                {
                    "sessionUpdate": "tool_call",
                    "toolCallId": f"t{n}",
                    "title": "Run ls",
                    "kind": "execute",
                    "status": "pending",
                }
            )
        elif n % TOOL_EVERY == 1:
            out.append(
                {
                    "sessionUpdate": "tool_call_update",
                    "toolCallId": f"t{n - 1}",
                    "status": "completed",
                    "content": [{"type": "content", "content": {"type": "text", "text": OUTPUT}}],
                    "rawOutput": {"exit_code": 0},
                }
            )
        else:
            text = "some words of a reply, streamed "
            out.append({"sessionUpdate": "agent_message_chunk", "content": {"type": "text", "text": text}})
    return out


def append(raw: list[dict[str, Any]]) -> tuple[float, list[str]]:
    """Seconds to take every update through the server's per-chunk work, and the rows it stored."""
    sessions = Sessions({"demo": DEMO.info()})
    host = Peer("host", Access.HOST, "host")
    sessions.create(host, AgentCreate(id="s", agent="demo"))
    sessions.prompt(host, AgentPrompt(session_id="s", text="go"))
    rows: list[str] = []
    start = time.process_time()
    for update in raw:
        for effect in sessions.update("s", session_update(update)):
            if isinstance(effect, StoreEvent):
                rows.append(stored_json(effect.event))
                stored_json(effect.head)
            elif isinstance(effect, Broadcast):
                encode(effect.frame)
    return time.process_time() - start, rows


def timed(step: Callable[[], object]) -> float:
    start = time.process_time()
    step()
    return time.process_time() - start


def page(rows: list[str]) -> tuple[float, float]:
    """CPU seconds of one history page: in the reader's thread, then on the loop."""
    sessions = Sessions({"demo": DEMO.info()})
    sessions.create(Peer("host", Access.HOST, "host"), AgentCreate(id="s", agent="demo"))
    start = time.process_time()
    events = [stored_event(row) for row in rows]
    read = time.process_time()
    (sent,) = sessions.history_read(ReadHistory("host", "s"), HistoryPage(events, 0, len(rows)))
    assert isinstance(sent, Send)
    encode(sent.frame)
    return read - start, time.process_time() - read


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--events", type=int, default=5000)
    parser.add_argument("--runs", type=int, default=7)
    args = parser.parse_args()
    raw = updates(args.events)
    append(raw)  # builds each model's validator once, as a running server has
    appends = [append(raw) for _ in range(args.runs)]
    rows = appends[0][1]

    def fold() -> object:
        return session_log.fold([stored_event(row) for row in rows])

    def compact() -> object:
        events = [stored_event(row) for row in rows]
        return session_log.fold(session_log.compact(events)) == session_log.fold(events)

    pages = [page(rows[:HISTORY_PAGE]) for _ in range(args.runs)]
    seconds = {
        "append": [s for s, _ in appends],
        "fold": [timed(fold) for _ in range(args.runs)],
        "compact": [timed(compact) for _ in range(args.runs)],
        "page, reader": [reader for reader, _ in pages],
        "page, loop": [loop for _, loop in pages],
    }
    print(f"{args.events} events, {args.runs} runs (CPU time), load average {os.getloadavg()[0]:.2f}")
    for name, runs in seconds.items():
        best, median = min(runs) * 1000, statistics.median(runs) * 1000
        print(f"  {name:12} best {best:7.1f} ms  median {median:7.1f} ms", end="")
        print(f"  ({best * 1000 / args.events:.1f} µs per event)" if name == "append" else "")


if __name__ == "__main__":
    main()
