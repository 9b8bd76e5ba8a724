"""The network I/O the hub and the guest client share: TURN credentials, the peer connection, the data channel.

It imports aiohttp and the WebRTC libraries (wrtc, aiortc) so that `protocol/` and `core/` never need to; it never
imports `server/`.
"""
