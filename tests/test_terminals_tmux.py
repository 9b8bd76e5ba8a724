"""Shells kept by tmux: they outlive `canvas serve` (SIGTERM or kill -9), come back with their
programs, environment and output, say when they ended while canvas was stopped, and take the
host's own terminal (`canvas attach`) into the same shell. Each test ends its room's tmux server."""

from __future__ import annotations

import asyncio
import contextlib
import os
import pty
import re
import select
import shutil
import signal
import stat
import subprocess
import sys
import time
from collections.abc import AsyncIterator, Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from canvasrelay.client.guest import Guest
from canvasrelay.server.terminals.shell_processes import ShellProcesses
from canvasrelay.server.terminals.tmux import TmuxServer, TmuxTerminal
from tests.support import HostClient, ServerProcess
from tests.test_pty import Recorder
from tests.test_terminals import Screen, open_terminal

pytestmark = [pytest.mark.services, pytest.mark.timeout(120)]

TMUX = shutil.which("tmux")
WITH_TMUX = {"CANVAS_NO_TMUX": "", "SHELL": "/bin/bash"}


def canvas(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "canvasrelay", *args],
        capture_output=True,
        text=True,
        timeout=30,
        env={**os.environ, **WITH_TMUX, **(env or {})},
    )


def tmux(project: Path, *args: str) -> subprocess.CompletedProcess[str]:
    assert TMUX is not None
    return subprocess.run(
        [TMUX, "-S", "tmux.sock", *args], cwd=project / ".canvas", capture_output=True, text=True, timeout=10
    )


def after_hook(project: Path, hook: str, act: Callable[[], object]) -> None:
    """Does `act`, then waits for tmux's own `hook` (session-closed, say) to fire: a
    tmux channel signalled by the hook, not a poll. A signal that came first is kept by tmux."""
    channel = f"canvas-test-{hook}"
    assert tmux(project, "set-hook", "-g", hook, f"wait-for -S {channel}").returncode == 0
    act()
    tmux(project, "wait-for", channel)


@pytest.fixture
def kept(project: Path) -> Iterator[Path]:
    """The project, whose shells tmux keeps; every one of them ends with the test."""
    if TMUX is None:
        pytest.fail("tmux is not installed (apt-get install -y tmux): .ci/run installs it")
    yield project
    if (project / ".canvas").is_dir():
        canvas("stop", "--terminals", "--dir", str(project))
        assert tmux(project, "list-sessions").returncode != 0, "the room's tmux server outlived its test"
        left = ShellProcesses.of_room(project / ".canvas").pids()
        assert not left, f"programs the room's shells started outlived the test: {left}"


@pytest.fixture
async def serving(kept: Path) -> AsyncIterator[ServerProcess]:
    server = ServerProcess(kept, env=WITH_TMUX).start()
    yield server
    server.stop()


async def connect(server: ServerProcess) -> tuple[HostClient, dict[str, Any]]:
    client = await HostClient.connect(server)
    listing = await client.expect("terminals")
    return client, {t["id"]: t for t in listing["terminals"]}


async def echo_in_each(host: HostClient, word: str, tids: tuple[str, ...] = ("a", "b")) -> None:
    """Open each terminal and have its shell print `<word>-<id>-2`."""
    for tid in tids:
        screen = await open_terminal(host, tid)
        await host.send({"t": "term-input", "id": tid, "data": f"echo {word}-{tid}-$((1+1))\r"})
        await screen.until(f"{word}-{tid}-2")


def sigterm(server: ServerProcess) -> None:
    assert server.proc is not None
    server.proc.send_signal(signal.SIGTERM)
    assert server.proc.wait(timeout=15) == 0
    server.stop()


@contextlib.asynccontextmanager
async def watched(server: TmuxServer, project: Path, typed: str = "", **size: int) -> AsyncIterator[Recorder]:
    """A terminal of the room started (after `typed` was written to it), and what it prints."""
    printed = Recorder()
    terminal = TmuxTerminal(server, "t1", project, on_output=printed.on_output, shell="/bin/bash")
    if typed:
        assert terminal.write(typed)
    await terminal.start(**size)
    try:
        yield printed
    finally:
        await terminal.close()


def room_server(project: Path) -> TmuxServer:
    """The room's tmux server, as canvas would start it in `project`."""
    assert TMUX is not None
    canvas_dir = project / ".canvas"
    canvas_dir.mkdir(parents=True, mode=0o700, exist_ok=True)
    return TmuxServer(canvas_dir, TMUX)


