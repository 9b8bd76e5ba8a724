"""Which WebRTC library carries the guests' channels is chosen once, at start: wrtc wherever it
loads, aiortc where it cannot (or when `CANVAS_WEBRTC` names it), and `canvas serve` says which in
its first lines and in `/api/health`."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import urllib.request
from pathlib import Path

import pytest

from canvasrelay.net.peer_connection import CHOICE
from tests.support import ServerProcess


def chosen_in_a_fresh_process(*before: str, **env: str) -> str:
    """What `chosen()` describes in a new interpreter, after running the lines `before`."""
    script = "\n".join([*before, "from canvasrelay.net.peer_connection import chosen", "print(chosen().describe())"])
    environment = {k: v for k, v in os.environ.items() if k != CHOICE} | env
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, env=environment, timeout=60)
    assert done.returncode == 0, done.stderr
    return done.stdout.strip()


def test_wrtc_carries_the_channels_wherever_it_loads() -> None:
    assert chosen_in_a_fresh_process().startswith("wrtc 0.1.0 (libwebrtc")


def test_aiortc_carries_them_where_wrtc_cannot_load_and_says_why() -> None:
    described = chosen_in_a_fresh_process("import sys", "sys.modules['wrtc'] = None")
    assert described.startswith("aiortc ") and "wrtc could not load" in described


def test_canvas_webrtc_names_the_library() -> None:
    assert chosen_in_a_fresh_process(**{CHOICE: "aiortc"}).startswith(f"aiortc 1.16.0 ({CHOICE}=aiortc")


@pytest.mark.parametrize("library", ["wrtc", "aiortc"])
def test_canvas_serve_names_the_library_first_and_in_its_health(project: Path, library: str) -> None:
    served = ServerProcess(project, env={CHOICE: library}).start()
    try:
        first = [line.strip() for line in served.output[:2]]
        assert first[1].startswith(f"Guests connect over {library} "), first
        with urllib.request.urlopen(f"{served.base_url}/api/health", timeout=10) as response:
            health = json.load(response)
        assert first[1] == f"Guests connect over {health['webrtc']}"
    finally:
        served.stop()


def test_a_library_canvas_does_not_know_is_one_line_and_exit_code_2(project: Path) -> None:
    command = [sys.executable, "-m", "canvasrelay", "serve", "--dir", str(project), "--port", "0", "--no-open"]
    done = subprocess.run(command, capture_output=True, text=True, env={**os.environ, CHOICE: "webkit"}, timeout=60)
    assert done.returncode == 2
    assert done.stderr.strip().splitlines() == [
        f"canvas: {CHOICE}=webkit: canvas knows the WebRTC libraries wrtc and aiortc"
    ]
