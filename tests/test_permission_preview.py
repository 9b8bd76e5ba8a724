"""What the host is shown of a tool call before answering: the command whole, the diff or the new
content with its size, the rules Always and Never add; everything bounded."""

from __future__ import annotations

from typing import Any

from canvasrelay.core import permission_preview
from canvasrelay.core.permission_preview import HEAD_LINES, MAX_COMMAND_CHARS

ROOT = "/home/ada/project"


def preview(tool_call: dict[str, Any], root: str) -> dict[str, Any]:
    """The preview in the JSON the `permission` event is stored and sent in."""
    return permission_preview.preview(tool_call, root).model_dump(by_alias=True, exclude_unset=True)


def test_an_argv_command_is_shown_as_the_shell_line_that_runs_whole() -> None:
    shown = preview(
        {"kind": "execute", "rawInput": {"command": ["sh", "-c", "rm -rf build && make 'all tests'"]}}, ROOT
    )
    assert shown["command"] == "sh -c 'rm -rf build && make '\"'\"'all tests'\"'\"''"
    assert shown["commandChars"] == len(shown["command"])
    # The rule matches the shell's own line, as the rules read an argv command.
    assert shown["rules"]["always"] == {"permission": "execute", "pattern": "rm -rf build && make 'all tests'"}


def test_a_command_beyond_the_limit_says_how_long_it_was() -> None:
    shown = preview({"kind": "execute", "rawInput": {"command": "echo " + "x" * MAX_COMMAND_CHARS}}, ROOT)
    assert len(shown["command"]) == MAX_COMMAND_CHARS and shown["commandChars"] == MAX_COMMAND_CHARS + 5
    # Too long for a rule's pattern: Always and Never add none, and say none.
    assert shown["rules"] == {}


def test_an_edit_shows_its_diff_and_size_with_paths_inside_the_project() -> None:
    diff = {"type": "diff", "path": f"{ROOT}/notes/todo.txt", "oldText": "a\nb\nc\n", "newText": "a\nB\nc\nd\n"}
    shown = preview({"kind": "edit", "content": [diff], "locations": [{"path": f"{ROOT}/notes/todo.txt"}]}, ROOT)
    (change,) = shown["changes"]
    assert (change["path"], change["bytes"], change["lines"], change["truncated"]) == ("notes/todo.txt", 8, 4, False)
    assert change["diff"].splitlines() == ["@@ -1,3 +1,4 @@", " a", "-b", "+B", " c", "+d"]
    assert shown["paths"] == ["notes/todo.txt"]
    assert shown["rules"]["never"] == {"permission": "edit", "pattern": "notes/todo.txt"}


def test_a_new_file_shows_its_first_lines_and_says_there_are_more() -> None:
    text = "".join(f"line {n}\n" for n in range(100))
    shown = preview({"kind": "edit", "content": [{"type": "diff", "path": f"{ROOT}/new.txt", "newText": text}]}, ROOT)
    (change,) = shown["changes"]
    assert change["head"].splitlines() == [f"line {n}" for n in range(HEAD_LINES)]
    assert change["truncated"] and change["lines"] == 100 and change["bytes"] == len(text)


def test_a_call_that_says_nothing_previews_as_nothing_but_its_kind() -> None:
    assert preview({"toolCallId": "x"}, ROOT) == {
        "kind": "other",
        "paths": [],
        "command": None,
        "commandChars": None,
        "changes": [],
        # No "always" or "never": a rule for a call that names nothing would cover every such call.
        "rules": {},
        "named": False,
    }


def test_a_file_replaced_whole_is_shown_against_its_text_on_disk() -> None:
    """Claude's Write tool sends only the new text; the caller reads the file on disk, so what the
    host approves says what is removed, and a file not on disk stays a new file."""
    call = {
        "toolCallId": "w1",
        "content": [
            {"type": "diff", "path": f"{ROOT}/notes.txt", "oldText": None, "newText": "new words\n"},
            {"type": "diff", "path": f"{ROOT}/fresh.txt", "newText": "fresh\n"},
            {"type": "diff", "path": f"{ROOT}/edited.txt", "oldText": "a\n", "newText": "b\n"},
        ],
    }
    assert permission_preview.unread_replacements(call) == [f"{ROOT}/notes.txt", f"{ROOT}/fresh.txt"]
    filled = permission_preview.with_old_texts(call, {f"{ROOT}/notes.txt": "plain notes\n"})
    [replaced, fresh, _] = preview(filled, ROOT)["changes"]
    assert replaced["diff"] == "@@ -1 +1 @@\n-plain notes\n+new words"
    assert fresh.get("diff") is None and fresh["head"] == "fresh"
    assert permission_preview.unread_replacements(filled) == [f"{ROOT}/fresh.txt"]
