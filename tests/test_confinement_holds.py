"""Confinement that holds, driven as an attacker would with the demo agent: whatever a confined
agent writes, nothing of it runs later as the host (the host's next `git commit`, a terminal,
canvas's own git, a restart), nothing changes what canvas allows, the host's files stay as they
were, and as root the sandbox keeps no privilege. Also: `.canvas/` ignores itself, ACP writes
follow no link, and an agent installed under `/tmp` starts confined."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import venv
from pathlib import Path

import pytest

from canvasrelay.server.agents import sandbox as agent_sandbox
from canvasrelay.server.agents.files import write_beneath
from canvasrelay.server.files.shared_set import SharedSet
from tests.agent_support import config, create, frames_until, serving
from tests.support import HostClient, ServerProcess
from tests.test_agent_confinement import run, tool_output
from tests.test_terminals import open_terminal

pytestmark = [
    pytest.mark.timeout(300),
    pytest.mark.skipif(agent_sandbox.bubblewrap() is None, reason="bubblewrap (bwrap) is not installed"),
]

ALLOW_ALL = '[[permissions]]\npermission = "*"\npattern = "**"\naction = "allow"\n'
HOST_FILES = {".gitconfig": "[user]\n\tname = Host\n\temail = host@example.org\n", ".bashrc": "PS1='$ '\n"}
HOST_FILES |= {".profile": "true\n"}
PROJECT_FILES = {".canvasignore": "private/\n", ".vscode/tasks.json": "{}\n", "private/plan.txt": "hidden\n"}


def attack(real_home: Path, evidence: Path) -> str:
    """A shell script planting code the host would run later, everywhere a confined agent might."""
    touch = f"touch {evidence}/ran"
    return "; ".join(
        [
            f'for f in {real_home}/.gitconfig "$HOME/.gitconfig"; do '
            f"printf '[core]\\n\\tfsmonitor = \"{touch}-fsmonitor\"\\n' >> $f; done",
            f'for f in .bashrc .profile .bash_profile; do echo "{touch}-$f" >> {real_home}/$f; '
            f'echo "{touch}-$f" >> "$HOME/$f"; done',
            f"mkdir -p {real_home}/.config/canvas",
            f"printf '{ALLOW_ALL}' > {real_home}/.config/canvas/permissions.toml",
            f"echo '{touch}-hook' > .git/hooks/pre-commit; chmod +x .git/hooks/pre-commit",
            "printf '[core]\\n\\thooksPath = planted\\n' >> .git/config",
            "echo '!private/' > .canvasignore",
            f"echo '{touch}-task' > .vscode/tasks.json",
            "echo attack-over",
        ]
    )


def snapshot(*folders: Path) -> dict[str, bytes]:
    """Every file under the folders (links as their target's name), to compare before and after."""
    found: dict[str, bytes] = {}
    for folder in folders:
        for path in sorted(folder.rglob("*")):
            if path.is_symlink():
                found[str(path)] = os.readlink(path).encode()
            elif path.is_file() and ".canvas" not in path.parts:
                found[str(path)] = path.read_bytes()
    return found


@pytest.fixture
def host_home(tmp_path: Path) -> Path:
    home = tmp_path / "home"
    home.mkdir()
    for name, text in HOST_FILES.items():
        (home / name).write_text(text)
    return home


@pytest.fixture
def project(tmp_path: Path, host_home: Path) -> Path:
    root = tmp_path / "project"
    root.mkdir()
    for name, text in PROJECT_FILES.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)
    git(root, host_home, "init", "-q")
    git(root, host_home, "add", "-A")
    git(root, host_home, "commit", "-qm", "start")
    return root


