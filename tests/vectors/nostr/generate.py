"""Writes events.json: Nostr events signed by canvas's Python side (coincurve), for the browser's
side (web/src/join/nostrEvent.test.ts) to check, and events each side must refuse.

Run: .venv/bin/python tests/vectors/nostr/generate.py. BIP-340 signing is deterministic once its
auxiliary randomness is given, so each vector names its secret key and `aux`: the browser must
verify Python's event and also sign the same one byte for byte, which is Python verifying the
browser's signature. tests/test_nostr_vectors.py checks this file regenerates identically.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

import coincurve

from canvasrelay.net.nostr_event import SIGNAL_KIND, NostrKey

HERE = Path(__file__).parent
CREATED_AT = 1_767_225_600
"""2026-01-01: a fixed time, so the file is the same at every run."""


def _secret(name: str) -> bytes:
    return hashlib.sha256(f"canvas nostr vector {name}".encode()).digest()


def _signed(name: str, tags: list[list[str]], content: str) -> dict[str, Any]:
    key = NostrKey(_secret(name))
    aux = hashlib.sha256(f"aux {name}".encode()).digest()
    event = key.sign(SIGNAL_KIND, tags, content, created_at=CREATED_AT, aux=aux)
    return {"name": name, "secret": key.secret.hex(), "aux": aux.hex(), "event": event}


TOPIC = "Qm9hcmQtdG9waWMtb2YtdGhlLWludml0YXRpb24tMDAwMDAwMA"


def signed() -> list[dict[str, Any]]:
    guest = NostrKey(_secret("guest")).public
    return [
        _signed("an offer on a topic", [["x", TOPIC]], "bm9uY2UtYW5kLWNpcGhlcnRleHQtb2YtdGhlLWVudmVsb3Bl"),
        _signed("an answer to a page's key", [["p", guest]], "YW5zd2Vy"),
        _signed("text beyond ASCII", [["x", TOPIC]], "Grüße 😀✨ 界 — ok"),
        _signed(
            "characters JSON escapes",
            [["x", 'quote " backslash \\']],
            'line\nfeed\ttab\rreturn "quoted" \\ \b\f \x00\x01\x1f \x7f \u2028\u2029 </script>',
        ),
        _signed("nothing", [], ""),
        _signed("several tags", [["x", TOPIC], ["p", guest], ["t", "one", "two"]], "x"),
    ]


def refused(good: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Events that must not pass, each with what is wrong with it."""
    offer = good[0]["event"]
    answer = good[1]["event"]
    flipped = ("0" if offer["sig"][0] != "0" else "1") + offer["sig"][1:]
    # A valid signature over this very id, by a key other than the one the event names.
    stranger = coincurve.PrivateKey(_secret("stranger"))
    forged = stranger.sign_schnorr(bytes.fromhex(offer["id"]), hashlib.sha256(b"aux stranger").digest()).hex()
    return [
        {"name": "content changed after signing", "event": {**offer, "content": offer["content"] + "A"}},
        {"name": "a tag changed after signing", "event": {**offer, "tags": [["x", TOPIC + "A"]]}},
        {"name": "created_at changed after signing", "event": {**offer, "created_at": CREATED_AT + 1}},
        {"name": "an id that is not the event's hash", "event": {**offer, "id": answer["id"]}},
        {"name": "a signature changed in one digit", "event": {**offer, "sig": flipped}},
        {"name": "another event's signature", "event": {**offer, "sig": answer["sig"]}},
        {"name": "another key's pubkey", "event": {**offer, "pubkey": answer["pubkey"]}},
        {"name": "a signature by another key over this id", "event": {**offer, "sig": forged}},
        {"name": "a pubkey in upper case", "event": {**offer, "pubkey": offer["pubkey"].upper()}},
        {"name": "no signature", "event": {k: v for k, v in offer.items() if k != "sig"}},
        {"name": "a kind that is text", "event": {**offer, "kind": "25050"}},
        {"name": "content that is no text", "event": {**offer, "content": 7}},
        {"name": "too many tags", "event": {**offer, "tags": [["x", TOPIC]] * 9}},
        {"name": "a tag that is no list of text", "event": {**offer, "tags": [["x", 1]]}},
        {"name": "a lone surrogate in the content", "event": {**offer, "content": "\ud800"}},
        {"name": "not an object", "event": [offer]},
    ]


def render(vectors: dict[str, Any]) -> str:
    # ASCII only: a lone surrogate has no UTF-8 form, so it stays escaped in the file.
    return json.dumps(vectors, indent=1, ensure_ascii=True) + "\n"


def vectors() -> dict[str, Any]:
    good = signed()
    return {"signed": good, "refused": refused(good)}


if __name__ == "__main__":
    (HERE / "events.json").write_text(render(vectors()), encoding="utf-8")
