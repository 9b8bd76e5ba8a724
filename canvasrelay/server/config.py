"""`.canvas/config.toml` and the user's `permissions.toml`, read into models.

Every section forbids keys it does not know (a misspelt key is an error, not a silent default)
and takes TOML's own types strictly: `max_running = "4"` is refused, not read as 4 (a whole
number is fine where minutes are asked). An error names the file, the key and what was wrong,
as `canvas serve` prints it:

    /home/me/project/.canvas/config.toml: agent_processes.max_runing: unknown key (known: idle_minutes, max_running)
"""

from __future__ import annotations

import tomllib
from pathlib import Path
from typing import Any, TypeVar, get_args

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from canvasrelay.core.board import MAX_BOARD_BYTES, MAX_BOARD_ITEMS
from canvasrelay.core.budgets import COST_MAX, Limits
from canvasrelay.core.errors import ConfigError
from canvasrelay.core.permission_rules import Rule

CONFIG_FILE = "config.toml"
ERRORS_SHOWN = 3


class Section(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True, frozen=True)


M = TypeVar("M", bound=Section)


class AgentEntry(Section):
    """`[agents.<id>]`: an agent of the user's own, or (with only `confine`) one canvas knows."""

    command: str | None = Field(default=None, min_length=1)
    args: list[str] = Field(default_factory=list)
    env: dict[str, str] = Field(default_factory=dict)
    label: str | None = None
    confine: bool = True
    """Run it confined to the room's view of the project (agents/sandbox.py)."""

    @model_validator(mode="after")
    def _command_unless_only_confine(self) -> AgentEntry:
        if self.command is None and self.model_fields_set - {"confine"}:
            raise ValueError("needs a command (only `confine` may be set for an agent canvas knows)")
        return self


class AgentProcesses(Section):
    """`[agent_processes]`: the bounds on running agent processes."""

    max_running: int = Field(default=4, ge=1, le=64, description="Agents running at once.")
    idle_minutes: float = Field(
        default=10.0, gt=0, le=7 * 24 * 60, description="An agent idle this long is stopped (reloaded when prompted)."
    )


class GuestBudgets(Section):
    """`[budgets]`: what each guest may spend on the room's agents unless the host sets its own
    (core/budgets.py); unset, no limit."""

    prompts_per_hour: int | None = Field(default=None, ge=0, le=10_000, description="Prompts a guest may run an hour.")
    turn_minutes_per_hour: float | None = Field(
        default=None, ge=0, le=60, description="Minutes of agent turns a guest's prompts may take an hour."
    )
    cost: float | None = Field(
        default=None, ge=0, le=COST_MAX, description="What a guest's turns may cost in all, as the agent reports it."
    )

    def limits(self) -> Limits:
        return Limits(self.prompts_per_hour, self.turn_minutes_per_hour, self.cost)


class BoardLimits(Section):
    """`[board]`: what the board may hold."""

    max_bytes: int = Field(default=MAX_BOARD_BYTES, gt=0)
    max_items: int = Field(default=MAX_BOARD_ITEMS, gt=0)


class ApiSettings(Section):
    """`[api]`: origins of pages elsewhere that may call the HTTP API (CORS)."""

    cors_origins: list[str] = Field(default_factory=list)


class RecordingLimits(Section):
    """`[recording]`: what the room's recording keeps (adr/0031-the-room-replayable.md). The defaults
    hold a working day's board, threads and terminal output several times over."""

    enabled: bool = True
    keep_hours: float = Field(default=72.0, gt=0, le=366 * 24, description="Older segments are deleted.")
    max_mb: float = Field(default=512.0, gt=0, le=1024 * 1024, description="The recording's whole size on disk.")
    segment_mb: float = Field(
        default=32.0, gt=0, le=1024, description="A segment this large is closed and a new one begun."
    )


class CanvasConfig(Section):
    """`<dir>/.canvas/config.toml`."""

    agents: dict[str, AgentEntry] = Field(default_factory=dict)
    agent_processes: AgentProcesses = AgentProcesses()
    budgets: GuestBudgets = GuestBudgets()
    board: BoardLimits = BoardLimits()
    api: ApiSettings = ApiSettings()
    recording: RecordingLimits = RecordingLimits()
    permissions: list[Rule] = Field(default_factory=list)
    """The project's permission rules (`[[permissions]]`)."""


class UserRules(Section):
    """`~/.config/canvas/permissions.toml`: the user's permission rules, for every project."""

    permissions: list[Rule] = Field(default_factory=list)


def parse_config(model: type[M], data: Any, where: str) -> M:
    """`data` (a TOML document) as `model`, or a `ConfigError` naming `where` and each bad key."""
    try:
        return model.model_validate(data)
    except ValidationError as exc:
        problems = [f"{where}: {_key(error['loc'])}: {_words(model, error)}" for error in exc.errors()[:ERRORS_SHOWN]]
        raise ConfigError("; ".join(problems)) from None


def read_toml(path: Path) -> dict[str, Any]:
    """The file's TOML, {} when there is none."""
    if not path.is_file():
        return {}
    try:
        return tomllib.loads(path.read_text(encoding="utf-8"))
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise ConfigError(f"{path}: {exc}") from None


def load_config(canvas_dir: Path) -> CanvasConfig:
    path = canvas_dir / CONFIG_FILE
    return parse_config(CanvasConfig, read_toml(path), str(path))


def _key(loc: tuple[int | str, ...]) -> str:
    """`('agents', 'mine', 'args', 1)` as `agents.mine.args[1]`; a model validator's own `loc`
    entry (pydantic names it by the model's class) is left out."""
    key = ""
    for part in loc:
        if isinstance(part, int):
            key += f"[{part}]"
        elif not part[:1].isupper():
            key += f".{part}" if key else part
    return key or "(the file)"


def _words(model: type[Section], error: Any) -> str:
    if error["type"] == "extra_forbidden":
        known = _keys_at(model, error["loc"][:-1])
        return f"unknown key (known: {', '.join(known)})" if known else "unknown key"
    if error["type"] == "missing":
        return "required"
    return str(error["msg"]).removeprefix("Value error, ")


def _keys_at(model: type[Section], loc: tuple[int | str, ...]) -> list[str]:
    """The keys the table at `loc` may hold, following the models' fields, lists and maps."""
    current: Any = model
    for part in loc:
        if isinstance(current, type) and issubclass(current, BaseModel):
            field = current.model_fields.get(str(part))
            current = field.annotation if field is not None else None
        else:
            # A list's item or a map's value: its type is the last type argument.
            current = (get_args(current) or (None,))[-1]
    return sorted(current.model_fields) if isinstance(current, type) and issubclass(current, BaseModel) else []