@pytest.mark.parametrize("stop", ["SIGTERM", "kill -9"])
async def test_a_shell_outlives_the_server(kept: Path, stop: str) -> None:
    (kept / "sub").mkdir()
    server = ServerProcess(kept, env=WITH_TMUX).start()
    host, _ = await connect(server)
    screen = await open_terminal(host, "t1", cols=100, rows=30)
    await host.send(
        {"t": "term-input", "id": "t1", "data": "cd sub; export MARK=kept42; sleep 4242 & echo before-$((40+2))\r"}
    )
    await screen.until("before-42")
    await host.close()
    if stop == "SIGTERM":
        sigterm(server)
    else:
        server.kill9()
    assert tmux(kept, "has-session", "-t", "=t1").returncode == 0, "the shell ended with the server"

    again = ServerProcess(kept, env=WITH_TMUX).start()
    try:
        host, listed = await connect(again)
        assert listed["t1"]["running"] and listed["t1"]["name"] == "Terminal 1"
        screen = await open_terminal(host, "t1")
        await screen.until("before-42")
        await host.send({"t": "term-input", "id": "t1", "data": "echo mark=$MARK in ${PWD##*/}; jobs\r"})
        await screen.until(r"mark=kept42 in sub")
        await screen.until(r"Running\s+sleep 4242")
        await host.close()
    finally:
        again.stop()
    assert tmux(kept, "has-session", "-t", "=t1").returncode == 0


async def test_two_terminals_come_back_and_one_that_ended_meanwhile_says_so(kept: Path) -> None:
    server = ServerProcess(kept, env=WITH_TMUX).start()
    host, _ = await connect(server)
    await echo_in_each(host, "in")
    await host.send({"t": "term-rename", "id": "b", "name": "build"})
    await host.expect("terminals")
    await host.close()
    sigterm(server)

    # While canvas is stopped, the shell of "build" exits with code 7.
    after_hook(kept, "session-closed", lambda: tmux(kept, "send-keys", "-t", "=b:", "exit 7", "Enter"))
    assert tmux(kept, "has-session", "-t", "=b").returncode != 0, "the shell did not exit"
    exit_file = kept / ".canvas" / "terminal-exits" / "b"
    assert exit_file.exists()

    again = ServerProcess(kept, env=WITH_TMUX).start()
    try:
        host, listed = await connect(again)
        assert listed["a"]["running"] and not listed["a"].get("endedWhileStopped")
        assert listed["b"] == {
            "id": "b",
            "name": "build",
            "running": False,
            "exitCode": 7,
            "endedWhileStopped": True,
            "controllers": [],
            "cols": 80,
            "rows": 24,
            "pinned": False,
        }
        screen = await open_terminal(host, "a")
        await screen.until("in-a-2")
        await host.close()
    finally:
        again.stop()
    # Said once it is known: the next start still says it, and the code file is gone.
    assert not exit_file.exists()
    third = ServerProcess(kept, env=WITH_TMUX).start()
    try:
        host, listed = await connect(third)
        assert listed["b"]["exitCode"] == 7 and listed["b"]["endedWhileStopped"]
        await host.close()
    finally:
        third.stop()


async def test_after_a_restart_each_terminal_replays_its_own_shell(kept: Path) -> None:
    server = ServerProcess(kept, env=WITH_TMUX).start()
    host, _ = await connect(server)
    await echo_in_each(host, "only-in")
    await host.close()
    sigterm(server)

    again = ServerProcess(kept, env=WITH_TMUX).start()
    try:
        host, _ = await connect(again)
        for tid, other in (("a", "b"), ("b", "a")):
            screen = await open_terminal(host, tid)
            await screen.until(f"only-in-{tid}-2")
            assert f"only-in-{other}-2" not in screen.text, f"terminal {tid} replays {other}'s shell"
        await host.close()
    finally:
        again.stop()


