"""The room link anywhere, timed in the NAT test net (root; tests/nat_net.py, tests/nat_relay_net.py).

    .venv/bin/python -m tests.bench.nat_join [--joins 5] [--idle-s 60]

For each way across (behind port-preserving routers through STUN; behind symmetric ones
relay-only through coturn, with credentials the host minted), a `canvas serve` that names three
relays (one real, one that drops every event, one not there) and `--joins` real Chromium guests in
turn, each a fresh browser: from opening the room link (the exported page on a static server) to
the board, p50 and max against the goals (3 s through STUN, 5 s through TURN). Then the events a
relay was sent per join, and from the host while nobody joins for `--idle-s`, per minute.
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from pathlib import Path

from tests.nat_net import STUN, missing_tools, nat_net, turn_options
from tests.nat_relay_net import chromium, events_sent, host, public_segment

GOALS_S = {"stun": 3.0, "turn": 5.0}


def run(way: str, joins: int, idle_s: float) -> None:
    symmetric = way == "turn"
    with tempfile.TemporaryDirectory() as folder, nat_net(hub=symmetric, guest=symmetric) as net:
        root = Path(folder)
        relay = public_segment(net, root)
        options = ["--relay-only", *turn_options(root)] if symmetric else ["--ice-server", STUN]
        link = host(net, root, *options)
        idle_from = events_sent(relay)
        # What is measured here is a span of time: the events an idle host sends in it.
        time.sleep(idle_s)
        idle = events_sent(relay) - idle_from
        seconds: list[float] = []
        for _ in range(joins):
            joined = chromium(net, link)
            if "project" in joined:
                seconds.append(float(str(joined["seconds"])))
        per_join = (events_sent(relay) - idle_from - idle) / max(1, joins)
    goal = GOALS_S[way]
    if seconds:
        p50, worst = statistics.median(seconds), max(seconds)
        met = "met" if worst <= goal else "missed"
        took = f"link to board p50 {p50:.2f} s, max {worst:.2f} s (goal ≤ {goal:g} s: {met})"
        print(f"{way}: {len(seconds)}/{joins} joined; {took}")
    else:
        print(f"{way}: none of {joins} joined")
    idle_rate = idle * 60 / idle_s
    print(f"{way}: {per_join:.1f} events per join on a relay (goal ≤ 4); idle host {idle_rate:.1f} a minute (goal 0)")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--joins", type=int, default=5)
    parser.add_argument("--idle-s", type=float, default=60.0)
    args = parser.parse_args()
    lacking = missing_tools()
    if lacking:
        raise SystemExit(f"cannot build the test net: {lacking}")
    print("three relays in every link: one real, one that drops every event, one not there")
    for way in ("stun", "turn"):
        run(way, args.joins, args.idle_s)


if __name__ == "__main__":
    main()
