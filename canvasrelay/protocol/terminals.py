"""Terminal frames.

Output travels as text: the PTY's bytes decoded as UTF-8 (invalid bytes become U+FFFD) by a
decoder kept per client and terminal, so a character split across two reads arrives whole.
A `term-data` with `replay` set carries the start of the terminal's scrollback ring: the
client clears its screen first. A replay larger than one frame continues in ordinary frames.
"""

from __future__ import annotations

from typing import Annotated, ClassVar, Literal

from pydantic import Field

from canvasrelay.protocol.access import Action
from canvasrelay.protocol.base import ClientFrame, Model, ServerFrame, client_frame, server_frame

TERMINAL_ID_PATTERN = r"^[A-Za-z0-9_-]{1,64}$"
MAX_INPUT_CHARS = 64 * 1024
"""One frame of keystrokes or a paste; a larger paste arrives as several frames."""
MAX_COLS = 1000
MAX_ROWS = 500
MAX_NAME_CHARS = 100
TerminalId = Annotated[str, Field(pattern=TERMINAL_ID_PATTERN)]


@client_frame
class TermOpen(ClientFrame):
    """Open a new terminal with this id (runs a shell on the host), or watch the existing one."""

    t: Literal["term-open"] = "term-open"
    action: ClassVar[Action] = Action.RUN_ON_HOST
    id: TerminalId
    cols: int = Field(default=80, ge=2, le=MAX_COLS)
    rows: int = Field(default=24, ge=1, le=MAX_ROWS)


@client_frame
class TermInput(ClientFrame):
    t: Literal["term-input"] = "term-input"
    action: ClassVar[Action] = Action.TYPE_TERMINAL
    id: TerminalId
    data: str = Field(max_length=MAX_INPUT_CHARS)


@client_frame
class TermResize(ClientFrame):
    """The size this view could show. The shell takes the widest such size of the views that may
    type in it (unless the host pinned one): a narrower view shows the shell's size smaller or
    scrolled, and never shrinks it for the others."""

    t: Literal["term-resize"] = "term-resize"
    action: ClassVar[Action] = Action.TYPE_TERMINAL
    id: TerminalId
    cols: int = Field(ge=2, le=MAX_COLS)
    rows: int = Field(ge=1, le=MAX_ROWS)


@client_frame
class TermPin(ClientFrame):
    """The host keeps a terminal at this size whatever views watch it, or (no size) lets it follow them again."""

    t: Literal["term-pin"] = "term-pin"
    action: ClassVar[Action] = Action.ADMIN
    id: TerminalId
    cols: int | None = Field(default=None, ge=2, le=MAX_COLS)
    rows: int | None = Field(default=None, ge=1, le=MAX_ROWS)


@client_frame
class TermClose(ClientFrame):
    """End the terminal's shell, for everyone. Anyone who may type into it may end it."""

    t: Literal["term-close"] = "term-close"
    action: ClassVar[Action] = Action.TYPE_TERMINAL
    id: TerminalId


@client_frame
class TermControl(ClientFrame):
    """Ask to type into a terminal: any guest's request waits for the host, whose approval hands
    the guest control of that terminal until the host takes it back."""

    t: Literal["term-control"] = "term-control"
    action: ClassVar[Action] = Action.ASK
    id: TerminalId


@client_frame
class TermRename(ClientFrame):
    """The host names a terminal ("Terminal 1" until then)."""

    t: Literal["term-rename"] = "term-rename"
    action: ClassVar[Action] = Action.ADMIN
    id: TerminalId
    name: str = Field(min_length=1, max_length=MAX_NAME_CHARS)


@client_frame
class TermDetach(ClientFrame):
    """Stop receiving a terminal's output (its view was closed); the shell keeps running."""

    action: ClassVar[Action] = Action.READ

    t: Literal["term-detach"] = "term-detach"
    id: TerminalId


@client_frame
class TermList(ClientFrame):
    """Ask for `terminals` again (a view that mounts after the one sent on joining)."""

    action: ClassVar[Action] = Action.READ

    t: Literal["term-list"] = "term-list"


@server_frame
class TermData(ServerFrame):
    t: Literal["term-data"] = "term-data"
    id: TerminalId
    data: str
    replay: bool = False
    """Clear the screen, then write `data`: the start of a replay of the scrollback ring."""


@server_frame
class TermExit(ServerFrame):
    t: Literal["term-exit"] = "term-exit"
    id: TerminalId
    code: int


class Controller(Model):
    """A guest the host handed a terminal to."""

    guest_id: str
    name: str
    color: str


class TerminalInfo(Model):
    id: TerminalId
    name: str
    """What people call it: "Terminal 1" unless the host renamed it."""
    running: bool
    exit_code: int | None = None
    """How its shell ended; None while it runs, or when nobody could know (its keeper went too)."""
    ended_while_stopped: bool = False
    """Its shell ended while canvas was not running (it was running when canvas stopped)."""
    controllers: list[Controller] = Field(default_factory=list)
    """The guests who may type into it besides the host (and trusted guests)."""
    cols: int | None = None
    """The shell's size, which every view draws; None until a view that may type said what it shows."""
    rows: int | None = None
    pinned: bool = False
    """The host pinned the size: views no longer change it."""


@server_frame
class Terminals(ServerFrame):
    """Every terminal in the room; sent on joining and whenever one starts or ends."""

    t: Literal["terminals"] = "terminals"
    terminals: list[TerminalInfo]
    outlive_restart: bool = True
    """The shells outlive a restart of canvas (tmux keeps them); without tmux they end with it."""


@server_frame
class TermTypist(ServerFrame):
    """Who just typed into a terminal, for everyone watching it (sent when the typist changes, and
    again after a pause)."""

    t: Literal["term-typist"] = "term-typist"
    id: TerminalId
    name: str
    color: str