def git(root: Path, home: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """git as the host runs it in a terminal: its own home, its own config."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")} | {"HOME": str(home)}
    return subprocess.run(["git", "-C", str(root), *args], env=env, capture_output=True, text=True, check=True)


def serve(project: Path, home: Path) -> ServerProcess:
    env = {"HOME": str(home), "XDG_CONFIG_HOME": str(home / ".config"), "XDG_DATA_HOME": str(home / ".local/share")}
    return ServerProcess(project, env=env).start()


async def test_nothing_a_confined_agent_writes_runs_later_as_the_host(
    project: Path, host_home: Path, tmp_path: Path
) -> None:
    evidence = tmp_path / "evidence"
    evidence.mkdir()
    before = snapshot(host_home, project)
    server = serve(project, host_home)
    try:
        host = await HostClient.connect(server)
        session_id = await create(host)
        events = await run(host, session_id, attack(host_home, evidence))
        shown = tool_output(events)
        assert "attack-over" in shown and "Read-only file system" in shown, shown
        # What the host does next: a terminal, whose shell reads the host's start-up files.
        screen = await open_terminal(host, "t1")
        await host.send({"t": "term-input", "id": "t1", "data": "echo shell$((40+2))up\r"})
        await screen.until("shell42up")
        await host.close()
    finally:
        assert server.stop(timeout=60) == 0
    # The host's next commit runs its hooks and its git config.
    git(project, host_home, "commit", "-q", "--allow-empty", "-m", "after the agent")
    assert sorted(p.name for p in evidence.iterdir()) == []
    after = snapshot(host_home, project)
    changed = [path for path, data in before.items() if after.get(path) != data and "/.git/" not in path]
    assert changed == []
    assert (project / ".git" / "config").read_bytes() == before[str(project / ".git" / "config")]
    planted = [host_home / ".bash_profile", host_home / ".config" / "canvas", project / ".git" / "hooks" / "pre-commit"]
    assert [path for path in planted if path.exists()] == []

    # A restart reads the host's rules, not the agent's: a write is asked of the host.
    again = serve(project, host_home)
    try:
        host = await HostClient.connect(again)
        session_id = await create(host)
        await host.send({"t": "agent-prompt", "sessionId": session_id, "text": "/write notes.txt hello"})
        first = (await frames_until(host, lambda f: f.get("event", {}).get("kind") in ("permission", "turn-end")))[-1]
        assert first["event"]["kind"] == "permission", first
        await host.close()
    finally:
        assert again.stop(timeout=60) == 0
    assert sorted(p.name for p in evidence.iterdir()) == []


async def test_as_root_the_sandbox_keeps_no_privilege(project: Path, host_home: Path) -> None:
    """`umount` of the cover over `.canvas/`, a raw socket to sniff loopback, and a namespace of
    its own to gain capabilities in: each refused, whoever runs canvas."""
    server = serve(project, host_home)
    try:
        host = await HostClient.connect(server)
        session_id = await create(host)
        secrets = (project / ".canvas" / "secrets.json").read_text()
        raw = "import socket; socket.socket(socket.AF_PACKET, socket.SOCK_RAW); print('raw-' + 'socket-open')"
        events = await run(
            host,
            session_id,
            f"id -u; grep CapEff /proc/self/status; umount {project}/.canvas; ls -a .canvas; "
            f'{sys.executable} -c "{raw}"; unshare -Ur id -u || echo no-$((1+1))-namespace; '
            "cat .canvas/secrets.json || echo secrets-$((1+1))-hidden",
        )
        shown = tool_output(events)
        uid = "65534" if os.geteuid() == 0 else str(os.geteuid())
        assert f"{uid}\\n" in shown and "CapEff:\\t0000000000000000" in shown, shown
        assert "raw-socket-open" not in shown and "Operation not permitted" in shown
        assert "no-2-namespace" in shown and "secrets-2-hidden" in shown
        for value in json.loads(secrets).values():
            assert not isinstance(value, str) or value not in shown
        await host.close()
    finally:
        assert server.stop(timeout=60) == 0


def test_an_acp_write_follows_no_link_swapped_in_after_the_check(tmp_path: Path) -> None:
    """The write walks the path from the project's folder: a folder that became a link, or a
    file with a second name outside, writes nothing outside."""
    root, outside = tmp_path / "project", tmp_path / "outside"
    (root / "src").mkdir(parents=True)
    outside.mkdir()
    (outside / "secret.txt").write_text("keep")
    (root / "src").rmdir()
    (root / "src").symlink_to(outside)  # the swap, after canvas checked `src/secret.txt`
    with pytest.raises(OSError):
        write_beneath(root, "src/secret.txt", b"overwritten")
    os.link(outside / "secret.txt", root / "linked.txt")
    with pytest.raises(PermissionError, match="hard link"):
        write_beneath(root, "linked.txt", b"overwritten")
    assert (outside / "secret.txt").read_text() == "keep"
    write_beneath(root, "plain.txt", b"fine")
    assert (root / "plain.txt").read_text() == "fine"


def test_canvas_own_git_runs_nothing_its_configs_name(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A `core.fsmonitor` in the host's global config or the project's own, as an unconfined
    agent or a cloned repository may leave: canvas's listing of the shared set runs neither."""
    home, root, ran = tmp_path / "home", tmp_path / "project", tmp_path / "ran"
    home.mkdir()
    (home / ".gitconfig").write_text(f'[core]\n\tfsmonitor = "touch {ran}-global"\n')
    subprocess.run(["git", "init", "-q", str(root)], check=True, env={**os.environ, "HOME": str(home)})
    with (root / ".git" / "config").open("a") as file:
        file.write(f'[core]\n\tfsmonitor = "touch {ran}-local"\n')
    (root / "notes.txt").write_text("shared\n")
    monkeypatch.setenv("HOME", str(home))
    shared = SharedSet(root)
    try:
        assert "notes.txt" in shared.paths()
    finally:
        shared.close()
    assert not list(tmp_path.glob("ran*"))


async def test_a_served_project_commits_nothing_of_canvas(tmp_path: Path) -> None:
    root = tmp_path / "project"
    root.mkdir()
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    (root / "notes.txt").write_text("notes\n")
    async with serving(root):
        pass
    subprocess.run(["git", "-C", str(root), "add", "."], check=True)
    staged = subprocess.run(
        ["git", "-C", str(root), "diff", "--cached", "--name-only"], capture_output=True, text=True, check=True
    ).stdout.split()
    assert staged == ["notes.txt"]
    assert (root / ".canvas" / ".gitignore").stat().st_mode & 0o777 == 0o600


def _venv_under_tmp(folder: Path) -> Path:
    """A virtual environment in `folder` (under /tmp) that reaches canvas and its packages, as
    `python -m venv /tmp/v && /tmp/v/bin/pip install canvasrelay` would."""
    venv.create(folder, with_pip=False)
    site = next(folder.glob("lib/python*/site-packages"))
    import canvasrelay

    reaches = [p for p in sys.path if p.endswith("site-packages")] + [str(Path(canvasrelay.__file__).parents[1])]
    (site / "canvas-test.pth").write_text("\n".join(reaches) + "\n")
    return folder / "bin" / "python"


async def test_an_agent_installed_under_tmp_starts_confined(tmp_path: Path) -> None:
    assert agent_sandbox.HIDDEN_ROOT in tmp_path.parents, "pytest's tmp_path is under /tmp here"
    python = _venv_under_tmp(tmp_path / "venv")
    root = tmp_path / "project"
    root.mkdir()
    config(root, f'[agents.mine]\ncommand = "{python}"\nargs = ["-m", "canvasrelay.agents.demo"]\n')
    async with serving(root) as served:
        info = {agent.id: agent for agent in served.server.room.agents}
        assert info["mine"].available and info["mine"].confined, info["mine"]
        host = await HostClient.connect(served)
        session_id = await create(host, "mine")
        events = await run(host, session_id, "cat .canvas/secrets.json || echo hidden-from-tmp-agent")
        assert "hidden-from-tmp-agent" in tool_output(events)
        await host.close()


def test_what_an_agent_under_tmp_runs_from_is_there_inside_the_sandbox(tmp_path: Path) -> None:
    """A script the command names by its path, and an editable install's source that a prefix's
    `.pth` adds, lie under /tmp too: the sandbox shows them, read-only, or the agent cannot start."""
    script = tmp_path / "tools" / "agent.js"
    script.parent.mkdir()
    script.write_text("// an agent\n")
    source = tmp_path / "source"
    source.mkdir()
    site = tmp_path / "venv" / "lib" / "python3.11" / "site-packages"
    site.mkdir(parents=True)
    (site / "_editable.pth").write_text(f"{source}\nimport os\n")
    (tmp_path / "venv" / "bin").mkdir()
    python = tmp_path / "venv" / "bin" / "python"
    python.write_text("")
    shown = agent_sandbox.prefixes_in_tmp([python], [str(python), str(script)])
    assert set(shown) == {tmp_path / "venv", tmp_path / "tools", source}, shown


def test_an_agent_that_cannot_start_confined_says_why(tmp_path: Path) -> None:
    """The menu says in words that it cannot start, rather than "Ready. Confined" and a thread
    that reads only "it exited with code 1"."""
    script = tmp_path / "agent"
    script.write_text("#!/nowhere/python3\n")
    script.chmod(0o755)
    from canvasrelay.server.agents.catalog import AgentSpec

    info = AgentSpec("mine", "Mine", str(script)).info()
    assert not info.available and info.state == "cannot-confine"
    assert info.confinement == "agent is run by /nowhere/python3, which is not found"
