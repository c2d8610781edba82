"""Faults per seat and hand in the results store: timeouts, absent decisions, rejected replies,
disconnects, summed per bot and match (issue 14 and issue 10 item 4)."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

import pytest

import arena.storage.tokens as tokens_module
from arena.league.leaderboard import faults_csv, faults_per_bot, render_faults
from arena.storage.store import (
    FaultCounts,
    LeftOutHand,
    ResultsStore,
    SeatResult,
    SqliteStore,
    VoidHand,
    open_store,
)
from tests.pgserver import PostgresServer
from tests.storage.test_store import T0, make_hand, new_match


@pytest.fixture(autouse=True)
def cheap_token_hash(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(tokens_module, "_SCRYPT_N", 2**8)


def test_faults_are_stored_per_seat_and_summed_per_bot_and_match(tmp_path: Path) -> None:
    with SqliteStore(tmp_path / "r.sqlite") as store:
        store.register_bot("alice", "a" * 20)
        store.register_bot("bob", "b" * 20)
        first, second = new_match(store), new_match(store)
        hand = make_hand(first.match_id, 1, ("alice", "bob"), (40, -40))
        faulty = replace(hand, seats=(hand.seats[0], SeatResult(1, "bob", -40, 1960, timeouts=1,
                                                                 absent_decisions=2, rejected_replies=3,
                                                                 disconnects=1, sdk_fallbacks=5)))
        assert store.record_hand(faulty)
        assert store.completed_hands(first.match_id) == [faulty]  # the counts round-trip
        assert store.record_hand(make_hand(first.match_id, 2, ("bob", "alice"), (5, -5)))
        later = make_hand(second.match_id, 1, ("alice", "bob"), (0, 0))
        assert store.record_hand(replace(later, seats=(replace(later.seats[0], rejected_replies=4),
                                                       later.seats[1])))
        league = store.list_leagues()[0].league_id
        faults = store.fault_counts(league)
    assert faults == [
        FaultCounts("alice", first.match_id, 2, 0, 0, 0, 0),
        FaultCounts("alice", second.match_id, 1, 0, 0, 4, 0),
        FaultCounts("bob", first.match_id, 2, 1, 2, 3, 1, 5),
        FaultCounts("bob", second.match_id, 1, 0, 0, 0, 0),
    ]
    assert faults_per_bot(faults) == {"alice": (2, 3, 0, 0, 4, 0, 0), "bob": (2, 3, 1, 2, 3, 5, 1)}
    table = render_faults(faults).splitlines()
    assert table[1].split() == ["bot", "matches", "hands", "timeouts", "absent", "rejected",
                                "fallbacks", "disconnects"]
    assert table[3].split() == ["alice", "2", "3", "0", "0", "4", "0", "0"]
    assert faults_csv(faults).splitlines()[3] == f"bob,{first.match_id},1,2,1,2,3,5,1"


def test_the_copies_of_a_duplicate_deal_set_count_as_matches(tmp_path: Path) -> None:
    """Before: the faults table's "matches" counted stored matches, one per deal set, while
    the schedule (and `league status`) count each copy."""
    with SqliteStore(tmp_path / "r.sqlite") as store:
        store.register_bot("alice", "a" * 20)
        store.register_bot("bob", "b" * 20)
        match = new_match(store, is_duplicate=True)
        for copy_index, bots in ((0, ("alice", "bob")), (1, ("bob", "alice"))):
            for number in (1, 2):
                assert store.record_hand(make_hand(match.match_id, number, bots, (3, -3),
                                                   copy_index=copy_index))
        faults = store.fault_counts(store.list_leagues()[0].league_id)
    assert [(f.bot, f.matches, f.hands) for f in faults] == [("alice", 2, 4), ("bob", 2, 4)]
    assert faults_per_bot(faults)["alice"][:2] == (2, 4)



@pytest.fixture(params=["sqlite", "postgresql"])
def any_store(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[ResultsStore]:
    if request.param == "sqlite":
        opened: ResultsStore = SqliteStore(tmp_path / "r.sqlite")
    else:
        server: PostgresServer = request.getfixturevalue("postgres")
        opened = open_store(server.new_database())
    try:
        for bot in ("alice", "bob"):
            opened.register_bot(bot, bot * 10)
        yield opened
    finally:
        opened.close()


def test_left_out_hands_are_the_other_copies_of_voided_deals(any_store: ResultsStore) -> None:
    """Both backends: a deal voided in copy 0 leaves copy 1's hand of it out (issue 39)."""
    store = any_store
    match = new_match(store, is_duplicate=True)
    for copy_index in (0, 1):
        assert store.record_hand(make_hand(match.match_id, 1, ("alice", "bob"), (5, -5),
                                           copy_index=copy_index))
    store.void_hand(VoidHand(match.match_id, 2, 0, "deal-2", "FT", 20, 1, "dealer shut down", "",
                             T0, T0))
    assert store.record_hand(make_hand(match.match_id, 2, ("bob", "alice"), (5, -5), copy_index=1))
    league = store.list_leagues()[0].league_id
    assert store.left_out_hands(league) == [
        LeftOutHand(match.match_id, 1, 2, "deal-2", "dealer shut down")]
    assert {(r.hand_number, r.copy_index) for r in store.iter_results(league)} == {(1, 0), (1, 1)}
