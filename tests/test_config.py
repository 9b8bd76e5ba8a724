"""`.canvas/config.toml` read into models: every option the README documents works, and a bad
key or value is refused with the file, the key and what was wrong."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from canvasrelay.core.board import BoardBounds
from canvasrelay.core.errors import ConfigError
from canvasrelay.core.permission_rules import Rule
from canvasrelay.server.agents.catalog import discover, process_limits
from canvasrelay.server.agents.rule_book import project_rules
from canvasrelay.server.board.host import board_bounds
from canvasrelay.server.config import load_config
from tests.agent_support import config

README = Path(__file__).resolve().parents[1] / "README.md"


def readme_toml() -> list[str]:
    return re.findall(r"```toml\n(.*?)```", README.read_text(encoding="utf-8"), re.DOTALL)


def test_every_option_the_readme_documents_is_read(tmp_path: Path) -> None:
    blocks = readme_toml()
    assert (
        len(blocks) >= 2 and any("[agents.mine]" in b for b in blocks) and any("[[permissions]]" in b for b in blocks)
    )
    # The README names [board] and [api] in its prose: their keys as it spells them.
    text = README.read_text(encoding="utf-8")
    assert "`[board]` `max_bytes = …`, `max_items = …`" in text and '`[api]` `cors_origins = ["https://…"]`' in text
    prose = '[board]\nmax_bytes = 1048576\nmax_items = 500\n[api]\ncors_origins = ["https://tools.example"]\n'
    config(tmp_path, "\n".join([*blocks, prose]))
    loaded = load_config(tmp_path / ".canvas")

    agents = discover(loaded)
    assert (agents["mine"].command, agents["mine"].args, agents["mine"].env) == (
        "my-agent",
        ("--acp",),
        {"MY_FLAG": "1"},
    )
    assert not agents["mine"].confine and not agents["claude"].confine and agents["codex"].confine
    limits = process_limits(loaded)
    assert (limits.max_running, limits.idle_seconds) == (4, 600.0)
    assert board_bounds(loaded) == BoardBounds(max_bytes=1048576, max_items=500)
    assert loaded.api.cors_origins == ["https://tools.example"]
    assert project_rules(loaded) == [
        Rule(permission="read", pattern="**", action="allow"),
        Rule(permission="execute", pattern="rm *", action="deny", reason="delete files yourself"),
    ]


def test_no_file_is_every_default(tmp_path: Path) -> None:
    loaded = load_config(tmp_path / ".canvas")
    assert board_bounds(loaded) == BoardBounds() and process_limits(loaded).max_running == 4
    assert project_rules(loaded) == [] and loaded.api.cors_origins == []


@pytest.mark.parametrize(
    ("text", "key", "words"),
    [
        (
            "[agent_processes]\nmax_runing = 3\n",
            "agent_processes.max_runing",
            "unknown key (known: idle_minutes, max_running)",
        ),
        ("[agent_processes]\nmax_running = 65\n", "agent_processes.max_running", "less than or equal to 64"),
        ('[agent_processes]\nmax_running = "4"\n', "agent_processes.max_running", "valid integer"),
        ("[agent_processes]\nidle_minutes = 0\n", "agent_processes.idle_minutes", "greater than 0"),
        ("[board]\nmax_bytes = true\n", "board.max_bytes", "valid integer"),
        ("[board]\nmax_item = 5\n", "board.max_item", "unknown key"),
        ('[api]\ncors_origins = "https://a.example"\n', "api.cors_origins", "valid list"),
        ('[agents.mine]\ncommand = "x"\nargs = ["--acp", 1]\n', "agents.mine.args[1]", "valid string"),
        (
            '[agents.mine]\ncommand = "x"\nenviron = {}\n',
            "agents.mine.environ",
            "unknown key (known: args, command, confine, env, label)",
        ),
        ('[agents.mine]\nlabel = "Mine"\n', "agents.mine", "needs a command"),
        (
            '[[permissions]]\npermission = "read"\naction = "maybe"\n',
            "permissions[0].action",
            "'allow', 'deny' or 'ask'",
        ),
        ('[[permission]]\npermission = "read"\naction = "allow"\n', "permission", "unknown key"),
    ],
)
def test_a_bad_key_or_value_names_the_file_and_the_key(tmp_path: Path, text: str, key: str, words: str) -> None:
    config(tmp_path, text)
    path = tmp_path / ".canvas" / "config.toml"
    with pytest.raises(ConfigError) as refused:
        load_config(tmp_path / ".canvas")
    message = str(refused.value)
    assert message.startswith(f"{path}: {key}: ") and words in message, message


def test_only_a_known_agent_may_be_named_without_a_command(tmp_path: Path) -> None:
    config(tmp_path, "[agents.mystery]\nconfine = false\n")
    with pytest.raises(ConfigError, match=r"agents\.mystery: needs a command \(mystery is not an agent canvas knows\)"):
        discover(load_config(tmp_path / ".canvas"))


def test_a_file_that_is_not_toml_names_the_file_and_the_line(tmp_path: Path) -> None:
    config(tmp_path, "[board\n")
    with pytest.raises(ConfigError, match=rf"{re.escape(str(tmp_path))}/\.canvas/config\.toml: .*line 1"):
        load_config(tmp_path / ".canvas")
