"""How long `canvas serve` takes from its start to its first answer on `/api/health`.

Run `python -m tests.bench.serve_startup [RUNS]`: each run starts a real `canvas serve` in a fresh
folder on a free port, asks `/api/health` once it has printed its links, and stops it. Prints the median and
the spread (a server with agents' SDKs to import in the background answers before they are in).
"""

from __future__ import annotations

import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

RUNS = 7
DEADLINE_S = 30.0


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def one_start() -> float:
    with tempfile.TemporaryDirectory() as folder:
        port = _free_port()
        command = [sys.executable, "-m", "canvasrelay", "serve", "--dir", folder, "--port", str(port), "--no-open"]
        started = time.perf_counter()
        server = subprocess.Popen(
            command, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, cwd=Path(folder), text=True
        )
        try:
            assert server.stdout is not None
            # It prints its links once its port is bound: then one request, timed to its answer.
            for line in server.stdout:
                if line.startswith("Host link"):
                    with urllib.request.urlopen(f"http://127.0.0.1:{port}/api/health", timeout=DEADLINE_S) as answer:
                        if answer.status == 200:
                            return time.perf_counter() - started
                    break
            raise RuntimeError("canvas serve stopped, or answered /api/health with an error, before answering it")
        finally:
            server.send_signal(signal.SIGINT)
            server.wait(timeout=DEADLINE_S)


def main() -> None:
    runs = int(sys.argv[1]) if len(sys.argv) > 1 else RUNS
    times = [one_start() for _ in range(runs)]
    print(f"canvas serve to first /api/health answer, {runs} runs:")
    ms = sorted(round(t * 1000) for t in times)
    print(f"  median {statistics.median(ms):.0f} ms, min {ms[0]} ms, max {ms[-1]} ms")


if __name__ == "__main__":
    main()
