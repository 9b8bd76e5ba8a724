"""What a guest and the hub say to each other inside sealed envelopes (`signal_crypto`), before
any data channel exists: the guest's offer or question, the hub's answer, about, or refusal.

The hub reads a guest's message field by field, since anyone holding the room link can send one;
the guest reads the hub's reply through these models.
"""

from __future__ import annotations

from typing import Literal

from pydantic import ConfigDict, Field

from canvasrelay.protocol.base import Model
from canvasrelay.protocol.guests import AccessLevel
from canvasrelay.protocol.ice import MAX_TURN_SERVERS
from canvasrelay.protocol.json_value import JsonObject


class SignalMessage(Model):
    # A newer hub may say more than these models name: a reply is read, not refused, for it.
    model_config = ConfigDict(**{**Model.model_config, "extra": "ignore"})


class GuestOffer(SignalMessage):
    """A guest's WebRTC offer, with the nonce the hub signs to prove it holds the host key."""

    kind: Literal["offer"] = "offer"
    from_: str = Field(validation_alias="from", serialization_alias="from")
    """The guest's connection tag for this handshake: the hub's reply is addressed `to` it."""
    sdp: str
    nonce: str


class AboutAsk(SignalMessage):
    """The join page asks, before joining, what room this is, and with its identity key what
    access its person would join with."""

    kind: Literal["about"] = "about"
    from_: str = Field(validation_alias="from", serialization_alias="from")
    key: str | None = Field(default=None, max_length=128)
    """The guest's public key, as its join would carry it; without it the answer is the link's."""


class HubAnswer(SignalMessage):
    kind: Literal["answer"] = "answer"
    to: str
    sdp: str


class RoomAbout(SignalMessage):
    """The project, whose room it is, the access a new guest gets (and the invitation's name)."""

    kind: Literal["about"] = "about"
    to: str
    project: str
    host: str | None = None
    access: AccessLevel
    name: str | None = None
    ice_servers: list[JsonObject] = Field(
        default_factory=list,
        max_length=MAX_TURN_SERVERS,
        validation_alias="iceServers",
        serialization_alias="iceServers",
    )
    """TURN servers with credentials the host minted for this guest, short-lived: sealed like the
    rest, so only the invitation's holders see them (read with `ice.parse_turn_servers`)."""


class Withdrawn(SignalMessage):
    """The invitation the guest holds was withdrawn (or spent, or expired)."""

    kind: Literal["withdrawn"] = "withdrawn"
    to: str
    reason: str = ""


GuestMessage = GuestOffer | AboutAsk
