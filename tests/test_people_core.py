"""The sans-I/O core of guests as people: invites, identities proven by signature, and the room's record."""

from __future__ import annotations

from cryptography.hazmat.primitives.asymmetric import ec

from canvasrelay.client.identity import public_key
from canvasrelay.core.audit import MAX_AGE_S, Audit
from canvasrelay.core.guest_identity import MAX_IDENTITIES, Identities, guest_id_of, join_message, proven_guest
from canvasrelay.core.invites import (
    EXPIRED,
    OPEN_ID,
    TURNED_OFF,
    USED,
    WITHDRAWN,
    Invites,
    link_room,
    new_invite_id,
)
from canvasrelay.core.peer import Peer
from canvasrelay.protocol import signal_crypto
from canvasrelay.protocol.access import Access
from canvasrelay.protocol.board import BoardUpdate
from canvasrelay.protocol.encoding import b64url
from canvasrelay.protocol.guests import GuestJoin
from canvasrelay.protocol.terminals import TermInput
from canvasrelay.server.guests.people_store import INVITE_ROWS
from tests.test_rate_limit import Clock

FP_GUEST, FP_HUB = ":".join(["AA"] * 32), ":".join(["BB"] * 32)


def test_an_invite_stands_until_revoked_expired_or_spent_and_says_why() -> None:
    clock = Clock()
    invites = Invites(clock)
    ada = invites.create("Ada", "edit")
    assert ada.room == link_room(ada.secret) and ada.room != invites.open.room
    assert invites.admit(ada.id, "g1") == ada
    invites.revoke(ada.id)
    assert invites.admit(ada.id, "g1") == WITHDRAWN
    assert ada.id in {i.id for i in invites.listening()}, "its link is still answered, to say so"

    brief = invites.create("Bo", "view", expires_in_s=60)
    clock.now += 60
    assert invites.admit(brief.id, "g2") == EXPIRED

    once = invites.create("Cy", "view", single_use=True)
    assert invites.admit(once.id, "g3") != USED
    assert invites.admit(once.id, "g3") != USED, "the same person may come back"
    assert invites.admit(once.id, "g4") == USED


def test_the_open_link_turns_off_and_rotates_without_touching_named_invites() -> None:
    invites = Invites(Clock())
    named = invites.create("Ada", "edit")
    old = invites.open
    invites.set_open(False)
    assert invites.admit(OPEN_ID, "g") == TURNED_OFF and invites.admit(named.id, "g2") == named
    invites.set_open(True)
    invites.rotate_open()
    assert invites.open.secret != old.secret
    retired = [i for i in invites if i.secret == old.secret]
    assert len(retired) == 1 and retired[0].refusal(invites.clock()) == WITHDRAWN
    assert invites.admit(named.id, "g2") == named


def test_invites_survive_a_round_trip_through_their_json() -> None:
    invites = Invites(Clock())
    invites.create("Ada", "trusted", expires_in_s=10, single_use=True)
    again = Invites(Clock(), INVITE_ROWS.validate_json(INVITE_ROWS.dump_json(list(invites))))
    assert list(again) == list(invites)


def test_a_join_is_proven_by_the_guests_own_key_over_this_channels_challenge() -> None:
    key = ec.generate_private_key(ec.SECP256R1())
    challenge = b"c" * 32
    signature = signal_crypto.sign_proof(key, join_message(challenge, FP_GUEST, FP_HUB))
    join = GuestJoin(key=public_key(key), signature=b64url(signature), name="Ada", color="#112233")
    assert proven_guest(join, challenge, FP_GUEST, FP_HUB) == guest_id_of(public_key(key))
    assert proven_guest(join, b"d" * 32, FP_GUEST, FP_HUB) is None, "another channel's challenge"
    assert proven_guest(join, challenge, FP_HUB, FP_GUEST) is None, "other fingerprints"
    thief = ec.generate_private_key(ec.SECP256R1())
    forged = GuestJoin(
        key=public_key(key),
        signature=b64url(signal_crypto.sign_proof(thief, join_message(challenge, FP_GUEST, FP_HUB))),
        name="Eve",
        color="#000000",
    )
    assert proven_guest(forged, challenge, FP_GUEST, FP_HUB) is None, "a key it does not hold"


def test_identities_are_bounded_but_a_blocked_one_is_kept() -> None:
    clock = Clock()
    people = Identities(clock)
    people.seen("blocked", "k", "Eve", "#000000", OPEN_ID)
    people.block("blocked")
    for i in range(MAX_IDENTITIES + 5):
        clock.now += 1
        people.seen(f"g{i}", "k", "Guest", "#112233", OPEN_ID)
    assert len(people.known) == MAX_IDENTITIES and people.is_blocked("blocked")
    assert people.get("g0") is None, "the one seen longest ago went first"


def test_the_record_counts_typing_and_board_edits_per_minute_and_pages_newest_first() -> None:
    clock = Clock()
    audit = Audit(clock)
    audit.things = lambda ref: {"t1": "Terminal 1"}.get(ref, "")
    ada = Peer(id="guest-ada", access=Access.EDIT, name="Ada")
    audit.joined(ada)
    for _ in range(3):
        audit.observe(ada, TermInput(id="t1", data="ls\r"), asked=False)
        audit.observe(ada, BoardUpdate(update="AAAA"), asked=False)
    clock.now += 60
    audit.tick()
    entries, more = audit.page(None, "ada", 10)
    assert [(e.action, e.detail) for e in reversed(entries)] == [
        ("joined", "with edit access"),
        ("typed in a terminal", "9 bytes in Terminal 1"),
        ("edited the board", "3 edits"),
    ] and not more
    assert "ls" not in str(entries), "never the keystrokes"
    newest, more = audit.page(None, None, 1)
    older, _ = audit.page(newest[0].seq, None, 5)
    assert more and [e.seq for e in older] == sorted((e.seq for e in older), reverse=True)
    clock.now += MAX_AGE_S + 61
    assert audit.prune() and not audit.entries, "bounded by age"


def test_an_invite_id_never_reads_as_an_option() -> None:
    """`canvas invite --revoke ID` takes a leading dash for an option; one id in 64 would start
    with one, so 2,000 draws without the guard would all but surely show it."""
    ids = [new_invite_id() for _ in range(2000)]
    assert not [i for i in ids if i.startswith("-")]
    assert len(set(ids)) == len(ids) and all(len(i) == 12 for i in ids)
