"""A peer connection with the ICE servers as aiortc takes them, for the hub and the guests (importing aiortc)."""

from __future__ import annotations

from aiortc import RTCConfiguration, RTCIceServer, RTCIceTransportPolicy, RTCPeerConnection

from canvasrelay.protocol.ice import IceServer


def rtc_configuration(servers: list[IceServer], relay_only: bool) -> RTCConfiguration:
    ice = [RTCIceServer(list(s.urls), username=s.username, credential=s.credential) for s in servers]
    if not relay_only:
        # An empty list, not None: aiortc's default is a public STUN server, which we must not call unasked.
        return RTCConfiguration(iceServers=ice)
    return RTCConfiguration(iceServers=ice, iceTransportPolicy=RTCIceTransportPolicy.RELAY)


def peer_connection(servers: list[IceServer], relay_only: bool) -> RTCPeerConnection:
    return RTCPeerConnection(rtc_configuration(servers, relay_only))
