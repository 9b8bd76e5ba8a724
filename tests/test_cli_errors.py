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
    # The topic derives from the key (ADR 0014): another key names a topic no hub listens on.
    key = server.room_link.split("key=", 1)[1].split("&", 1)[0]
    wrong = server.room_link.replace(key, RoomSecrets.generate().room_key)
    code, stderr, elapsed = run_cli("join", wrong)
    assert code == 1 and stderr.count("\n") == 1 and "no such room" in stderr, stderr
    assert elapsed < 10 + startup_seconds("canvasrelay.cli.main, canvasrelay.client.guest")


@pytest.mark.parametrize(
    ("args", "words"),
    [
        (["--base-url", "notaurl"], "notaurl is not a web address"),
        (["--ice-server", "garbage"], "garbage is not a STUN or TURN server"),
        (["--signal", "http://x"], "http://x is not a rendezvous address"),
    ],
)
def test_serve_refuses_a_bad_address_in_one_line(tmp_path: Path, args: list[str], words: str) -> None:
    code, stderr, elapsed = run_cli("serve", "--dir", str(tmp_path), "--no-open", "--port", "0", *args)
    assert_one_line(code, stderr, elapsed, words)


def test_serve_names_a_misspelt_config_key_in_one_line(tmp_path: Path) -> None:
    (tmp_path / ".canvas").mkdir(mode=0o700)
    (tmp_path / ".canvas" / "config.toml").write_text("[agent_processes]\nmax_runing = 3\n")
    code, stderr, elapsed = run_cli("serve", "--dir", str(tmp_path), "--no-open", "--port", "0")
    words = f"{tmp_path}/.canvas/config.toml: agent_processes.max_runing: unknown key"
    assert_one_line(code, stderr, elapsed, words)


def test_a_second_serve_on_the_same_folder_names_the_running_canvas_before_its_port(tmp_path: Path) -> None:
    first = ServerProcess(tmp_path).start()
    try:
        port = first.base_url.rsplit(":", 1)[1]
        code, stderr, elapsed = run_cli("serve", "--dir", str(tmp_path), "--no-open", "--port", port)
        assert_one_line(code, stderr, elapsed, "already")
        assert "in use on" not in stderr
    finally:
        first.stop()


def test_help_shows_every_default() -> None:
    serve = subprocess.run([sys.executable, "-m", "canvasrelay", "serve", "--help"], capture_output=True, text=True)
    signal = subprocess.run([sys.executable, "-m", "canvasrelay", "signal", "--help"], capture_output=True, text=True)
    join = subprocess.run([sys.executable, "-m", "canvasrelay", "join", "--help"], capture_output=True, text=True)
    assert "default 8477" in serve.stdout and "default 8478" in signal.stdout
    assert "default 127.0.0.1" in serve.stdout and "default 0.0.0.0" in signal.stdout
    assert "default terminal guest" in join.stdout and "default #8a8a8a" in join.stdout


def test_join_says_no_such_room_when_no_hub_answers(server: ServerProcess) -> None:
    # A room link to a rendezvous that works, for a room nobody serves there.
    other = RoomSecrets.generate()
    link = (
        server.room_link.split("#", 1)[0] + f"#room={other.room_id}&key={other.room_key}&host={other.host_public_key}"
    )
    start = time.monotonic()
    result = subprocess.run(
        [sys.executable, "-m", "canvasrelay", "join", link], capture_output=True, text=True, timeout=60
    )
    elapsed = time.monotonic() - start
    assert result.returncode == 1 and result.stderr.count("\n") == 1, result.stderr
    assert "no such room" in result.stderr
    assert elapsed < 10 + startup_seconds("canvasrelay.cli.main, canvasrelay.client.guest")


def test_join_names_an_unreachable_rendezvous_in_one_line() -> None:
    with socket.socket() as spare:
        spare.bind(("127.0.0.1", 0))
        port = spare.getsockname()[1]
    room = RoomSecrets.generate()
    link = f"http://127.0.0.1:{port}/#room={room.room_id}&key={room.room_key}&host={room.host_public_key}"
    result = subprocess.run(
        [sys.executable, "-m", "canvasrelay", "join", link], capture_output=True, text=True, timeout=60
    )
    assert result.returncode == 1 and result.stderr.count("\n") == 1, result.stderr
    assert f"could not reach the rendezvous at ws://127.0.0.1:{port}/signal (nothing answers there)" in result.stderr
