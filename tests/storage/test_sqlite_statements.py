"""Issue 13 item 4: a league's hand costs the SQLite store few statements (each one hands the
interpreter's lock to the dealer's thread and back): the hand and its seats in two, the next
hand's in-flight mark in one (its own path inside a batch), and what they write is what a store
outside a batch writes."""

from __future__ import annotations

from pathlib import Path

import pytest

from arena.storage import tokens as tokens_module
from arena.storage.errors import HandConflict, InvalidRecord
from arena.storage.sqlite import SqliteStore
from arena.storage.sqlstore import SqlStore
from tests.storage.test_store import make_hand


@pytest.fixture(autouse=True)
def cheap_token_hash(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(tokens_module, "_SCRYPT_N", 2**8)


def _store(path: Path) -> tuple[SqliteStore, int]:
    store = SqliteStore(path)
    for bot in ("alice", "bob", "carol"):
        store.register_bot(bot, f"token-of-{bot}")
    league = store.create_league("L", 'games = ["FT"]\n')
    match = store.create_match(league.league_id, seat_bots=("carol", "alice", "bob"),
                               games=("FT",), is_duplicate=True)
    return store, match.match_id


def test_a_hand_and_the_next_mark_take_three_statements_and_write_what_the_generic_path_does(
        tmp_path: Path) -> None:
    fast, match_id = _store(tmp_path / "fast.sqlite")
    generic, generic_id = _store(tmp_path / "generic.sqlite")
    assert match_id == generic_id
    statements: list[str] = []
    fast._connection.set_trace_callback(statements.append)
    hands = [make_hand(match_id, n, ("bob", "carol", "alice"), (30, -10, -20), copy_index=n % 2)
             for n in (1, 2)]
    with fast.batch():
        for hand in hands:
            assert fast.record_hand(hand)
            fast.mark_in_flight(match_id, hand.copy_index, hand.hand_number + 1)
    writes = [s for s in statements if not s.startswith(("SAVEPOINT", "RELEASE", "BEGIN", "COMMIT"))]
    assert len(writes) == 3 * len(hands), writes
    fast._connection.set_trace_callback(None)
    for hand in hands:
        assert SqlStore.record_hand(generic, hand)
        SqlStore.mark_in_flight(generic, match_id, hand.copy_index, hand.hand_number + 1)
    assert fast.completed_hands(match_id) == generic.completed_hands(match_id) == hands
    assert fast.hand_in_flight(match_id, 1) == generic.hand_in_flight(match_id, 1) == 2
    assert fast.fault_counts(1) == generic.fault_counts(1)
    # What the fast path does not write, the generic path refuses or finds, as before.
    assert not fast.record_hand(hands[0])
    with pytest.raises(HandConflict):
        fast.record_hand(make_hand(match_id, 1, ("bob", "carol", "alice"), (0, 0, 0), copy_index=1))
    with pytest.raises(InvalidRecord, match="not seated"):
        fast.record_hand(make_hand(match_id, 3, ("bob", "dave", "alice"), (30, -10, -20)))
    fast.abort_match(match_id)
    with pytest.raises(InvalidRecord, match="no more hands"):
        fast.record_hand(make_hand(match_id, 3, ("bob", "carol", "alice"), (30, -10, -20)))
    fast.close()
    generic.close()


def test_a_refused_write_in_a_batch_leaves_the_others_written(tmp_path: Path) -> None:
    """Each write of a batch keeps a savepoint of its own: one the store refuses is rolled back
    alone, and the batch's other writes are committed."""
    _store(tmp_path / "seed.sqlite")[0].close()
    match_id = 1
    hand = make_hand(match_id, 1, ("bob", "carol", "alice"), (30, -10, -20))
    second = make_hand(match_id, 2, ("bob", "carol", "alice"), (30, -10, -20))
    kept = SqliteStore(tmp_path / "seed.sqlite")
    with kept.batch():
        assert kept.record_hand(hand)
        assert kept.record_hand(second)
        with pytest.raises(InvalidRecord, match="not seated"):
            kept.record_hand(make_hand(match_id, 3, ("bob", "dave", "alice"), (30, -10, -20)))
    assert kept.completed_hands(match_id) == [hand, second]
    kept.close()