async def test_a_terminal_ended_from_the_board_ends_its_session(serving: ServerProcess, kept: Path) -> None:
    host, _ = await connect(serving)
    screen = await open_terminal(host, "t1")
    await host.send({"t": "term-input", "id": "t1", "data": "exit 3\r"})
    while screen.exit_code is None:
        await screen.pump(10)
    assert screen.exit_code == 3
    assert tmux(kept, "has-session", "-t", "=t1").returncode != 0
    screen = await open_terminal(host, "t2")
    await host.send({"t": "term-input", "id": "t2", "data": "echo up\r"})
    await screen.until("up")
    await host.send({"t": "term-close", "id": "t2"})
    while screen.exit_code is None:
        await screen.pump(10)
    assert tmux(kept, "has-session", "-t", "=t2").returncode != 0
    await host.close()


async def test_the_socket_is_the_owners_alone(serving: ServerProcess, kept: Path) -> None:
    host, _ = await connect(serving)
    screen = await open_terminal(host, "t1")
    await host.send({"t": "term-input", "id": "t1", "data": "echo up\r"})
    await screen.until("up")
    mode = os.stat(kept / ".canvas" / "tmux.sock").st_mode
    assert stat.S_ISSOCK(mode) and mode & 0o077 == 0, oct(mode)
    assert stat.S_IMODE(os.stat(kept / ".canvas").st_mode) == 0o700
    await host.close()


class AttachedTerminal:
    """`canvas attach` in a real pseudo-terminal, as in the host's terminal emulator."""

    def __init__(self, project: Path, name: str) -> None:
        self.pid, self.fd = pty.fork()
        if self.pid == 0:
            env = {**os.environ, **WITH_TMUX, "TERM": "xterm-256color", "LINES": "30", "COLUMNS": "100"}
            os.execve(sys.executable, [sys.executable, "-m", "canvasrelay", "attach", name, "--dir", str(project)], env)
        self.seen = b""

    def type(self, text: str) -> None:
        os.write(self.fd, text.encode())

    async def until(self, text: str, timeout: float = 15.0) -> None:
        deadline = time.monotonic() + timeout
        while text.encode() not in self.seen:
            left = deadline - time.monotonic()
            assert left > 0, f"{text!r} not in {self.seen[-400:]!r}"
            readable, _, _ = await asyncio.to_thread(select.select, [self.fd], [], [], min(left, 0.5))
            if readable:
                self.seen += os.read(self.fd, 65536)

    def close(self) -> None:
        os.close(self.fd)
        with contextlib.suppress(ProcessLookupError):
            os.kill(self.pid, signal.SIGTERM)
        os.waitpid(self.pid, 0)


async def guest_output(guest: Guest, tid: str, text: str) -> None:
    async with asyncio.timeout(15):
        while text not in (await guest.expect("term-data", id=tid))["data"]:
            pass


async def test_canvas_attach_the_page_and_a_guest_with_control_type_into_the_same_shell(
    serving: ServerProcess, kept: Path
) -> None:
    host, _ = await connect(serving)
    screen = await open_terminal(host, "t1", cols=100, rows=30)
    await host.send({"t": "term-input", "id": "t1", "data": "echo ready-$((1+1))\r"})
    await screen.until("ready-2")
    await host.send({"t": "room-set-access", "access": "edit"})
    guest = await Guest(serving.room_link, name="Ada", color="#3366aa").connect()
    await guest.expect("access")
    await host.send({"t": "terminal-grant", "guestId": guest.guest_id, "terminalId": "t1", "granted": True})
    await guest.expect("access", grantedTerminals=["t1"])
    await guest.send({"t": "term-open", "id": "t1"})
    attached = AttachedTerminal(kept, "Terminal 1")
    try:
        await attached.until("ready-2")
        attached.type("echo from-attach-$((3+4))\r")
        await screen.until("from-attach-7")
        await guest_output(guest, "t1", "from-attach-7")
        await host.send({"t": "term-input", "id": "t1", "data": "echo from-page-$((5+6))\r"})
        await attached.until("from-page-11")
        await guest_output(guest, "t1", "from-page-11")
        await guest.send({"t": "term-input", "id": "t1", "data": "echo from-guest-$((6+7))\r"})
        await attached.until("from-guest-13")
        await screen.until("from-guest-13")
        # The page names who typed, in their colour (the frame came among the output).
        typists = [(f["name"], f["color"]) for f in host.seen if f["t"] == "term-typist" and f["id"] == "t1"]
        assert typists[0] == ("Host", "#495057") and typists[-1] == ("Ada", "#3366aa")
    finally:
        attached.close()
        await guest.close()
    await host.close()


