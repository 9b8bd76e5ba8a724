"""`canvas page export DIR`: the guest page as files for any static host.

The copy is the same bytes the wheel serves, with `canvas-page.json` naming each file's SHA-256;
a host pointed at it (`canvas serve --base-url URL`) fetches and compares them before it says so.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from canvasrelay.cli.usage import UsageError


def add_command(commands: Any) -> None:
    page = commands.add_parser("page", help="the guest page as files, for any static host")
    actions = page.add_subparsers(dest="page_command", metavar="{export}", required=True)
    export = actions.add_parser("export", help="write the guest page into a folder, to publish anywhere")
    export.add_argument("dir", type=Path, help="the folder to write (made if missing)")


def run(args: argparse.Namespace) -> int:
    from canvasrelay.page.bundle import MANIFEST, NotBuilt, export

    target: Path = args.dir
    if target.exists() and not target.is_dir():
        raise UsageError(f"{target} is a file, not a folder")
    try:
        files = export(target)
    except NotBuilt as exc:
        raise UsageError(str(exc)) from None
    except OSError as exc:
        raise UsageError(f"cannot write {target}: {exc.strerror or exc}") from None
    print(f"Wrote the guest page ({len(files)} files) and {MANIFEST} into {target.resolve()}")
    print("Publish the folder as it is on any static host (HTTPS), then: canvas serve --base-url https://…/")
    return 0
