"""`.canvas/` is its owner's alone and held by one `canvas serve` at a time (real processes)."""

from __future__ import annotations

import os
import stat
import subprocess
import sys
from pathlib import Path
from urllib.parse import urlparse

from tests.support import HostClient, ServerProcess


def serve_cli(project: Path, *args: str) -> subprocess.CompletedProcess[str]:
    command = [sys.executable, "-m", "canvasrelay", "serve", "--dir", str(project), "--port", "0", "--no-open", *args]
    return subprocess.run(command, capture_output=True, text=True, timeout=30)


async def test_a_second_server_on_the_folder_names_the_first_and_exits_2(project: Path) -> None:
    first = ServerProcess(project).start()
    try:
        secrets_before = (project / ".canvas" / "secrets.json").read_bytes()
        second = serve_cli(project, "--new-room")
        assert second.returncode == 2, second.stderr
        message = second.stderr.strip()
        assert "\n" not in message and "Traceback" not in message
        port = urlparse(first.base_url).port
        assert f"already serving {project} on port {port}" in message, message
        assert first.token not in second.stderr + second.stdout
        # It touched nothing: --new-room did not rotate the running server's secrets.
        assert (project / ".canvas" / "secrets.json").read_bytes() == secrets_before
        host = await HostClient.connect(first)
        await host.close()
    finally:
        first.kill9()
    # The kernel let go of the lock with the killed process: a new server starts, same links.
    third = ServerProcess(project).start()
    try:
        assert third.host_link.split("#")[1] == first.host_link.split("#")[1]
        host = await HostClient.connect(third)
        await host.close()
    finally:
        assert third.stop() == 0
    fourth = ServerProcess(project).start()
    assert fourth.stop() == 0, "a cleanly stopped server leaves the folder free too"


def test_everything_under_canvas_is_the_owners_alone(project: Path) -> None:
    canvas = project / ".canvas"
    canvas.mkdir()
    # Written by hand with the usual umask, as a user would.
    (canvas / "config.toml").write_text('[agents.mine]\ncommand = "true"\n')
    os.chmod(canvas / "config.toml", 0o644)
    (canvas / "notes").mkdir(mode=0o755)
    (canvas / "notes" / "todo.txt").write_text("x")
    os.chmod(canvas / "notes" / "todo.txt", 0o664)
    server = ServerProcess(project).start()
    try:
        modes = {
            str(path.relative_to(canvas)): stat.S_IMODE(path.lstat().st_mode) for path in [canvas, *canvas.rglob("*")]
        }
    finally:
        server.stop()
    assert {"config.toml", "secrets.json", "canvas.db", "serve.lock", "notes/todo.txt"} <= modes.keys()
    for name, mode in modes.items():
        wanted = 0o700 if (canvas / name).is_dir() else 0o600
        assert mode == wanted, f"{name}: {oct(mode)}"
