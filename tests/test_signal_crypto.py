"""Envelopes, topics and the hub's proof, with the vectors WebCrypto must agree on."""

from __future__ import annotations

import os

import pytest

from canvasrelay.protocol import signal_crypto as sc
from canvasrelay.protocol.encoding import b64url
from canvasrelay.server.room_secrets import RoomSecrets

FP_A = ":".join(["AB"] * 32)
FP_B = ":".join(["0c"] * 32)
TOPIC_OF_SAMPLE_KEY = "QIyUshETROiBHGrNIhBH33fhu7XMxL_GBgfLwVKjf7A"


def test_envelope_round_trip_and_tamper() -> None:
    room = RoomSecrets.generate()
    key = sc.signal_key(room.room_key)
    sealed = sc.seal(key, {"kind": "offer", "sdp": "v=0 secret-sdp"})
    assert "secret-sdp" not in sealed and "offer" not in sealed
    assert sc.open_envelope(key, sealed)["sdp"] == "v=0 secret-sdp"
    flipped = sealed[:-2] + ("A" if sealed[-2] != "A" else "B") + sealed[-1]
    with pytest.raises(sc.SignalError):
        sc.open_envelope(key, flipped)
    with pytest.raises(sc.SignalError):
        sc.open_envelope(sc.signal_key(RoomSecrets.generate().room_key), sealed)
    with pytest.raises(sc.SignalError):
        sc.open_envelope(key, "not base64 !!")


def test_stale_envelopes_are_refused() -> None:
    key = sc.signal_key(RoomSecrets.generate().room_key)
    sealed = sc.seal(key, {"kind": "offer"}, now=1000.0)
    assert sc.open_envelope(key, sealed, now=1010.0)["kind"] == "offer"
    with pytest.raises(sc.SignalError):
        sc.open_envelope(key, sealed, now=1000.0 + sc.MAX_AGE_SECONDS + 1)


def test_the_topic_derives_from_the_key_through_the_verifier() -> None:
    key, other = RoomSecrets.generate().room_key, RoomSecrets.generate().room_key
    topic = sc.topic(key)
    assert len(topic) == 43 and topic == sc.topic(key) != sc.topic(other)
    # The rendezvous checks a host's registration: the verifier names the topic it is for.
    assert sc.topic_of_verifier(sc.turn_verifier(sc.turn_proof(key))) == topic
    # The same figure the web app derives (web/src/join/signalCrypto.test.ts), from the key 00 01 02 … 1f.
    assert sc.topic("AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8") == TOPIC_OF_SAMPLE_KEY


def test_proof_is_raw_rs_and_binds_fingerprints() -> None:
    room = RoomSecrets.generate()
    nonce = os.urandom(sc.GUEST_NONCE_BYTES)
    # Enough signatures that some have a short r or s (about 1 in 120), which must still be 64 bytes.
    for _ in range(300):
        message = sc.proof_message(nonce, FP_A, FP_B)
        signature = sc.sign_proof(room.host_private_key, message)
        assert len(signature) == 64
        assert sc.verify_proof(room.host_public_key, message, signature)
    assert not sc.verify_proof(room.host_public_key, sc.proof_message(nonce, FP_B, FP_A), signature)
    assert not sc.verify_proof(RoomSecrets.generate().host_public_key, message, signature)
    assert not sc.verify_proof(room.host_public_key, message, signature[:63])
    assert not sc.verify_proof("garbage", message, signature)


def test_sdp_fingerprint() -> None:
    sdp = f"v=0\r\nm=application 9 UDP/DTLS/SCTP webrtc-datachannel\r\na=fingerprint:sha-256 {FP_B}\r\n"
    assert sc.sdp_fingerprint(sdp) == FP_B.upper()
    with pytest.raises(sc.SignalError):
        sc.sdp_fingerprint("v=0\r\n")


def test_a_refusal_tells_only_the_sender_of_a_wrong_key_and_only_from_the_host() -> None:
    room, other = RoomSecrets.generate(), RoomSecrets.generate()
    wrong = sc.seal(sc.signal_key(other.room_key), {"kind": "offer"})
    with pytest.raises(sc.SealedForAnotherKey):
        sc.open_envelope(sc.signal_key(room.room_key), wrong)
    stale = sc.seal(sc.signal_key(room.room_key), {"kind": "offer"}, now=0)
    with pytest.raises(sc.SignalError) as raised:
        sc.open_envelope(sc.signal_key(room.room_key), stale)
    assert not isinstance(raised.value, sc.SealedForAnotherKey)
    refusal = sc.refusal(room.host_private_key, wrong)
    assert sc.refuses(room.host_public_key, refusal, wrong)
    assert not sc.refuses(room.host_public_key, refusal, stale)
    assert not sc.refuses(other.host_public_key, refusal, wrong)
    assert not sc.refuses(room.host_public_key, sc.refusal(other.host_private_key, wrong), wrong)
    assert not sc.refuses(room.host_public_key, "refused.!!.??", wrong)
    with pytest.raises(sc.SignalError):
        sc.open_envelope(sc.signal_key(room.room_key), refusal)


def test_turn_proof_matches_the_browser_and_its_verifier_reveals_neither() -> None:
    key = "AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8"  # bytes 00..1f, as in signalCrypto.test.ts
    proof = sc.turn_proof(key)
    assert proof == "OIzoXg5yZYyJCKJRDFfWvXDp1kLt_2dfJZBJopztWLg"
    verifier = sc.turn_verifier(proof)
    assert len(verifier) == 43 and verifier not in (proof, key)
    assert proof != sc.turn_proof(RoomSecrets.generate().room_key)
    assert b64url(sc.signal_key(key)) != proof, "the TURN proof is not the signalling key"
