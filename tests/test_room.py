"""The sans-I/O Room: frames in, effects out, no sockets."""

from canvasrelay.core.effects import Send
from canvasrelay.core.peer import Peer, RoomInfo
from canvasrelay.core.room import Room
from canvasrelay.protocol.access import Access
from canvasrelay.protocol.core import ErrorFrame, Pong, Welcome


def make_room() -> Room:
    return Room(RoomInfo(room_id="r", host_public_key="h", cwd="/home/ada/secret-client/p"))


def test_join_sends_welcome_first() -> None:
    room = make_room()
    effects = room.join(Peer("host-1", Access.HOST))
    assert isinstance(effects[0], Send) and isinstance(effects[0].frame, Welcome)
    assert effects[0].frame.access == "host" and effects[0].to == "host-1"


def test_ping_is_answered_and_bad_frames_get_errors() -> None:
    room = make_room()
    room.join(Peer("g", Access.VIEW))
    assert room.receive("g", '{"t":"ping"}') == [Send("g", Pong())]
    [effect] = room.receive("g", "{")
    assert isinstance(effect, Send) and isinstance(effect.frame, ErrorFrame)
    assert "not JSON" in effect.frame.message


def test_auth_after_joining_is_not_accepted() -> None:
    room = make_room()
    room.join(Peer("h", Access.HOST))
    [effect] = room.receive("h", '{"t":"auth","token":"x"}')
    assert isinstance(effect, Send) and isinstance(effect.frame, ErrorFrame)
    assert effect.frame.ref == "auth"


def test_unknown_peer_and_leave() -> None:
    room = make_room()
    assert room.receive("ghost", '{"t":"ping"}') == []
    room.join(Peer("h", Access.HOST))
    room.leave("h")
    assert "h" not in room.peers


def test_only_the_host_is_told_where_the_project_lives() -> None:
    room = make_room()
    host = room.welcome(Peer("host-1", Access.HOST))
    assert host.cwd == "/home/ada/secret-client/p" and host.project == "p"
    for access in (Access.VIEW, Access.EDIT, Access.TRUSTED):
        guest = room.welcome(Peer("guest-x", access))
        assert guest.project == "p" and guest.cwd is None
        assert "secret-client" not in guest.model_dump_json()
