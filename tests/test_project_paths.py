"""What the room hears of an agent's paths: the project's relative, home as "~", nothing else touched."""

from __future__ import annotations

import pytest

from canvasrelay.core.project_paths import ProjectPaths

paths = ProjectPaths("/home/ada/proj", "/home/ada")


@pytest.mark.parametrize(
    ("said", "heard"),
    [
        ("/home/ada/proj/src/app.py", "src/app.py"),
        ("/home/ada/proj", "."),
        ("/home/ada/proj/", "./"),
        ("cd /home/ada/proj && make", "cd . && make"),
        ("Working in /home/ada/proj.", "Working in .."),
        ("/home/ada/project/x", "~/project/x"),
        ("/home/ada/proj.old/x", "~/proj.old/x"),
        ("/home/ada/.ssh/id_ed25519", "~/.ssh/id_ed25519"),
        ("/home/adam/notes", "/home/adam/notes"),
        ("/etc/hosts", "/etc/hosts"),
    ],
)
def test_a_path_as_the_room_hears_it(said: str, heard: str) -> None:
    assert paths.text(said) == heard


def test_every_string_of_a_tool_call_is_rewritten_and_nothing_else() -> None:
    update = {
        "sessionUpdate": "tool_call",
        "locations": [{"path": "/home/ada/proj/a.txt", "line": 3}],
        "content": [{"type": "diff", "path": "/home/ada/proj/a.txt", "oldText": None, "newText": "x"}],
        "rawInput": {"command": ["/bin/bash", "-lc", "ls /home/ada/proj/src"]},
    }
    assert paths.value(update) == {
        "sessionUpdate": "tool_call",
        "locations": [{"path": "a.txt", "line": 3}],
        "content": [{"type": "diff", "path": "a.txt", "oldText": None, "newText": "x"}],
        "rawInput": {"command": ["/bin/bash", "-lc", "ls src"]},
    }


def test_a_project_outside_home_leaves_home_to_its_own_name() -> None:
    assert ProjectPaths("/srv/app", "/root").text("/srv/app/x and /root/y") == "x and ~/y"
