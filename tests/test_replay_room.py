"""A room driven through a known script — board edits by the host and a guest, an agent turn with a
tool call, a terminal running a program that draws with cursor moves — then its replay: at each
chosen moment the timeline shows exactly the board, thread and screen the host's page had then
(the test keeps what the page was sent). Then the export, read back; and a restore every page receives."""

from __future__ import annotations

import base64
import json
import time
from pathlib import Path
from typing import Any

import aiohttp
import pyte
from pycrdt import Doc, Map, Text

from canvasrelay.client.guest import Guest
from canvasrelay.core.replay_file import read_replay
from canvasrelay.core.timeline import Timeline
from canvasrelay.protocol.board_items import ITEMS
from tests.agent_support import create, events_until, serving
from tests.support import HostClient, InProcessServer, thread_of
from tests.test_terminals import open_terminal

DRAW = r"printf '\033[2J\033[5;10Hdrawn-here\033[2;3Hup-top\033[8;1H'"


class Page:
    """What the host's page was shown: its board (its own edits and every update it got) and its
    thread (every event it got); its terminal's is the `Screen` of the terminals' tests."""

    def __init__(self, host: HostClient) -> None:
        self.host = host
        self.doc: Doc = Doc()
        self.events: list[dict[str, Any]] = []

    def take(self) -> None:
        for frame in self.host.seen:
            self._take(frame)
        self.host.seen.clear()

    def _take(self, frame: dict[str, Any]) -> None:
        if frame["t"] == "board-update":
            self.doc.apply_update(base64.b64decode(frame["update"]))
        elif frame["t"] == "agent-event":
            self.events.append(frame["event"])

    def board(self) -> dict[str, Any]:
        return self.doc.get(ITEMS, type=Map).to_py() or {}


def note(doc: Doc, item: str, text: str, x: float) -> str:
    items = doc.get(ITEMS, type=Map)
    before = doc.get_state()
    with doc.transaction():
        items[item] = Map(
            {"kind": "note", "x": x, "y": 0.0, "w": 160.0, "h": 100.0, "color": "#fff3bf", "text": Text(text)}
        )
    return base64.b64encode(doc.get_update(before)).decode()


def moment() -> float:
    """A moment between two steps of the script: the page has what came before, so the recording
    stamped it earlier (it stamps an entry as the room takes it, before any page is sent it), and
    what comes after is not sent yet."""
    return time.time()


async def replay_of(served: InProcessServer) -> Timeline:
    async with aiohttp.ClientSession() as http:
        headers = {"Authorization": f"Bearer {served.token}"}
        async with http.get(f"{served.base_url}/api/replay", headers=headers) as response:
            assert response.status == 200 and response.content_type == "application/gzip"
            blob = await response.read()
    assert served.token.encode() not in blob
    _, room, casts = read_replay(blob)
    return Timeline(room, casts)


async def test_the_timeline_shows_what_the_page_showed_at_each_moment(project: Path) -> None:
    (project / ".canvas").mkdir(mode=0o700)
    (project / ".canvas" / "config.toml").write_text("")
    async with serving(project, relays=[]) as served:
        host = await HostClient.connect(served)
        page = Page(host)
        await host.send({"t": "room-set-access", "access": "edit"})
        guest = await Guest(served.room_link, name="Ada", color="#3366aa").connect()
        await guest.expect("access")
        try:
            # The host's note, then Ada's.
            update = note(page.doc, "n1", "the host's plan", 0.0)
            await host.send({"t": "board-update", "update": update})
            await guest.expect("board-update")
            page.take()
            first = moment()
            seen_first = page.board()

            guest_doc: Doc = Doc()
            await guest.send({"t": "board-update", "update": note(guest_doc, "n2", "Ada's idea", 200.0)})
            await host.expect("board-update")
            page.take()
            second = moment()
            seen_second = page.board()

            # An agent turn with a tool call the host allows.
            session_id = await create(host)
            await host.send({"t": "agent-prompt", "sessionId": session_id, "text": "/run echo tool-ran"})
            asked = (await events_until(host, session_id, "permission"))[-1]
            page.take()
            asking = moment()
            seen_asking = thread_of(page.events)
            await host.send(
                {"t": "agent-permission", "sessionId": session_id, "requestId": asked["requestId"], "answer": "once"}
            )
            await events_until(host, session_id, "turn-end")
            page.take()
            answered = moment()
            seen_answered = thread_of(page.events)

            # The agent's own board edit, through its board tools.
            await host.send({"t": "agent-prompt", "sessionId": session_id, "text": "/note the agent's note"})
            await events_until(host, session_id, "turn-end")
            page.take()

            # A program that draws with cursor moves.
            screen = await open_terminal(host, "t1", cols=100, rows=30)
            await host.send({"t": "term-input", "id": "t1", "data": f"{DRAW}\r"})
            await screen.until("drawn-here")
            await screen.settle()
            drawn = moment()
        finally:
            await guest.close()
        seen_drawn = screen_lines(screen)

        timeline = await replay_of(served)
        assert timeline.at(first).items() == seen_first and set(seen_first) == {"n1"}
        assert timeline.at(second).items() == seen_second and set(seen_second) == {"n1", "n2"}
        as_json = lambda t: t.model_dump(mode="json", by_alias=True)  # noqa: E731
        assert as_json(timeline.at(asking).threads[session_id]) == seen_asking
        assert seen_asking["status"] == "waiting"
        assert as_json(timeline.at(answered).threads[session_id]) == seen_answered
        assert any(item["type"] == "tool" for item in seen_answered["items"])
        assert [(t.id, t.name) for t in timeline.room.terminals] == [("t1", "Terminal 1")]
        shown = timeline.at(drawn).terminals["t1"]
        assert replayed(shown.cols, shown.rows, shown.output) == seen_drawn
        assert seen_drawn[4][9:19] == "drawn-here" and seen_drawn[1][2:8] == "up-top"
        marks = [(mark.kind, mark.name) for mark in timeline.marks]
        assert ("board", "the host") in marks and ("board", "Ada") in marks
        assert ("join", "Ada") in marks and any(kind == "prompt" for kind, _ in marks)
        assert any(kind == "approval" for kind, _ in marks)
        title = next(session.title for session in timeline.room.sessions if session.id == session_id)
        by_agent = [mark for mark in timeline.marks if mark.kind == "board" and mark.who == f"agent:{session_id}"]
        assert [mark.name for mark in by_agent] == [title], "the agent's edit is its session's, not the host's"
        added_later = sorted(set(page.board()) - set(seen_first))

        # Restoring the board as it was at the first moment: a new change both pages receive.
        async with aiohttp.ClientSession() as http:
            headers = {"Authorization": f"Bearer {served.token}"}
            async with http.post(
                f"{served.base_url}/api/board/restore", headers=headers, data=json.dumps({"at": first})
            ) as response:
                assert response.status == 200, await response.text()
                assert sorted((await response.json())["removed"]) == added_later
        restored = await host.expect("board-update")
        page._take(restored)
        assert page.board() == seen_first
        assert served.server.board.tools.board.to_json() == seen_first
        after = await replay_of(served)
        assert after.at(second).items() == seen_second, "what came before the restore is as it was"
        assert after.marks[-1].kind == "board" and after.marks[-1].name == "the host"
        await host.close()


def screen_lines(screen: Any) -> list[str]:
    return replayed(100, 30, screen.text.encode())


def replayed(cols: int, rows: int, output: bytes) -> list[str]:
    emulator = pyte.Screen(cols, rows)
    pyte.ByteStream(emulator).feed(output)
    return [line.rstrip() for line in emulator.display]
