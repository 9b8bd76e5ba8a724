"""A Chromium guest for the NAT tests, run inside a namespace (Playwright's driver with it):
`python -m tests.nat_browser ROOM_LINK WAIT_S`.

It opens the room link where it points (the guest page a static server on the public segment
serves), joins as "Behind a NAT", and prints one JSON line: how long from opening the link to the
board (`seconds`), or the words the page shows when it could not get in (`trouble`). The page's
origin is plain http on a test address, which no browser counts as a secure context: the flag
that makes it one stands in for the HTTPS a real static host serves.
"""

from __future__ import annotations

import json
import sys
import tempfile
import time
from urllib.parse import urlsplit

from playwright.sync_api import sync_playwright

from tests.support import CHROMIUM, CHROMIUM_ARGS


def main(link: str, wait_s: float) -> dict[str, object]:
    parts = urlsplit(link)
    origin = f"{parts.scheme}://{parts.netloc}"
    wait_ms = wait_s * 1000
    with sync_playwright() as playwright, tempfile.TemporaryDirectory() as profile:
        args = [*CHROMIUM_ARGS, f"--unsafely-treat-insecure-origin-as-secure={origin}"]
        context = playwright.chromium.launch_persistent_context(profile, executable_path=CHROMIUM, args=args)
        # Closed before its profile folder goes: a running Chromium still writes there.
        try:
            page = context.new_page()
            started = time.monotonic()
            page.goto(link)
            page.get_by_test_id("guest-name").fill("Behind a NAT")
            page.get_by_test_id("guest-join").click()
            board, trouble = page.get_by_test_id("board-toolbar"), page.get_by_test_id("join-trouble")
            board.or_(trouble).first.wait_for(timeout=wait_ms)
            seconds = round(time.monotonic() - started, 3)
            if trouble.is_visible():
                return {"trouble": trouble.inner_text(), "seconds": seconds}
            return {"seconds": seconds, "project": page.get_by_test_id("project").inner_text()}
        finally:
            context.close()


if __name__ == "__main__":
    print(json.dumps(main(sys.argv[1], float(sys.argv[2]))), flush=True)
