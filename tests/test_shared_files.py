"""Shared files: the Room's rules, and files and the tree through a real `canvas serve` and WebSocket."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from canvasrelay.core.effects import Broadcast, Send
from canvasrelay.core.peer import Peer, RoomInfo
from canvasrelay.core.room import Room
from canvasrelay.core.shared_files import MAX_OPEN_PER_PEER, LoadFile, SharedFiles, UnwatchFile
from canvasrelay.protocol.access import Access
from canvasrelay.protocol.core import ErrorFrame
from canvasrelay.protocol.files import File, Tree
from tests.support import HostClient, ServerProcess
from tests.test_shared_set import ATTACKS, PUBLIC_FILES, make_tree

pytestmark = pytest.mark.timeout(90)

TEXT = {"kind": "text", "text": "hi\n", "size": 3}


# -- the Room's rules ---------------------------------------------------------------------------


def make_room() -> tuple[Room, SharedFiles]:
    room = Room(RoomInfo(room_id="r", host_public_key="h", cwd="/tmp"))
    files = SharedFiles(room)
    room.install(files.feature())
    for access in Access:
        room.join(Peer(id=access.value, access=access))
    return room, files


def errors(effects: list[Any]) -> list[str]:
    return [e.frame.message for e in effects if isinstance(getattr(e, "frame", None), ErrorFrame)]


def test_view_guests_see_open_files_but_do_not_browse() -> None:
    room, files = make_room()
    assert errors(room.receive("view", '{"t":"file-open","path":"a.txt"}'))
    assert errors(room.receive("view", '{"t":"tree-watch"}'))
    assert room.receive("edit", '{"t":"file-open","path":"a.txt"}') == [LoadFile("a.txt", "edit")]
    assert files.loaded("a.txt", TEXT, "edit") == [Broadcast(File(path="a.txt", file=TEXT))]  # type: ignore[arg-type]
    # Open already: viewing it is only reading.
    assert room.receive("view", '{"t":"file-open","path":"a.txt"}') == [Send("view", File(path="a.txt", file=TEXT))]  # type: ignore[arg-type]
    joining = room.join(Peer(id="late", access=Access.VIEW))
    assert Send("late", File(path="a.txt", file=TEXT)) in joining  # type: ignore[arg-type]


def test_one_peer_holds_a_bounded_number_of_files_the_oldest_closed_with_a_notice() -> None:
    room, files = make_room()
    names = [f"f{i}.txt" for i in range(MAX_OPEN_PER_PEER + 2)]
    room.receive("host", '{"t":"file-open","path":"f0.txt"}')
    files.loaded("f0.txt", TEXT, "host")
    for name in names:
        room.receive("edit", json.dumps({"t": "file-open", "path": name}))
        effects = files.loaded(name, TEXT, "edit")
    assert list(files.held["edit"]) == names[2:]
    assert "f1.txt" not in files.holders and files.holders["f0.txt"] == {"host"}
    assert UnwatchFile("f1.txt") in effects
    notices = errors(effects)
    assert notices == [f"f1.txt no longer follows changes: at most {MAX_OPEN_PER_PEER} files stay open for one person"]
    # Opening a held file again makes it the newest.
    room.receive("edit", '{"t":"file-open","path":"f2.txt"}')
    assert list(files.held["edit"])[-1] == "f2.txt"
    room.leave("edit")
    assert "edit" not in files.held and set(files.holders) == {"f0.txt"} and set(files.contents) == {"f0.txt"}


def test_a_file_closes_when_its_last_holder_closes_or_leaves() -> None:
    room, files = make_room()
    room.receive("host", '{"t":"file-open","path":"a.txt"}')
    files.loaded("a.txt", TEXT, "host")
    room.receive("edit", '{"t":"file-open","path":"a.txt"}')
    assert room.receive("host", '{"t":"file-close","path":"a.txt"}') == []
    assert room.leave("edit") == [UnwatchFile("a.txt")]
    assert files.contents == {} and files.holders == {}


def test_denied_goes_to_the_requester_only_and_nothing_is_kept() -> None:
    _, files = make_room()
    denied = {"kind": "denied", "reason": "traversal"}
    assert files.loaded("../x", denied, "host") == [Send("host", File(path="../x", file=denied))]  # type: ignore[arg-type]
    assert files.holders == {} and files.contents == {}


def test_the_tree_goes_only_to_peers_that_may_browse() -> None:
    room, files = make_room()
    room.receive("edit", '{"t":"tree-watch"}')
    room.receive("host", '{"t":"tree-watch"}')
    room.peers["edit"].access = Access.VIEW
    assert files.tree_changed(["a"]) == [Send("host", Tree(paths=["a"]))]


# -- through the real server --------------------------------------------------------------------


async def file_frame(client: HostClient, path: str, **match: Any) -> dict[str, Any]:
    return (await client.expect("file", path=path, **match))["file"]


async def test_every_corpus_attack_is_denied_through_the_socket(tmp_path: Path) -> None:
    root = make_tree(tmp_path, use_git=True)
    server = ServerProcess(root).start()
    try:
        client = await HostClient.connect(server)
        denied = 0
        for attack in ATTACKS:
            await client.send({"t": "file-open", "path": attack})
        answers: list[dict[str, Any]] = []
        while len(answers) < len(ATTACKS):
            frame = await client.next_frame(30)
            if frame["t"] in ("file", "error"):
                answers.append(frame)
        for attack, answer in zip(ATTACKS, answers, strict=True):
            assert "SECRET" not in json.dumps(answer), attack
            if answer["t"] == "error":
                # Refused as a frame (lone surrogates, over-long): nothing was read.
                assert answer["ref"] in ("file-open", None), attack
            else:
                assert answer["t"] == "file" and answer["path"] == attack, attack
                assert answer["file"]["kind"] == "denied", attack
                denied += 1
        assert denied > len(ATTACKS) * 0.9
        await client.send({"t": "file-open", "path": "src/app.py"})
        assert (await file_frame(client, "src/app.py"))["text"] == PUBLIC_FILES["src/app.py"]
        await client.close()
    finally:
        server.stop()


async def test_a_changed_file_is_pushed_to_whoever_has_it_open(server: ServerProcess, host: HostClient) -> None:
    notes = server.root / "notes.md"
    notes.write_text("one\n")
    await host.send({"t": "file-open", "path": "notes.md"})
    assert (await file_frame(host, "notes.md"))["text"] == "one\n"
    other = await HostClient.connect(server)
    try:
        assert (await file_frame(other, "notes.md"))["text"] == "one\n", "open files are pushed on joining"
        notes.write_text("one\ntwo\n")
        assert (await file_frame(host, "notes.md"))["text"] == "one\ntwo\n"
        assert (await file_frame(other, "notes.md"))["text"] == "one\ntwo\n"
        notes.unlink()
        assert (await file_frame(host, "notes.md"))["kind"] == "missing"
        notes.write_text("back\n")
        assert (await file_frame(host, "notes.md"))["text"] == "back\n"
        await host.send({"t": "file-close", "path": "notes.md"})
        await other.send({"t": "file-close", "path": "notes.md"})
        await host.send({"t": "ping"})
        await host.expect("pong")
        notes.write_text("closed\n")
        await host.send({"t": "tree-watch"})
        await host.expect("tree")
        assert not any(f["t"] == "file" and f["file"].get("text") == "closed\n" for f in host.seen)
    finally:
        await other.close()


async def test_the_tree_follows_the_folder(server: ServerProcess, host: HostClient) -> None:
    root = server.root
    await host.send({"t": "tree-watch"})
    assert (await host.expect("tree"))["paths"] == ["README.md"]
    (root / "src").mkdir()
    (root / "src" / "main.py").write_text("print(1)\n")
    assert (await host.expect("tree", paths=["README.md", "src/main.py"]))["paths"]
    (root / "README.md").unlink()
    await host.expect("tree", paths=["src/main.py"])
    await host.send({"t": "file-open", "path": "src/main.py"})
    assert (await file_frame(host, "src/main.py"))["kind"] == "text"
    (root / ".canvasignore").write_text("src/\n")
    await host.expect("tree", paths=[".canvasignore"])
    assert await file_frame(host, "src/main.py", file={"kind": "denied", "reason": "excluded by .canvasignore"})
