"""The agent's file system is the shared set seen from the agent: the demo agent's `/read` and
`/write` (ACP fs/read_text_file, fs/write_text_file) through a real server, with a real git
folder, real secrets and a link pointing out."""

from __future__ import annotations

import json
import stat
import subprocess
from pathlib import Path
from typing import Any

import pytest

from canvasrelay.client.guest import Guest
from tests.agent_support import TURN_TIMEOUT, audit, config, create, events_until, prompt, said, serving, store_dump
from tests.support import HostClient
from tests.test_shared_set import git_children

pytestmark = pytest.mark.timeout(300)

SECRETS = {
    ".env": "API_KEY=sk-env-secret-1234",
    "src/app.py": "print('source secret 5678')",
}
OUTSIDE = "outside secret 9012"
PARENT = "parent secret 3456"

CONFIG = """
[[permissions]]
permission = "read"
pattern = "src/**"
action = "deny"
reason = "src is off limits"

[[permissions]]
permission = "edit"
pattern = "**"
action = "allow"

[agents.noisy]
command = "sh"
args = ["-c", "printf 'noisy-marker \\\\033[31mtoken=abc\\\\033[0m\\\\n' >&2; exit 3"]
"""

REFUSED_READS = {
    ".canvas/secrets.json": "never shared: inside .canvas/",
    ".env": "never shared: .env looks like a secret",
    ".git/config": "never shared: inside .git/",
    "link.txt": "a link pointing outside the project folder",
    "../x": "outside the project folder",
    "src/app.py": "src is off limits",
}
REFUSED_WRITES = {
    ".canvas/evil.txt": "never shared: inside .canvas/",
    ".env": "never shared: .env looks like a secret",
    ".git/hooks/pre-commit": "never shared: inside .git/",
    "link.txt": "a link pointing outside the project folder",
    "../x": "outside the project folder",
}


RUNS_LATER = {".canvas/evil.txt", ".git/hooks/pre-commit"}


async def allowed_by_host(host: HostClient, session_id: str, text: str) -> list[dict[str, Any]]:
    """Prompt, answer the permission the host is asked with "once", and wait for the turn's end."""
    await host.send({"t": "agent-prompt", "sessionId": session_id, "text": text})
    asked = (await events_until(host, session_id, "permission"))[-1]
    await host.send(
        {"t": "agent-permission", "sessionId": session_id, "requestId": asked["requestId"], "answer": "once"}
    )
    return await events_until(host, session_id, "turn-end")


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "project"
    root.mkdir()
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    (root / "src").mkdir()
    for name, text in SECRETS.items():
        (root / name).write_text(text)
    (root / "notes.txt").write_text("plain notes")
    (tmp_path / "outside").mkdir()
    (tmp_path / "outside" / "secret.txt").write_text(OUTSIDE)
    (tmp_path / "x").write_text(PARENT)
    (root / "link.txt").symlink_to(tmp_path / "outside" / "secret.txt")
    config(root, CONFIG)
    return root


async def test_reads_and_writes_outside_the_shared_set_are_refused(project: Path, tmp_path: Path) -> None:
    async with serving(project) as served:
        host = await HostClient.connect(served)
        token = served.token
        key = json.loads((project / ".canvas" / "secrets.json").read_text())
        session_id = await create(host)
        for path, reason in REFUSED_READS.items():
            reply = said(await prompt(host, session_id, f"/read {path}"))
            assert f"canvas refused to read {path}: {reason}" in reply, reply
        assert "plain notes" in said(await prompt(host, session_id, "/read notes.txt"))
        for path, reason in REFUSED_WRITES.items():
            if path in RUNS_LATER:
                # The rule allows every edit, but not of what runs later: the host is asked.
                reply = said(await allowed_by_host(host, session_id, f"/write {path} overwritten"))
            else:
                reply = said(await prompt(host, session_id, f"/write {path} overwritten"))
            assert f"canvas refused to write {path}: {reason}" in reply, reply
        await prompt(host, session_id, "/write new/folder/ok.txt fine")
        await host.close()

    assert (project / "new" / "folder" / "ok.txt").read_text() == "fine"
    # The git that answered which files are shared ended with the server.
    assert not git_children(project)
    assert (tmp_path / "x").read_text() == PARENT
    assert (tmp_path / "outside" / "secret.txt").read_text() == OUTSIDE
    assert not (project / ".canvas" / "evil.txt").exists()
    assert (project / ".env").read_text() == SECRETS[".env"]

    seen = json.dumps(host.seen) + store_dump(project)
    private_key = key["hostPrivateKey"].splitlines()[1]
    for secret in [*SECRETS.values(), OUTSIDE, PARENT, token, private_key]:
        assert secret not in seen

    attempts = [e for e in audit(project) if e["action"].startswith("agent-fs-")]
    refused = {
        (e["action"], e["detail"]["path"], e["detail"]["reason"])
        for e in attempts
        if e["detail"]["outcome"] == "refused"
    }
    for path, reason in REFUSED_READS.items():
        assert ("agent-fs-read", str(project / path), reason) in refused
    for path, reason in REFUSED_WRITES.items():
        assert ("agent-fs-write", str(project / path), reason) in refused
    done = {(e["action"], e["detail"]["path"]) for e in attempts if e["detail"]["outcome"] == "done"}
    assert done == {
        ("agent-fs-read", str(project / "notes.txt")),
        ("agent-fs-write", str(project / "new/folder/ok.txt")),
    }


async def test_agent_stderr_reaches_the_host_alone(project: Path) -> None:
    async with serving(project) as served:
        host = await HostClient.connect(served)
        guest = await Guest(served.room_link, name="viewer", color="#3366aa").connect()
        await guest.expect("access")
        session_id = await create(host, "noisy", options=False)
        end = (await events_until(host, session_id, "turn-end"))[-1]
        assert "exited with code 3" in end["error"]
        assert "noisy-marker" not in end["error"]
        [told] = [f for f in host.seen if f["t"] == "error" and f.get("ref") == "agent-stderr"]
        assert "noisy-marker token=abc" in told["message"]
        assert "\x1b" not in told["message"]
        while (frame := await guest.expect("agent-event", timeout=TURN_TIMEOUT))["event"]["kind"] != "turn-end":
            pass
        assert "exited with code 3" in frame["event"]["error"]
        # a ping after everything the server sent so far: nothing of stderr came before it
        await guest.send({"t": "ping"})
        await guest.expect("pong")
        assert "noisy-marker" not in json.dumps(guest.seen)
        await guest.close()
        await host.close()
    log = project / ".canvas" / "agent-stderr.log"
    assert stat.S_IMODE(log.stat().st_mode) == 0o600
    assert f"{session_id} noisy: noisy-marker token=abc" in log.read_text()
