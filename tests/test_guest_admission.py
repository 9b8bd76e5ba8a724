"""Who gets a handshake and who a place in the room, decided without sockets, on a fake clock."""

from __future__ import annotations

from canvasrelay.core.guest_admission import (
    HANDSHAKES_PER_INVITE,
    HANDSHAKES_PER_SENDER,
    MAX_HANDSHAKES,
    SEEN_WINDOW,
    GuestAdmission,
    Handshake,
)


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def offer(n: int, invite: str = "open", sender: str = "addr-1") -> tuple[bytes, Handshake]:
    return n.to_bytes(16, "big"), Handshake(invite, (f"fp-{n}", f"conn:{n}"), sender)


def start(admission: GuestAdmission, n: int, invite: str = "open", sender: str = "addr-1") -> str | None:
    nonce, handshake = offer(n, invite, sender)
    refusal = admission.offer_refusal(nonce, handshake)
    if refusal is None:
        admission.handshakes[n] = handshake
    return refusal


def test_a_replayed_offer_is_refused_until_its_nonce_is_forgotten() -> None:
    clock = Clock()
    admission = GuestAdmission(clock=clock)
    nonce, handshake = offer(1)
    assert admission.offer_refusal(nonce, handshake) is None
    assert admission.offer_refusal(nonce, handshake) == "a replayed offer"
    clock.now += SEEN_WINDOW + 1
    assert admission.offer_refusal(nonce, handshake) is None


def test_a_copy_of_an_offer_sealed_anew_holds_no_second_handshake() -> None:
    admission = GuestAdmission(clock=Clock())
    assert start(admission, 1) is None
    copy = Handshake("open", ("fp-1", "conn:other"), "addr-2")
    assert admission.offer_refusal(b"another nonce....", copy) == "a handshake from the same source is under way"


def test_one_sender_one_invite_and_the_hub_each_have_a_bound_on_handshakes_under_way() -> None:
    admission = GuestAdmission(clock=Clock())
    for n in range(HANDSHAKES_PER_SENDER):
        assert start(admission, n) is None
    assert start(admission, 99) == "too many handshakes from one sender at once"
    for n in range(HANDSHAKES_PER_SENDER, HANDSHAKES_PER_INVITE):
        assert start(admission, n, sender=f"addr-{n}") is None
    assert start(admission, 100, sender="addr-new") == "too many handshakes at once on one invitation"
    for n in range(HANDSHAKES_PER_INVITE, MAX_HANDSHAKES):
        assert start(admission, n, invite="ada", sender=f"addr-{n}") is None
    assert start(admission, 101, invite="bob", sender="addr-bob") == "too many handshakes at once"
    admission.handshakes.pop(0)
    assert start(admission, 102, invite="bob", sender="addr-bob") is None


def test_offers_too_fast_from_one_sender_are_refused_and_the_bucket_refills_with_time() -> None:
    clock = Clock()
    admission = GuestAdmission(clock=clock)
    refusals = []
    for n in range(40):
        refusals.append(start(admission, n, sender="addr-fast"))
        admission.handshakes.clear()
    assert "too many offers a second from one sender" in refusals
    clock.now += 60
    assert start(admission, 1000, sender="addr-fast") is None


def test_a_full_room_refuses_a_newcomer_unless_someone_away_gives_way_the_longest_away_first() -> None:
    clock = Clock()
    admission = GuestAdmission(max_guests=3, clock=clock)
    assert admission.room_refusal(arriving=True, present=2) is None
    assert admission.room_refusal(arriving=True, present=3) == "the room is full (3 guests)"
    assert admission.room_refusal(arriving=False, present=3) is None
    admission.went_away("ann")
    clock.now += 5
    admission.went_away("bob")
    assert admission.room_refusal(arriving=True, present=3) is None
    assert admission.gives_way(arriving=True, present=3) == "ann"
    assert admission.gives_way(arriving=True, present=2) is None
    admission.returned("ann")
    assert admission.gives_way(arriving=True, present=3) == "bob"


def test_one_identity_joining_too_often_is_slowed_and_others_are_not() -> None:
    clock = Clock()
    admission = GuestAdmission(clock=clock)
    joins = [admission.may_join_now("ann") for _ in range(10)]
    assert joins.count(True) == 6 and not joins[-1]
    assert admission.may_join_now("bob")
    clock.now += 2
    assert admission.may_join_now("ann")
