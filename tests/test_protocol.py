"""Every frame model with good and bad examples; the generated TypeScript is current."""

import json
from pathlib import Path
from types import ModuleType
from typing import Literal

import pytest

from canvasrelay.protocol import (
    CLIENT_FRAMES,
    MAX_FRAME_BYTES,
    SERVER_FRAMES,
    ClientFrame,
    FrameError,
    parse_client_frame,
    typescript,
)
from canvasrelay.protocol.access import Action
from canvasrelay.protocol.base import MAX_DEPTH, MAX_ELEMENTS, check_structure, client_frame, frame_type
from canvasrelay.protocol.core import Auth, Ping
from canvasrelay.protocol.signal_messages import GuestOffer, SignalMessage
from canvasrelay.protocol.typescript import generate
from canvasrelay.server.http.api import typescript as api_typescript


def test_good_frames_parse() -> None:
    assert isinstance(parse_client_frame('{"t":"ping"}'), Ping)
    auth = parse_client_frame(json.dumps({"t": "auth", "token": "x" * 43}))
    assert isinstance(auth, Auth) and auth.token == "x" * 43


@pytest.mark.parametrize(
    ("raw", "fragment"),
    [
        ("not json", "not JSON"),
        ("[1,2]", "JSON object"),
        ("{}", "no string field 't'"),
        ('{"t": 5}', "no string field 't'"),
        ('{"t": "nope"}', "unknown frame type 'nope'"),
        ('{"t": "auth"}', "token"),
        ('{"t": "auth", "token": 5}', "token"),
        ('{"t": "auth", "token": "a", "extra": 1}', "extra"),
        (json.dumps({"t": "auth", "token": "a" * 1000}), "token"),
        (b"\xff\xfe", "not UTF-8"),
        ('{"t": "ping", "t2": 1}', "t2"),
    ],
)
def test_bad_frames_name_what_was_wrong(raw: str | bytes, fragment: str) -> None:
    with pytest.raises(FrameError, match=fragment):
        parse_client_frame(raw)


def test_oversized_frame_is_refused_before_parsing() -> None:
    raw = json.dumps({"t": "ping", "pad": "x" * MAX_FRAME_BYTES})
    with pytest.raises(FrameError, match="too large"):
        parse_client_frame(raw)


@pytest.mark.parametrize("depth", [MAX_DEPTH + 1, 1000, 5000, 20_000])
@pytest.mark.parametrize("shape", ["[{}]", '{{"a":{}}}', '{{"t":"awareness","state":{}}}'])
def test_deep_nesting_is_refused_before_parsing(depth: int, shape: str) -> None:
    raw = "x"
    for _ in range(depth):
        raw = shape.format(raw) if "{}" in shape else shape.replace("{}", raw)
    raw = raw.replace("x", "1")
    with pytest.raises(FrameError, match=r"too deep|too many values"):
        parse_client_frame(raw)


def test_structure_is_counted_outside_strings_only() -> None:
    deep_text = json.dumps({"t": "auth", "token": "[{" * 100 + '\\"],' * 3000})
    with pytest.raises(FrameError, match="token"):
        parse_client_frame(deep_text)
    check_structure(b"[" * MAX_DEPTH + b"]" * MAX_DEPTH)
    with pytest.raises(FrameError, match="too many values"):
        parse_client_frame("[" + "0," * MAX_ELEMENTS + "0]")
    with pytest.raises(FrameError, match="not JSON"):
        parse_client_frame("[" * 100 + "}" * 100)
    assert frame_type('{"t":"x-boom","a":[1]}') == "x-boom" and frame_type("[" * 5000) == "frame"


def test_every_registered_client_frame_validates_its_own_type_tag() -> None:
    for name, model in CLIENT_FRAMES.items():
        with pytest.raises(FrameError):
            parse_client_frame(json.dumps({"t": name, "unexpected-field": True}))
        assert model.model_fields["t"].default == name


def test_server_frames_serialise_with_camel_case() -> None:
    welcome = SERVER_FRAMES["welcome"](
        room_id="r", host_public_key="h", project="x", cwd="/x", access="host", peer_id="host-1"
    )
    data = json.loads(welcome.model_dump_json(by_alias=True))
    assert data["roomId"] == "r" and data["hostPublicKey"] == "h" and data["t"] == "welcome"


@pytest.mark.parametrize("generator", [typescript, api_typescript], ids=["frames", "http-api"])
def test_generated_typescript_is_current(generator: ModuleType) -> None:
    committed = Path(generator.DEFAULT_OUT).read_text(encoding="utf-8")
    assert committed == generator.generate(), f"run: python -m {generator.__name__}"


def test_generated_typescript_lists_every_frame() -> None:
    text = generate()
    for model in (*CLIENT_FRAMES.values(), *SERVER_FRAMES.values()):
        assert f"export interface {model.__name__} " in text


def test_generated_typescript_has_the_signal_messages_as_sent() -> None:
    """The guest's offer and question and the hub's replies, with the field names the other end reads."""
    text = generate()
    for model in SignalMessage.__subclasses__():
        assert f"export interface {model.__name__} " in text
    offer = text.split("export interface GuestOffer {\n", 1)[1].split("}", 1)[0]
    # The web's guest seals an offer with the fields the Python guest seals: `from`, not `from_`.
    sealed = json.loads(GuestOffer(from_="c", sdp="s", nonce="n").model_dump_json(by_alias=True))
    assert (
        [line.split(":")[0].strip() for line in offer.splitlines()] == list(sealed) == ["kind", "from", "sdp", "nonce"]
    )
    assert "export type GuestMessage = AboutAsk | GuestOffer;" in text
    assert "export type HubReply = HubAnswer | RoomAbout | Withdrawn;" in text


def test_a_client_frame_without_a_declared_action_cannot_be_registered() -> None:
    # A frame that forgot its action must not fail open (as READ, which every guest may do).
    with pytest.raises(TypeError, match="action"):

        @client_frame
        class Forgetful(ClientFrame):
            t: Literal["x-forgetful"] = "x-forgetful"

    assert "x-forgetful" not in CLIENT_FRAMES


def test_an_inherited_action_does_not_count_as_declared() -> None:
    with pytest.raises(TypeError, match="action"):

        @client_frame
        class Borrowed(Auth):
            t: Literal["x-borrowed"] = "x-borrowed"  # type: ignore[assignment]

    assert "x-borrowed" not in CLIENT_FRAMES


def test_every_registered_client_frame_declares_its_action() -> None:
    assert all(isinstance(model.__dict__.get("action"), Action) for model in CLIENT_FRAMES.values())
