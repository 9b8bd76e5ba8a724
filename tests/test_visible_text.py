"""What the host reads before approving: the server's escapes, from the vectors the web app runs too."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from canvasrelay.protocol.visible_text import visible

VECTORS = json.loads((Path(__file__).parent / "vectors" / "visible_text.json").read_text(encoding="utf-8"))
CLASSES = {
    "ANSI and control characters",
    "bidi overrides and isolates",
    "zero-width and BOM",
    "line and paragraph separators",
    "tag characters",
    "variation selectors",
    "combining grapheme joiner",
    "Hangul fillers",
    "Mongolian and Khmer invisibles",
    "other default-ignorables",
    "ordinary text stays",
}


def test_the_vectors_cover_every_class() -> None:
    assert {vector["name"] for vector in VECTORS} == CLASSES


@pytest.mark.parametrize("vector", VECTORS, ids=[vector["name"] for vector in VECTORS])
def test_the_server_escapes_as_the_vectors_say(vector: dict[str, str | int]) -> None:
    assert visible(str(vector["text"])) == (vector["shown"], vector["escaped"])


def test_nothing_hidden_is_left_in_what_is_shown() -> None:
    for vector in VECTORS:
        shown, _ = visible(str(vector["shown"]))
        assert shown == vector["shown"]
