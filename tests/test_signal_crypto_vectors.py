"""The signalling crypto both sides run, through one vector file Python made
(`tests/vectors/signal_crypto/vectors.json`, checked in the browser's code by
web/src/join/signalCrypto.test.ts through WebCrypto and through its pure-JS fallback): the file
regenerates identically, and Python's own functions accept every vector in it."""

from __future__ import annotations

from typing import Any

from canvasrelay.core.guest_identity import guest_id_of, proven_guest
from canvasrelay.protocol import signal_crypto
from canvasrelay.protocol.encoding import b64url_decode
from canvasrelay.protocol.guests import GuestJoin
from tests.vector_files import read, regenerates_identically


def vectors() -> dict[str, Any]:
    return read("signal_crypto", "vectors.json")


def test_the_vectors_regenerate_identically() -> None:
    assert regenerates_identically("signal_crypto", "vectors.json")


def test_python_opens_every_envelope_at_the_time_it_was_sealed() -> None:
    file = vectors()
    key = signal_crypto.signal_key(file["roomKey"])
    assert signal_crypto.turn_proof(file["roomKey"]) == file["turnProof"]
    assert signal_crypto.topic(file["roomKey"]) == file["topic"]
    for vector in file["envelopes"]:
        assert signal_crypto.open_envelope(key, vector["envelope"], now=file["sealedAt"]) == vector["message"]


def test_python_verifies_the_hubs_proofs_with_either_half_of_s() -> None:
    proofs = vectors()["proofs"]
    assert [proof["name"] for proof in proofs] == ["a low S", "a high S"]
    for proof in proofs:
        nonce, guest, hub = b64url_decode(proof["nonce"]), proof["guestFingerprint"], proof["hubFingerprint"]
        message = signal_crypto.proof_message(nonce, guest, hub)
        assert signal_crypto.verify_proof(proof["hostKey"], message, b64url_decode(proof["signature"]))


def test_the_hub_proves_each_guest_by_its_join() -> None:
    for vector in vectors()["joins"]:
        join = GuestJoin(key=vector["key"], signature=vector["signature"], name=vector["name"], color="#4dabf7")
        challenge, guest, hub = b64url_decode(vector["challenge"]), vector["guestFingerprint"], vector["hubFingerprint"]
        assert proven_guest(join, challenge, guest, hub) == guest_id_of(vector["key"])
        assert proven_guest(join, challenge, hub, guest) is None