async def test_canvas_attach_says_what_is_wrong(kept: Path) -> None:
    never = canvas("attach", "--dir", str(kept))
    assert never.returncode == 2 and "canvas has not served" in never.stderr
    (kept / ".canvas").mkdir(mode=0o700)
    refused = canvas("attach", "--dir", str(kept))
    assert refused.returncode == 2 and "no shell is running" in refused.stderr
    without = canvas("attach", "--dir", str(kept), env={"CANVAS_NO_TMUX": "1"})
    assert without.returncode == 2 and "tmux is not installed" in without.stderr


async def test_canvas_stop_ends_the_server_and_with_terminals_the_shells(kept: Path) -> None:
    server = ServerProcess(kept, env=WITH_TMUX).start()
    host, _ = await connect(server)
    screen = await open_terminal(host, "t1")
    await host.send({"t": "term-input", "id": "t1", "data": "echo up\r"})
    await screen.until("up")
    stopped = canvas("stop", "--terminals", "--dir", str(kept))
    assert stopped.returncode == 0, stopped.stderr
    assert "every shell of the room ended" in stopped.stdout and "stopped serving" in stopped.stdout
    assert server.proc is not None and server.proc.wait(timeout=15) == 0
    server.stop()
    assert tmux(kept, "list-sessions").returncode != 0
    await host.close()


def jobs_of(tag: str) -> dict[str, str]:
    """A plain background job, a `nohup` one and a `setsid` one, each a `sleep` whose command
    line is the test's own; and the shell line that starts them and says when all three run."""
    commands = {kind: f"sleep 4242.{os.getpid()}{tag}{n}" for n, kind in enumerate(("plain", "nohup", "setsid"))}
    started = " ".join(f"'{c}'" for c in commands.values())
    line = (
        f"{commands['plain']} & nohup {commands['nohup']} >/dev/null 2>&1 & setsid {commands['setsid']} & "
        f'for c in {started}; do until pgrep -xf "$c" >/dev/null; do sleep 0.01; done; done; echo jobs-$((2+2))-run\r'
    )
    return {**commands, "line": line}


def running(command: str) -> list[int]:
    """The processes whose command line is exactly `command`, from /proc."""
    wanted = command.replace(" ", "\0").encode() + b"\0"
    found = []
    for name in os.listdir("/proc"):
        with contextlib.suppress(OSError):
            if name.isdigit() and Path(f"/proc/{name}/cmdline").read_bytes() == wanted:
                found.append(int(name))
    return found


async def start_jobs(host: HostClient, tid: str, tag: str) -> tuple[Screen, dict[str, str]]:
    screen = await open_terminal(host, tid)
    jobs = jobs_of(tag)
    await host.send({"t": "term-input", "id": tid, "data": jobs["line"]})
    await screen.until("jobs-4-run")
    return screen, jobs


def assert_ended(jobs: dict[str, str]) -> None:
    left = {kind: running(command) for kind, command in jobs.items() if kind != "line"}
    assert not any(left.values()), f"jobs outlived their terminal: {left}"


async def test_canvas_stop_with_terminals_ends_what_the_shells_started(kept: Path) -> None:
    server = ServerProcess(kept, env=WITH_TMUX).start()
    host, _ = await connect(server)
    try:
        _, first = await start_jobs(host, "t1", "1")
        _, second = await start_jobs(host, "t2", "2")
        stopped = canvas("stop", "--terminals", "--dir", str(kept))
        assert stopped.returncode == 0, stopped.stderr
        assert_ended(first)
        assert_ended(second)
    finally:
        await host.close()
        server.stop()


async def test_a_terminal_ended_from_the_board_ends_what_its_shell_started(serving: ServerProcess, kept: Path) -> None:
    host, _ = await connect(serving)
    screen, ended = await start_jobs(host, "t1", "1")
    _, kept_on = await start_jobs(host, "t2", "2")
    await host.send({"t": "term-close", "id": "t1"})
    while screen.exit_code is None:
        await screen.pump(10)
    assert_ended(ended)
    assert all(running(command) for kind, command in kept_on.items() if kind != "line"), "another terminal's jobs ended"
    await host.close()


