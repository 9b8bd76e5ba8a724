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
    # The rest of the line is read by `_options` (options may come before or after the files, which
    # argparse cannot mix with a variable number of positionals).
    replay = commands.add_parser(
        "replay",
        help="export the room's recording to one file (`replay export FILE`), or open such a file (`replay FILE`)",
        description=_options().format_help(),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    replay.add_argument("rest", nargs=argparse.REMAINDER)


def _options() -> argparse.ArgumentParser:
    options = argparse.ArgumentParser(prog="canvas replay", add_help=False, exit_on_error=False)
    options.add_argument("what", nargs="+", metavar="export FILE | FILE")
    options.add_argument("--dir", type=Path, default=Path.cwd(), help="the project folder (default: here)")
    options.add_argument("--from", dest="start", help="from this moment: 14:05, 2026-12-07T14:05, or 90m (ago)")
    options.add_argument("--to", dest="end", help="to this moment, in the same forms (default: now)")
    options.add_argument("--port", type=port, default=0, help="with FILE: the port to serve it on (default: any)")
    options.add_argument("--no-open", action="store_true", help="with FILE: do not open it in a browser")
    return options


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


def run(parsed: argparse.Namespace) -> int:
    try:
        args = _options().parse_intermixed_args(parsed.rest)
    except argparse.ArgumentError as exc:
        raise UsageError(str(exc)) from None
    if args.what[0] == "export":
        if len(args.what) != 2:
            raise UsageError("replay export needs the one file to write: canvas replay export FILE")
        return _export(args, Path(args.what[1]))
    if len(args.what) != 1:
        raise UsageError("canvas replay opens one file: canvas replay FILE")
    return asyncio.run(_open(Path(args.what[0]), args.port, not args.no_open))


def _export(args: argparse.Namespace, out: Path) -> int:
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
    out.write_bytes(blob)
    print(f"wrote {out} ({len(blob) / 1e6:.1f} MB): open it with `canvas replay {out}`")
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

    from canvasrelay.page.assets import add_static_routes
    from canvasrelay.page.policy import security_headers
    from canvasrelay.server.app import WEB_DIST

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
