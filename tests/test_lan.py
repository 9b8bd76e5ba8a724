"""The addresses links name when the server listens on every interface."""

from __future__ import annotations

import ipaddress

from canvasrelay.server.http.lan import interface_addresses, link_hosts, url_host


def test_a_bound_address_is_the_links_address() -> None:
    assert link_hosts("127.0.0.1") == ["127.0.0.1"]
    assert link_hosts("192.0.2.7") == ["192.0.2.7"]


def test_every_interface_gives_the_machines_addresses_first_and_loopback_last() -> None:
    hosts = link_hosts("0.0.0.0")
    assert hosts[-1] == "127.0.0.1" and len(hosts) == len(set(hosts))
    for host in hosts[:-1]:
        assert not ipaddress.ip_address(host).is_loopback
    assert set(interface_addresses()) <= set(hosts)


def test_ipv6_hosts_go_into_urls_in_brackets() -> None:
    assert url_host("::1") == "[::1]" and url_host("[::1]") == "[::1]" and url_host("10.0.0.2") == "10.0.0.2"