async def test_without_tmux_canvas_stop_with_terminals_stops_the_server_and_what_its_shells_started(
    project: Path,
) -> None:
    without = {"CANVAS_NO_TMUX": "1"}
    server = ServerProcess(project, env={**WITH_TMUX, **without}).start()
    host, _ = await connect(server)
    watches: dict[int, str] = {}
    try:
        _, jobs = await start_jobs(host, "t1", "9")
        for kind, command in jobs.items():
            if kind != "line":
                (pid,) = running(command)
                watches[os.pidfd_open(pid)] = kind
        stopped = canvas("stop", "--terminals", "--dir", str(project), env=without)
        assert stopped.returncode == 0, stopped.stderr
        assert "stopped serving" in stopped.stdout
        assert server.proc is not None and server.proc.wait(timeout=15) == 0
        # Each job's end, as the kernel tells it (its pidfd turns readable), not a poll.
        left = set(watches)
        while left:
            ended = select.select(list(left), [], [], 10)[0]
            assert ended, f"jobs outlived the server: {sorted(watches[watch] for watch in left)}"
            left -= set(ended)
    finally:
        for watch in watches:
            os.close(watch)
        await host.close()
        server.stop()


async def test_without_tmux_terminals_work_and_the_board_says_they_end_with_canvas(project: Path) -> None:
    bare = project.parent / "bin"
    bare.mkdir()
    server = ServerProcess(project, env={"CANVAS_NO_TMUX": "", "PATH": str(bare), "SHELL": "/bin/bash"}).start()
    try:
        host, _ = await connect(server)
        screen = await open_terminal(host, "t1")
        listing = await host.expect("terminals")
        assert listing["outliveRestart"] is False
        await host.send({"t": "term-input", "id": "t1", "data": "echo bare-$((2+3))\r"})
        await screen.until("bare-5")
        await host.close()
    finally:
        server.stop()
    assert not (project / ".canvas" / "tmux.sock").exists()
    assert not (project / ".canvas" / "terminals.json").exists()


def test_ci_installs_tmux() -> None:
    run = (Path(__file__).parents[1] / ".ci" / "run").read_text()
    assert re.search(r"command -v tmux .*\|\| missing\+=\(tmux\)", run)


async def test_sessions_and_records_no_terminal_can_be_made_of_are_left_alone(kept: Path) -> None:
    (kept / ".canvas").mkdir(mode=0o700)
    long_name = "n" * 300
    (kept / ".canvas" / "terminals.json").write_text(
        '[{"id": "../x", "name": "bad", "running": true},'
        f' {{"id": "ok", "name": "{long_name}", "running": false, "exit_code": 2}}]'
    )
    # Someone's own session on the room's socket, under a name no terminal id can have.
    assert tmux(kept, "-f", "/dev/null", "new-session", "-d", "-s", "my work").returncode == 0
    server = ServerProcess(kept, env=WITH_TMUX).start()
    try:
        host, listed = await connect(server)
        assert list(listed) == ["ok"] and listed["ok"]["name"] == "n" * 100 and listed["ok"]["exitCode"] == 2
        await host.close()
    finally:
        server.stop()
    assert tmux(kept, "has-session", "-t", "=my work").returncode == 0


async def test_a_shell_whose_watch_tmux_dropped_is_watched_again(serving: ServerProcess, kept: Path) -> None:
    host, _ = await connect(serving)
    screen = await open_terminal(host, "t1")
    await host.send({"t": "term-input", "id": "t1", "data": "echo first-$((1+1))\r"})
    await screen.until("first-2")
    # Someone detaches every client of the session, canvas's own among them; what is typed at once,
    # while canvas watches the shell again, reaches it.
    assert tmux(kept, "detach-client", "-s", "=t1").returncode == 0
    await host.send({"t": "term-input", "id": "t1", "data": "echo second-$((2+2))\r"})
    await screen.until("second-4")
    assert screen.exit_code is None
    listing = [f for f in host.seen if f["t"] == "terminals"][-1]
    assert listing["terminals"][0]["running"]
    await host.close()


async def test_every_terminal_opened_in_turn_shows_its_first_line(kept: Path, tmp_path: Path) -> None:
    """tmux may read canvas's first commands for a new terminal before its session exists, the more
    likely the busier the machine (a shell whose start-up runs programs, as a version manager's does):
    canvas waits for its client to attach, or the terminal would show nothing (3 runs in 4 had one)."""
    home = tmp_path / "home"
    home.mkdir()
    (home / ".bashrc").write_text("for i in $(seq 60); do /bin/true; done\n")
    server = ServerProcess(kept, env={**WITH_TMUX, "HOME": str(home)}).start()
    try:
        host, _ = await connect(server)
        await echo_in_each(host, "first", tuple(f"t{n}" for n in range(32)))
        await host.close()
    finally:
        server.stop()
    assert "tmux refused" not in "".join(server.output)


