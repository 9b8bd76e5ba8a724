"""`canvas signal`'s composition root: the rendezvous, the Redis bus that joins it to its other
instances, TURN credentials and the guest page, on one bounded listening site. It imports nothing
of `canvas serve` (an import contract keeps it so)."""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass

from aiohttp import web

from canvasrelay.net.bounded_site import BoundedSite, raise_file_limit
from canvasrelay.net.http_refusals import one_line_refusals
from canvasrelay.page.assets import add_static_routes
from canvasrelay.page.bundle import WEB_DIST
from canvasrelay.page.policy import guest_page_connects, security_headers
from canvasrelay.signal.redis_bus import RedisBus
from canvasrelay.signal.rendezvous import Rendezvous, add_ops_routes, add_routes
from canvasrelay.signal.turn_credentials import TurnConfig


@dataclass(frozen=True)
class SignalSite:
    """A listening `canvas signal`."""

    runner: web.AppRunner
    port: int
    """The port it listens on (the one asked for, or the one given for 0)."""
    bus: RedisBus | None

    async def close(self) -> None:
        await self.runner.cleanup()


def signal_app(relay: Rendezvous) -> web.Application:
    """The rendezvous' socket, TURN and ops routes, and the guest page whose links may name any rendezvous."""
    app = web.Application(middlewares=[security_headers])
    add_routes(app, relay)
    add_ops_routes(app, relay)
    add_static_routes(app, WEB_DIST, guest_page_connects)
    return app


async def start(
    host: str,
    port: int,
    turn: TurnConfig | None = None,
    redis: str | None = None,
    forwarded_for: bool = False,
    page_origins: Collection[str] = (),
) -> SignalSite:
    """Compose and listen; an OSError is the bind's, with nothing left running."""
    one_line_refusals()
    raise_file_limit()
    bus = RedisBus(redis) if redis else None
    relay = Rendezvous(bus, bus.verifiers if bus else None, turn, forwarded_for, page_origins)
    runner = web.AppRunner(signal_app(relay), access_log=None)
    await runner.setup()
    try:
        await BoundedSite(runner, host, port).start()
    except OSError:
        await runner.cleanup()
        raise
    return SignalSite(runner, int(runner.addresses[0][1]), bus)
