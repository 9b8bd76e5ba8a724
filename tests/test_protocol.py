"""Every frame model with good and bad examples; the generated TypeScript is current."""

import json
from pathlib import Path

import pytest

from canvasrelay.protocol import CLIENT_FRAMES, MAX_FRAME_BYTES, SERVER_FRAMES, FrameError, parse_client_frame
from canvasrelay.protocol.core import Auth, Ping
from canvasrelay.protocol.typescript import DEFAULT_OUT, generate


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
        (b"\xff\xfe", "not JSON"),
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


def test_every_registered_client_frame_validates_its_own_type_tag() -> None:
    for name, model in CLIENT_FRAMES.items():
        with pytest.raises(FrameError):
            parse_client_frame(json.dumps({"t": name, "unexpected-field": True}))
        assert model.model_fields["t"].default == name


def test_server_frames_serialise_with_camel_case() -> None:
    welcome = SERVER_FRAMES["welcome"](
        room_id="r", key="k", host_public_key="h", project="x", cwd="/x", access="host", peer_id="host-1"
    )
    data = json.loads(welcome.model_dump_json(by_alias=True))
    assert data["roomId"] == "r" and data["hostPublicKey"] == "h" and data["t"] == "welcome"


def test_generated_typescript_is_current() -> None:
    committed = Path(DEFAULT_OUT).read_text(encoding="utf-8")
    assert committed == generate(), "run: python -m canvasrelay.protocol.typescript"


def test_generated_typescript_lists_every_frame() -> None:
    text = generate()
    for model in (*CLIENT_FRAMES.values(), *SERVER_FRAMES.values()):
        assert f"export interface {model.__name__} " in text