async def test_a_refused_command_answers_the_rest_of_its_line_and_later_ones_stay_in_step(kept: Path) -> None:
    """tmux drops the rest of a command line after a command fails, and answers none of them."""
    terminal = TmuxTerminal(room_server(kept), "t1", kept, shell="/bin/bash")
    await terminal.start()
    try:
        refused, dropped = terminal._commands("capture-pane -t =nosuch: -p", "display-message -p y")
        assert await asyncio.wait_for(asyncio.gather(refused, dropped), 10) == [[], []]
        (after,) = terminal._commands("display-message -p after")
        assert await asyncio.wait_for(after, 10) == [b"after"]
    finally:
        await terminal.close()


async def test_what_is_typed_before_canvas_attaches_reaches_the_shell(kept: Path) -> None:
    async with watched(room_server(kept), kept, typed="echo ear''ly-$((3+4))\r") as printed:
        await printed.until("early-7")


async def test_a_flood_of_output_comes_whole_and_in_order(kept: Path) -> None:
    flood = "stty -echo; seq 1 200000; echo flood-end-$((1+1))\r"
    async with watched(room_server(kept), kept, typed=flood, cols=120, rows=40) as printed:
        await printed.until("flood-end-2", timeout=60)
    numbers = [int(n) for n in re.findall(r"(?<=[\r\n])(\d+)(?=\r\n)", printed.text)]
    assert numbers == list(range(1, 200_001)), "lines were lost, doubled or reordered on the way"


@pytest.mark.parametrize("stop", ["SIGTERM", "kill -9"])
async def test_output_flowing_through_a_restart_is_neither_lost_nor_doubled(kept: Path, stop: str) -> None:
    server = ServerProcess(kept, env=WITH_TMUX).start()
    host, _ = await connect(server)
    screen = await open_terminal(host, "t1", cols=100, rows=30)
    flag = kept / "stop-rows"
    # Rows keep coming while canvas stops, while it starts again and pipes the pane anew, and after.
    loop = f"i=0; while [ ! -e {flag} ]; do i=$((i+1)); echo row$i; sleep 0.01; done; echo rows-end-$i"
    await host.send({"t": "term-input", "id": "t1", "data": f"{loop}\r"})
    await screen.until(r"\brow20\b")
    await host.close()
    if stop == "SIGTERM":
        sigterm(server)
    else:
        server.kill9()

    again = ServerProcess(kept, env=WITH_TMUX).start()
    try:
        host, _ = await connect(again)
        screen = await open_terminal(host, "t1")
        last_replayed = int(re.findall(r"\brow(\d+)\b", (await screen.until(r"\brow\d+\b")).string)[-1])
        await screen.until(rf"\brow{last_replayed + 30}\b")
        flag.touch()
        end = int((await screen.until(r"rows-end-(\d+)")).group(1))
        rows = [int(n) for n in re.findall(r"\brow(\d+)\b", screen.text)]
        assert rows == list(range(1, end + 1)), "rows were lost or doubled where the replay meets the stream"
        await host.close()
    finally:
        again.stop()


async def test_opening_a_shell_that_runs_already_shows_what_it_printed(kept: Path) -> None:
    server = room_server(kept)
    # A shell canvas did not start prints before canvas attaches to it (tmux's own client inside it
    # signals once it has).
    started = tmux(kept, "new-session", "-d", "-s", "t1", "echo printed-$((6*7)); tmux wait-for -S printed; exec bash")
    assert started.returncode == 0
    assert tmux(kept, "wait-for", "printed").returncode == 0
    async with watched(server, kept) as printed:
        await printed.until("printed-42")


async def test_a_folder_whose_name_tmux_or_a_shell_would_expand_still_gets_the_output(tmp_path: Path) -> None:
    project = tmp_path / """a b#{pane_id}%Y$HOME"q'\\z"""
    server = room_server(project)
    try:
        async with watched(server, project, typed="echo quoted-$((6*7))\r") as printed:
            await printed.until("quoted-42")
    finally:
        await server.kill()
    assert not server.output_fifo("t1").exists(), "an ended terminal left its FIFO"
