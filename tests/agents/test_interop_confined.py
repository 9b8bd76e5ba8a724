"""The four real agents confined: whatever tool an agent reads with, the room's secrets reach
neither the thread nor the model; a read rule decides for agents that ask; two sessions answer at
once; a crash and a model error read in words. (Apart from the main interop module, so a run on
several workers starts these agents beside those.)"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tests.agent_support import create, events_until, said, serving
from tests.agents.fake_models import FakeModels
from tests.agents.real_agents import AGENTS, lacking
from tests.agents.test_interop import Run, project_for, resolved, turns_at_once
from tests.support import HostClient, missing

pytestmark = [pytest.mark.interop, pytest.mark.timeout(1200)]


ENV_SECRET = "ENV-SECRET-5d1e"
READ_RULE = """
[[permissions]]
permission = "read"
pattern = ".env.local"
action = "deny"
reason = "not that file"
"""
ASKS_BEFORE_READING = {"opencode"}
"""Agents that ask before some reads inside the project (opencode, for `.env*` files), so a read
rule decides for them: opencode announces the path, then asks with empty locations and raw input."""


@pytest.mark.parametrize("agent", AGENTS)
async def test_a_confined_agent_cannot_read_the_rooms_secrets(agent: str, tmp_path: Path) -> None:
    """Whatever tool the agent reads with, `.canvas/secrets.json` and `.env` reach neither the
    thread nor the model; a read rule decides for agents that ask; a model error and a crash read
    in words; two sessions of the agent answer at once."""
    lacks = lacking(agent)
    if lacks is not None:
        missing(*lacks)
    fake = await FakeModels().start()
    root = project_for(tmp_path, agent, fake)
    (root / ".env").write_text(f"TOKEN={ENV_SECRET}\n")
    (root / ".env.local").write_text("rule-protected\n")
    with (root / ".canvas" / "config.toml").open("a") as file:
        file.write(READ_RULE)
    try:
        async with serving(root) as served:
            info = {a.id: a for a in served.server.room.agents}
            assert info[agent].confined
            token = served.token
            host = await HostClient.connect(served)
            session_id = await create(host, agent, options=False)
            run = Run(host, session_id)
            events = await run.turn("ACTION: read .env")
            events += await run.turn("ACTION: read .canvas/secrets.json")
            events += await run.turn("ACTION: run cat .env .canvas/secrets.json")
            told = repr([seen.body for seen in fake.requests]) + repr(fake.tool_results)
            shown = repr(events)
            for secret in (ENV_SECRET, token):
                assert secret not in shown and secret not in told

            read = await run.turn("ACTION: read .env.local")
            if agent in ASKS_BEFORE_READING:
                decided = resolved(read)
                assert [r["by"] for r in decided] == ["rules"], read
                assert "rule-protected" not in repr(fake.tool_results)

            # two sessions at once
            other = await create(host, agent, options=False)
            both = await turns_at_once(host, {session_id: "first of two", other: "second of two"})
            assert "Fake model says: first of two" in said(both[session_id])
            assert "Fake model says: second of two" in said(both[other])

            # a model error, in words
            failed = (await run.turn("ACTION: fail"))[-1]
            assert failed.get("error") is None or failed["error"].startswith("The agent "), failed
            # Claude's agent may answer the prompt after an error with that error's end.
            await run.turn("after the error")

            # a crash of the agent, in words
            await run.slow_turn(agent)
            os.killpg(served.server.agents.procs[session_id].pid, 9)
            ended = (await events_until(host, session_id, "turn-end"))[-1]
            assert ended["error"].startswith("The agent stopped before it could finish its answer"), ended
            await host.close()
    finally:
        await fake.stop()
