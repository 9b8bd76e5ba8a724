"""asciicast v3 (asciinema 3's `.cast`), written and read: newline-delimited JSON, a header object
then one `[interval, code, data]` array per event, each interval from the event before.

canvas writes output (`o`), the shell's size (`r`, `COLSxROWS`) and its exit (`x`); a screen that
started over (a new shell, or canvas watching one again) is output that begins with RIS (`ESC c`),
which every player resets on.
"""

from __future__ import annotations

import json
from dataclasses import dataclass

RESET = "\x1bc"
DEFAULT_SIZE = (80, 24)
CODES = frozenset("oirmx")


class CastError(ValueError):
    """Not an asciicast v3 file; the message says what is wrong, in words."""


@dataclass(frozen=True, slots=True)
class CastEvent:
    at: float
    """Seconds since the epoch (the header's timestamp plus the intervals so far)."""
    code: str
    data: str


@dataclass(frozen=True)
class Cast:
    cols: int
    rows: int
    start: float
    title: str
    events: list[CastEvent]


def write_cast(cast: Cast) -> str:
    header = {
        "version": 3,
        "term": {"cols": cast.cols, "rows": cast.rows, "type": "xterm-256color"},
        "timestamp": int(cast.start),
        "title": cast.title,
    }
    lines = [json.dumps(header, ensure_ascii=False)]
    previous = float(int(cast.start))
    for event in cast.events:
        interval = round(max(0.0, event.at - previous), 6)
        # From the times as a reader will add them up, so rounding never drifts.
        previous += interval
        lines.append(json.dumps([interval, event.code, event.data], ensure_ascii=False))
    return "\n".join(lines) + "\n"


def read_cast(text: str) -> Cast:
    lines = text.split("\n")
    try:
        header = json.loads(lines[0])
    except (ValueError, IndexError):
        raise CastError("its first line is not a JSON header") from None
    if not isinstance(header, dict) or header.get("version") != 3:
        raise CastError("its header does not say version 3")
    term = header.get("term")
    if not isinstance(term, dict) or not all(isinstance(term.get(k), int) and term[k] > 0 for k in ("cols", "rows")):
        raise CastError("its header has no terminal size")
    at = float(header.get("timestamp") or 0)
    events: list[CastEvent] = []
    for number, line in enumerate(lines[1:], start=2):
        if not line or line.startswith("#"):
            continue
        try:
            interval, code, data = json.loads(line)
        except ValueError:
            raise CastError(f"line {number} is not an [interval, code, data] event") from None
        if not isinstance(interval, int | float) or interval < 0 or code not in CODES or not isinstance(data, str):
            raise CastError(f"line {number} is not an [interval, code, data] event")
        at += interval
        events.append(CastEvent(at, code, data))
    return Cast(term["cols"], term["rows"], float(header.get("timestamp") or 0), str(header.get("title", "")), events)
