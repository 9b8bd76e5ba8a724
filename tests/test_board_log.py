"""The board log: what was appended is read back in order, compaction replaces it whole, and a
torn tail (a machine that crashed mid-write) is cut off without losing the records before it."""

import stat
import subprocess
import sys
from pathlib import Path

import pytest

from canvasrelay.server.board.log import BOARD_LOG, BoardLog, read_updates


def test_updates_come_back_in_order_after_reopening(tmp_path: Path) -> None:
    log, _ = BoardLog.open(tmp_path / BOARD_LOG)
    for data in (b"\x01\x02", b"", b"x" * 70_000):
        log.append(data)
    log.close()
    again, updates = BoardLog.open(tmp_path / BOARD_LOG)
    again.close()
    assert updates == [b"\x01\x02", b"", b"x" * 70_000]
    assert stat.S_IMODE((tmp_path / BOARD_LOG).stat().st_mode) == 0o600


def test_compaction_replaces_everything_and_appending_goes_on(tmp_path: Path) -> None:
    log, _ = BoardLog.open(tmp_path / BOARD_LOG)
    for data in (b"a", b"b", b"c"):
        log.append(data)
    log.replace(b"ABC")
    log.append(b"d")
    assert read_updates(tmp_path / BOARD_LOG) == [b"ABC", b"d"]
    assert log.size() == (tmp_path / BOARD_LOG).stat().st_size
    assert sorted(p.name for p in tmp_path.iterdir()) == [BOARD_LOG]
    assert stat.S_IMODE((tmp_path / BOARD_LOG).stat().st_mode) == 0o600
    log.close()


@pytest.mark.parametrize("damage", ["half a header", "half an update", "a flipped byte"])
def test_a_torn_tail_is_cut_off_and_the_records_before_it_are_kept(tmp_path: Path, damage: str) -> None:
    path = tmp_path / BOARD_LOG
    log, _ = BoardLog.open(path)
    log.append(b"kept")
    whole = path.stat().st_size
    log.append(b"torn in the crash")
    log.close()
    raw = path.read_bytes()
    if damage == "half a header":
        path.write_bytes(raw[: whole + 3])
    elif damage == "half an update":
        path.write_bytes(raw[:-4])
    else:
        path.write_bytes(raw[:-1] + bytes([raw[-1] ^ 1]))
    assert read_updates(path) == [b"kept"]
    log, updates = BoardLog.open(path)
    assert updates == [b"kept"]
    assert path.stat().st_size == whole
    log.append(b"after")
    log.close()
    assert read_updates(path) == [b"kept", b"after"]


FULL_DISK = """
import resource, signal, sys
from pathlib import Path
from canvasrelay.server.board.log import BoardLog
log, _ = BoardLog.open(Path(sys.argv[1]))
log.append(b"before")
# As a full disk would: the file takes part of the record, then the write fails.
signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
soft, hard = resource.getrlimit(resource.RLIMIT_FSIZE)
resource.setrlimit(resource.RLIMIT_FSIZE, (log.size() + 10, hard))
try:
    log.append(b"x" * 100)
except OSError as exc:
    print("refused:", exc.strerror)
resource.setrlimit(resource.RLIMIT_FSIZE, (soft, hard))
log.append(b"after")
log.close()
"""


def test_a_write_that_fails_is_taken_back_whole(tmp_path: Path) -> None:
    path = tmp_path / BOARD_LOG
    done = subprocess.run([sys.executable, "-c", FULL_DISK, str(path)], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("refused:")
    assert read_updates(path) == [b"before", b"after"]
