"""The room's features, each installed onto a `CanvasServer`.

A feature registers its frames' handlers on the Room (sans-I/O: they return effects), the
adapters that carry out its own effects on the runtime, what it adds to `welcome`, and what
must start with the server and stop with it. One line here per feature.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from canvasrelay.server.app import CanvasServer

Installer = Callable[["CanvasServer"], None]


def installers() -> list[Installer]:
    from canvasrelay.core import board_room, permission_rules
    from canvasrelay.server import agent_host, api, file_host, terminal_host

    return [
        permission_rules.install,
        board_room.install,
        agent_host.install,
        terminal_host.install,
        file_host.install,
        api.install,
    ]


def install_all(server: CanvasServer) -> None:
    for install in installers():
        install(server)
