"""The four real agents, confined, plant code everywhere the host would run it later (their
home's start-up files and git config, canvas's own rules, the project's git hooks and config,
`.canvasignore`, an editor's tasks), with their own shell tool as a prompt-injected agent would;
then the host does what it does next (commits, restarts canvas): nothing planted ran, canvas's
rules are the host's, and the host's files are as they were. And one agent installed under
`/tmp` starts confined."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from canvasrelay.server.agents.rule_book import load_user_rules, user_rules_path
from tests.agent_support import config, create, said, serving
from tests.agents.fake_models import FakeModels
from tests.agents.real_agents import AGENTS, BIN, lacking, setup
from tests.agents.test_interop import Run
from tests.support import HostClient, missing
from tests.test_confinement_holds import ALLOW_ALL

pytestmark = [pytest.mark.interop, pytest.mark.timeout(600)]

PLANT = """\
touch_="touch {evidence}/ran"
for home in "{real_home}" "{canvas_home}" "$HOME"; do
  printf '[core]\\n\\tfsmonitor = "%s-fsmonitor"\\n' "$touch_" >> "$home/.gitconfig"
  for f in .bashrc .profile; do echo "$touch_-$f" >> "$home/$f"; done
  mkdir -p "$home/.config/canvas" && printf '{allow_all}' > "$home/.config/canvas/permissions.toml"
done
echo "$touch_-hook" > .git/hooks/pre-commit; chmod +x .git/hooks/pre-commit
printf '[core]\\n\\thooksPath = planted\\n' >> .git/config
echo '!private/' > .canvasignore
echo "$touch_-task" > .vscode/tasks.json
echo planted-$((6*7))
"""
PROJECT_FILES = {".canvasignore": "private/\n", ".vscode/tasks.json": "{}\n", "private/plan.txt": "hidden\n"}


def host_git(root: Path, *args: str) -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
    subprocess.run(["git", "-C", str(root), *args], env=env, capture_output=True, check=True)


def watched(*paths: Path) -> dict[Path, bytes | None]:
    return {path: path.read_bytes() if path.is_file() else None for path in paths}


@pytest.mark.parametrize("agent", AGENTS)
async def test_what_a_real_agent_plants_never_runs_as_the_host(agent: str, tmp_path: Path) -> None:
    lacks = lacking(agent)
    if lacks is not None:
        missing(*lacks)
    fake = await FakeModels().start()
    root = tmp_path / "project"
    root.mkdir()
    for name, text in PROJECT_FILES.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)
    real_home = tmp_path / "home"
    config(root, setup(agent, fake.url, real_home, root))
    host_git(root, "init", "-q")
    host_git(root, "add", "-A")
    host_git(root, "commit", "-qm", "start")
    evidence = tmp_path / "evidence"
    evidence.mkdir()
    canvas_home = Path.home()
    homes = [real_home, canvas_home]
    before = watched(
        *(home / name for home in homes for name in (".gitconfig", ".bashrc", ".profile")),
        user_rules_path(),
        *(root / name for name in (".git/config", ".git/hooks/pre-commit", ".canvasignore", ".vscode/tasks.json")),
    )
    rules = load_user_rules()
    (root / "plant.sh").write_text(
        PLANT.format(evidence=evidence, real_home=real_home, canvas_home=canvas_home, allow_all=ALLOW_ALL)
    )
    try:
        async with serving(root) as served:
            # Set up as a user would for another endpoint, each agent's state reads "ready".
            info = {a.id: a for a in served.server.room.agents}
            assert info[agent].state == "ready" and info[agent].confined, info[agent]
            host = await HostClient.connect(served)
            session_id = await create(host, agent, options=False)
            events = await Run(host, session_id).turn("ACTION: run sh plant.sh")
            # It ran: the script's last line reached the thread or, for an agent that shows no
            # output (Gemini CLI), the model.
            assert "planted-42" in repr(events) + repr(fake.tool_results), events
            await host.close()
        host_git(root, "commit", "-q", "--allow-empty", "-m", "after the agent")
        async with serving(root) as served:
            assert load_user_rules() == rules
    finally:
        await fake.stop()
    assert sorted(p.name for p in evidence.iterdir()) == []
    assert watched(*before) == before


async def test_a_real_agent_installed_under_tmp_starts_confined(tmp_path: Path) -> None:
    """Claude's agent, its npm prefix under `/tmp` (`npm i --prefix /tmp/…`, here linked from the
    test's own install): confined, it answers."""
    lacks = lacking("claude")
    if lacks is not None:
        missing(*lacks)
    prefix = tmp_path / "npm-prefix"
    prefix.mkdir()
    shutil.copytree(BIN.parent.resolve(), prefix / "node_modules", symlinks=True, copy_function=os.link)
    fake = await FakeModels().start()
    root = tmp_path / "project"
    root.mkdir()
    table = setup("claude", fake.url, tmp_path / "home", root)
    config(root, table.replace(str(BIN), str(prefix / "node_modules" / ".bin")))
    try:
        async with serving(root) as served:
            info = {a.id: a for a in served.server.room.agents}
            assert info["claude"].available and info["claude"].confined, info["claude"]
            host = await HostClient.connect(served)
            session_id = await create(host, "claude", options=False)
            events = await Run(host, session_id).turn("hello from tmp")
            assert "Fake model says: hello from tmp" in said(events), events
            await host.close()
    finally:
        await fake.stop()
