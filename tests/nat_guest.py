"""A guest for the NAT tests, run inside a namespace: `python -m tests.nat_guest ROOM_LINK [LIBRARY]`.

It joins with the guest library `canvas join` uses and prints one JSON line: how long the join
took and the candidate pair it runs on (`route`), or `error` saying why it did not get in.
"""

from __future__ import annotations

import asyncio
import json
import sys
import time

from canvasrelay.client.guest import Guest
from canvasrelay.net.peer_connection import chosen, library

JOIN_S = 20.0


async def main(link: str, named: str | None) -> dict[str, object]:
    guest = Guest(link, name="Behind a NAT", webrtc=library(named) if named else chosen(), reconnect=False)
    started = time.monotonic()
    try:
        async with asyncio.timeout(JOIN_S):
            await guest.connect()
            await guest.expect("welcome")
    except (TimeoutError, ConnectionError, OSError) as exc:
        return {"error": type(exc).__name__, "library": guest.library.name}
    took = time.monotonic() - started
    assert guest.pc is not None
    route = await guest.pc.route()
    await guest.close()
    return {"seconds": round(took, 3), "route": list(route) if route else None, "library": guest.library.name}


if __name__ == "__main__":
    print(json.dumps(asyncio.run(main(sys.argv[1], sys.argv[2] if len(sys.argv) > 2 else None))), flush=True)
