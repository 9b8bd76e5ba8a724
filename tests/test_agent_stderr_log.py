"""The agents' stderr log in `.canvas/`: private, one line per output line, bounded by moving aside."""

from __future__ import annotations

import re
import stat
from pathlib import Path

from canvasrelay.server.agents.host import STDERR_LOG, StderrLog


def test_the_stderr_log_is_private_stamped_and_keeps_one_earlier_file_past_its_bound(tmp_path: Path) -> None:
    path = tmp_path / ".canvas" / STDERR_LOG
    log = StderrLog(path)
    log.maxBytes = 300  # the real bound is 4 MiB; a small one is reached in a few lines
    try:
        for n in range(40):
            log.write("session-1", "demo", f"line {n:02} " + "x" * 20)
    finally:
        log.close()
    earlier = path.with_name(STDERR_LOG + ".1")
    for file in (path, earlier):
        assert stat.S_IMODE(file.stat().st_mode) == 0o600
        assert len(file.read_bytes()) <= 300
    newest = path.read_text().splitlines()
    assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d session-1 demo: line 39 x{20}", newest[-1])
    kept = [int(n) for n in re.findall(r"line (\d\d)", earlier.read_text() + path.read_text())]
    # The latest lines, in order, none lost between the two files; the oldest gone.
    assert kept == list(range(kept[0], 40)) and kept[0] > 0
