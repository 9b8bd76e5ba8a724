"""Whose request this is, by address: what the per-address bounds count.

Behind a load balancer (`--forwarded-for`) the address is the one the balancer appended to
`X-Forwarded-For`, but only when the request came from the balancer itself, at a loopback or
private address: a client reaching the server directly could write any header it likes.
"""

from __future__ import annotations

import ipaddress

from aiohttp import web


def _is_proxy(address: str) -> bool:
    try:
        ip = ipaddress.ip_address(address)
    except ValueError:
        return False
    return ip.is_loopback or ip.is_private


def client_address(request: web.Request, forwarded_for: bool) -> str:
    peer = request.remote or ""
    if forwarded_for and _is_proxy(peer):
        # The balancer appends the address it saw; earlier entries are the client's to invent.
        last = request.headers.get("X-Forwarded-For", "").rpartition(",")[2].strip()
        if last:
            return last
    return peer
