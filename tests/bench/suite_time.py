"""Wall time of the README's test command and of each tier, with the machine's load around it.

    python -m tests.bench.suite_time              # every tier, then the whole run
    python -m tests.bench.suite_time core browser # just these

Each tier is the README's pytest command narrowed by a marker expression; the figures depend on
the machine's load (printed before and after), so compare runs made at like loads.
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
import time

PYTEST = [sys.executable, "-m", "pytest", "-n", "3", "--dist", "loadfile", "-q", "-p", "no:cacheprovider"]
"""The README's test command (its pytest step)."""
TIERS = {
    "core": "not browser and not interop and not services and not paced",
    "browser": "browser",
    "services": "services and not browser",
    "interop": "interop",
    "paced": "paced",
    "all": "",
}
SUMMARY = re.compile(r"^=* ?(\d+ (?:passed|failed|skipped|errors?|deselected)\b.*?) ?=*$", re.MULTILINE)


def load() -> str:
    return " ".join(f"{figure:.1f}" for figure in os.getloadavg())


def run(tier: str) -> None:
    expression = TIERS[tier]
    command = [*PYTEST, "-m", expression] if expression else PYTEST
    before = load()
    start = time.monotonic()
    done = subprocess.run(command, capture_output=True, text=True, check=False)
    wall = time.monotonic() - start
    found = SUMMARY.findall(done.stdout)
    outcome = found[-1] if found else f"exit {done.returncode}"
    print(f"{tier:<9} {wall:7.1f} s   load {before} -> {load()}   {outcome}", flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("tiers", nargs="*", metavar="TIER", help=f"any of {', '.join(TIERS)} (default: all of them)")
    args = parser.parse_args()
    unknown = set(args.tiers) - set(TIERS)
    if unknown:
        parser.error(f"no tier {', '.join(sorted(unknown))}")
    print(f"{'tier':<9} {'wall':>9}   load average (1, 5, 15 min) before -> after   outcome")
    for tier in args.tiers or TIERS:
        run(tier)


if __name__ == "__main__":
    main()
