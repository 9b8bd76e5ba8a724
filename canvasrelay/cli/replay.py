"""`canvas replay export [--from …] [--to …] FILE` and `canvas replay FILE`: the room's recording
made into one file, and that file opened in the browser, offline and read-only."""

from __future__ import annotations

import argparse
import asyncio
import re
import time
import webbrowser
from datetime import datetime
from pathlib import Path
from typing import Any

from canvasrelay.cli.stopping import stop_event
from canvasrelay.cli.usage import UsageError, port

COMMANDS = ("replay",)
_AGO = re.compile(r"(\d+(?:\.\d+)?)([smhd])")
_UNIT_S = {"s": 1, "m": 60, "h": 3600, "d": 86400}


def add_commands(commands: Any) -> None:
    replay = commands.add_parser(
        "replay",
        help="export the room's recording to one file (`replay export FILE`), or open such a file (`replay FILE`)",
    )
    replay.add_argument("what", metavar="export|FILE", help="`export`, or the replay file to open")
    replay.add_argument("file", nargs="?", type=Path, help="with `export`: the file to write")
    replay.add_argument("--dir", type=Path, default=Path.cwd(), help="the project folder (default: here)")
    replay.add_argument("--from", dest="start", help="from this moment: 14:05, 2026-12-07T14:05, or 90m (ago)")
    replay.add_argument("--to", dest="end", help="to this moment, in the same forms (default: now)")
    replay.add_argument("--port", type=port, default=0, help="with FILE: the port to serve it on (default: any)")
    replay.add_argument("--no-open", action="store_true", help="with FILE: do not open it in a browser")


def moment(text: str, now: float | None = None) -> float:
    """`14:05` (today), an ISO date and time, or an age such as `90m` or `2h`, as seconds since the epoch."""
    now = time.time() if now is None else now
    ago = _AGO.fullmatch(text.strip())
    if ago:
        return now - float(ago.group(1)) * _UNIT_S[ago.group(2)]
    try:
        if re.fullmatch(r"\d{1,2}:\d{2}(:\d{2})?", text.strip()):
            today = datetime.fromtimestamp(now).date().isoformat()
            return datetime.fromisoformat(f"{today}T{text.strip()}").timestamp()
        return datetime.fromisoformat(text.strip()).timestamp()
    except ValueError:
        raise UsageError(f"not a moment: {text!r} (try 14:05, 2026-12-07T14:05 or 90m)") from None


def run(args: argparse.Namespace) -> int:
    if args.what == "export":
        if args.file is None:
            raise UsageError("replay export needs the file to write: canvas replay export FILE")
        return _export(args)
    if args.file is not None:
        raise UsageError("canvas replay takes one file: canvas replay FILE")
    return asyncio.run(_open(Path(args.what), args.port, not args.no_open))


def _export(args: argparse.Namespace) -> int:
    from canvasrelay.server.recording.export import export_replay
    from canvasrelay.server.recording.segments import RECORDING_DIR, segment_files

    canvas_dir = args.dir.resolve() / ".canvas"
    if not segment_files(canvas_dir / RECORDING_DIR):
        raise UsageError(f"there is no recording of {args.dir.resolve()} (canvas serve records the room there)")
    start = moment(args.start) if args.start else None
    end = moment(args.end) if args.end else None
    if start is not None and end is not None and end <= start:
        raise UsageError("--to must come after --from")
    blob = export_replay(canvas_dir, start, end)
    args.file.write_bytes(blob)
    print(f"wrote {args.file} ({len(blob) / 1e6:.1f} MB): open it with `canvas replay {args.file}`")
    return 0


def _read(path: Path) -> bytes:
    from canvasrelay.core.replay_file import ReplayRefused, read_replay

    try:
        blob = path.read_bytes()
    except OSError as exc:
        raise UsageError(f"cannot read {path}: {exc.strerror}") from None
    try:
        read_replay(blob)
    except ReplayRefused as exc:
        raise UsageError(f"{path}: {exc}") from None
    return blob


async def _open(path: Path, at_port: int, open_browser: bool) -> int:
    from aiohttp import web

    from canvasrelay.server.app import WEB_DIST
    from canvasrelay.server.http.page_policy import security_headers
    from canvasrelay.server.http.static_assets import add_static_routes

    blob = _read(path)

    async def replay_file(_request: web.Request) -> web.Response:
        return web.Response(body=blob, content_type="application/gzip", headers={"Cache-Control": "no-store"})

    app = web.Application(middlewares=[security_headers])
    app.router.add_get("/replay-file", replay_file)
    add_static_routes(app, WEB_DIST, lambda _request: [])
    runner = web.AppRunner(app, access_log=None)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", at_port)
    await site.start()
    bound = runner.addresses[0][1]
    link = f"http://127.0.0.1:{bound}/#replay"
    print(f"replaying {path} (read-only) at {link}", flush=True)
    print("Ctrl-C stops it.", flush=True)
    if open_browser:
        webbrowser.open(link)
    try:
        await stop_event().wait()
    finally:
        await runner.cleanup()
    return 0
