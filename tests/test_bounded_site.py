"""A burst of connections past what the server keeps descriptors for is answered at once, unread,
and the connections the server holds keep working."""

from __future__ import annotations

import aiohttp
from aiohttp import web

from canvasrelay.net.bounded_site import BoundedSite


async def test_connections_past_the_cap_are_told_the_server_is_full_and_held_ones_keep_working() -> None:
    app = web.Application()

    async def socket(request: web.Request) -> web.WebSocketResponse:
        ws = web.WebSocketResponse()
        await ws.prepare(request)
        async for message in ws:
            await ws.send_str(message.data)
        return ws

    app.router.add_get("/ws", socket)
    runner = web.AppRunner(app)
    await runner.setup()
    await BoundedSite(runner, "127.0.0.1", 0, cap=2).start()
    url = f"http://127.0.0.1:{runner.addresses[0][1]}"
    async with aiohttp.ClientSession() as session:
        first = await session.ws_connect(f"{url}/ws")
        second = await session.ws_connect(f"{url}/ws")
        async with (
            aiohttp.ClientSession(connector=aiohttp.TCPConnector(force_close=True)) as other,
            other.get(f"{url}/ws") as response,
        ):
            assert response.status == 503
            assert await response.text() == "the server is full.\n"
        await first.send_str("still here")
        assert (await first.receive_str(timeout=5)) == "still here"
        await first.close()
        await second.close()
    await runner.cleanup()
