"""Every mistake a user can make on the command line: one line naming it, exit code 2, at once.

"At once" is two seconds beyond what starting Python and importing the command costs right now
(measured in each test), so a loaded machine does not fail the test but a wait for a timeout does.
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from canvasrelay.client.guest import WRONG_KEY
from canvasrelay.server.room_secrets import RoomSecrets
from tests.support import ServerProcess

PROMPT_S = 2.0
NOBODY = ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"]


def startup_seconds(module: str) -> float:
    """How long a fresh interpreter takes to import `module` on this machine now."""
    start = time.monotonic()
    subprocess.run([sys.executable, "-c", f"import {module}"], check=True, timeout=60)
    return time.monotonic() - start


def run_cli(*args: str, prefix: list[str] | None = None, cwd: str | None = None) -> tuple[int, str, float]:
    start = time.monotonic()
    result = subprocess.run(
        [*(prefix or []), sys.executable, "-m", "canvasrelay", *args],
        capture_output=True,
        text=True,
        timeout=60,
        cwd=cwd,
    )
    elapsed = time.monotonic() - start
    assert "Traceback" not in result.stderr, result.stderr
    return result.returncode, result.stderr, elapsed


def assert_one_line(code: int, stderr: str, elapsed: float, words: str, module: str = "canvasrelay.cli.main") -> None:
    assert code == 2, stderr
    assert stderr.endswith("\n") and stderr.count("\n") == 1, stderr
    assert stderr.startswith("canvas: ") and words in stderr, stderr
    # Twice the import as measured now: the machine's load may change between the two runs.
    assert elapsed < PROMPT_S + 2 * startup_seconds(module), f"took {elapsed:.1f} s"


@pytest.fixture
def busy_port() -> Iterator[int]:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        yield taken.getsockname()[1]


@pytest.fixture
def shared_folder() -> Iterator[Path]:
    """A folder another user may write (pytest's tmp_path is private to root)."""
    folder = Path(tempfile.mkdtemp(prefix="canvas-cli-"))
    folder.chmod(0o777)
    yield folder
    subprocess.run(["rm", "-rf", str(folder)], check=True)


@pytest.mark.parametrize(
    ("args", "words"),
    [
        (["serve", "--port", "70000"], "70000 is not a port"),
        (["serve", "--port", "-5"], "-5 is not a port"),
        (["signal", "--port", "70000"], "70000 is not a port"),
        (["--bogus"], "unknown option --bogus"),
        (["serve", "--no-open", "--bogus"], "unknown option --bogus"),
        (["join", "http://x/#room=r&key=k&host=h", "--color", "red"], "red is not a colour"),
        (["join", "http://x/#room=r&key=k&host=h", "--name", ""], "a name is 1 to 64 characters"),
        ([], "say what to do"),
    ],
)
def test_bad_arguments(args: list[str], words: str) -> None:
    assert_one_line(*run_cli(*args), words)


def test_a_file_given_as_the_folder(tmp_path: Path) -> None:
    a_file = tmp_path / "notes.txt"
    a_file.write_text("x")
    assert_one_line(*run_cli("serve", "--dir", str(a_file), "--no-open"), "is a file, not a folder")


@pytest.mark.parametrize("command", ["serve", "signal"])
def test_a_busy_port(command: str, busy_port: int, project: Path) -> None:
    more = ["--dir", str(project), "--no-open"] if command == "serve" else ["--host", "127.0.0.1"]
    assert_one_line(*run_cli(command, "--port", str(busy_port), *more), f"port {busy_port} is in use")


@pytest.mark.skipif(os.geteuid() == 0 and not Path("/usr/bin/setpriv").exists(), reason="needs setpriv as root")
@pytest.mark.parametrize("command", ["serve", "signal"])
def test_a_privileged_port(command: str, shared_folder: Path) -> None:
    more = ["--dir", str(shared_folder), "--no-open"] if command == "serve" else ["--host", "127.0.0.1"]
    prefix = NOBODY if os.geteuid() == 0 else []
    assert_one_line(*run_cli(command, "--port", "80", *more, prefix=prefix, cwd="/"), "port 80 is privileged")


def test_a_link_whose_key_does_not_open_the_room(server: ServerProcess) -> None:
    key = server.room_link.split("key=", 1)[1].split("&", 1)[0]
    wrong = server.room_link.replace(key, RoomSecrets.generate().room_key)
    code, stderr, elapsed = run_cli("join", wrong)
    assert_one_line(code, stderr, elapsed, WRONG_KEY, module="canvasrelay.cli.main, canvasrelay.client.guest")
