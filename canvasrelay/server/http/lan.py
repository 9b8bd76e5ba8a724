"""This machine's addresses on its networks: what links should name when the server listens on
every interface (`--host 0.0.0.0` or `::`), so a colleague's laptop or a phone can open them."""

from __future__ import annotations

import contextlib
import fcntl
import ipaddress
import socket
import struct

ANY_HOST = ("0.0.0.0", "::", "")
SIOCGIFADDR = 0x8915
"""Linux's ioctl for an interface's IPv4 address."""
# Documentation addresses (RFC 5737, RFC 3849): connecting a UDP socket sends nothing, it only
# makes the kernel pick the source address of the route it would take.
_PROBE = {socket.AF_INET: "192.0.2.1", socket.AF_INET6: "2001:db8::1"}


def default_address(family: socket.AddressFamily = socket.AF_INET) -> str | None:
    """The address of the interface the default route goes out of, or None without one."""
    with socket.socket(family, socket.SOCK_DGRAM) as probe:
        try:
            probe.connect((_PROBE[family], 9))
        except OSError:
            return None
        address = str(probe.getsockname()[0])
    return None if ipaddress.ip_address(address).is_loopback else address


def interface_addresses() -> list[str]:
    """Every interface's IPv4 address but loopback's (Linux; elsewhere none are known)."""
    found: list[str] = []
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as sock:
        for _index, name in socket.if_nameindex():
            request = struct.pack("256s", name.encode()[:15])
            with contextlib.suppress(OSError):
                reply = fcntl.ioctl(sock.fileno(), SIOCGIFADDR, request)
                address = socket.inet_ntoa(reply[20:24])
                if not ipaddress.ip_address(address).is_loopback:
                    found.append(address)
    return found


def link_hosts(bound: str) -> list[str]:
    """The hosts a link may name for a server bound to `bound`, best first: the address itself,
    or (bound to every interface) the default route's address, then the machine's other ones,
    with loopback last so a machine without a network still gets a link that works locally."""
    if bound not in ANY_HOST:
        return [bound]
    family = socket.AF_INET6 if bound == "::" and default_address() is None else socket.AF_INET
    first = default_address(family)
    hosts = [first] if first else []
    hosts += [address for address in interface_addresses() if address not in hosts]
    return [*hosts, "127.0.0.1"]


def url_host(host: str) -> str:
    """`host` as it goes into a URL: an IPv6 address in brackets."""
    return f"[{host}]" if ":" in host and not host.startswith("[") else host
