"""The room's record answers who did and who allowed what, on a real server: an agent's board edits
through its tools are the agent's, not its host's."""

from __future__ import annotations

from typing import Any

from tests.support import HostClient, InProcessServer, board_tools


async def test_an_agents_board_edits_are_recorded_as_the_agents(served: InProcessServer) -> None:
    host = await HostClient.connect(served)
    async with board_tools(served, "s-note") as mcp:
        added = await mcp.call_tool("add_note", {"text": "from the agent"})
        assert not added.is_error, added.content
    await host.expect("board-update")
    await host.send({"t": "audit-read"})
    page: dict[str, Any] = await host.expect("audit-page")
    edits = [(e["who"], e["name"], e["detail"]) for e in page["entries"] if e["action"] == "edited the board"]
    assert edits == [("agent:s-note", "an agent", "1 edit")], "credited to the agent, not to the host"
    await host.close()
