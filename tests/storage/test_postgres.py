"""What only the PostgreSQL store has to prove: exactly-once hands across lost connections and
concurrent processes, the same migrations, and clear errors without secrets."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import psycopg
import pytest

import arena.storage.tokens as tokens_module
from arena.storage.errors import HandConflict, InvalidRecord, SchemaTooNew, StoreError, StoreUnavailable
from arena.storage.migrations import LATEST_VERSION
from arena.storage.postgres import PostgresStore, _PostgresDb
from arena.storage.records import HandLuckRecord, MatchStatus
from tests.pgserver import PostgresServer
from tests.storage.test_store import make_hand


@pytest.fixture(autouse=True)
def cheap_token_hash(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(tokens_module, "_SCRYPT_N", 2**8)


def seated(url: str) -> tuple[PostgresStore, int]:
    store = PostgresStore(url)
    store.register_bot("alice", "token-a")
    store.register_bot("bob", "token-b")
    league = store.create_league("L", "")
    return store, store.create_match(league.league_id, seat_bots=("alice", "bob"), games=("FT",)).match_id


def count(url: str, sql: str) -> int:
    with psycopg.connect(url) as db:
        row = db.execute(sql).fetchone()  # type: ignore[arg-type]
        assert row is not None
        return int(row[0])


def test_a_cut_connection_is_replaced_and_the_hand_recorded_once(postgres: PostgresServer) -> None:
    url = postgres.new_database()
    store, match_id = seated(url)
    assert store.record_hand(make_hand(match_id, 1, ("alice", "bob"), (10, -10)))
    with psycopg.connect(url, autocommit=True) as admin:
        admin.execute("SELECT pg_terminate_backend(%s)", (store.backend_pid(),))
    assert store.record_hand(make_hand(match_id, 2, ("alice", "bob"), (-5, 5)))  # reconnected
    assert store.record_hand(make_hand(match_id, 2, ("alice", "bob"), (-5, 5))) is False
    assert count(url, "SELECT COUNT(*) FROM hands") == 2
    assert count(url, "SELECT COUNT(*) FROM hand_seats") == 4
    store.close()


class LosesTheFirstAck(PostgresStore):
    """The commit reaches the server, the reply does not: the caller sees a lost connection."""

    lost = 0

    @contextmanager
    def transaction(self, *, write: bool) -> Iterator[_PostgresDb]:
        with super().transaction(write=write) as db:
            yield db
        if write and self.lost == 0:
            self.lost += 1
            raise StoreUnavailable("connection lost after COMMIT was sent")


def test_a_retried_commit_after_a_lost_reply_never_duplicates_a_hand(postgres: PostgresServer) -> None:
    url = postgres.new_database()
    plain, match_id = seated(url)
    plain.close()
    store = LosesTheFirstAck(url)
    hand = make_hand(match_id, 1, ("alice", "bob"), (10, -10))
    assert store.record_hand(hand) is False  # committed by the first try; the retry finds it there
    assert store.lost == 1
    assert store.completed_hands(match_id) == [hand]
    assert count(url, "SELECT COUNT(*) FROM hand_seats") == 2
    store.close()


def test_two_processes_recording_the_same_hands_commit_each_once(postgres: PostgresServer) -> None:
    url = postgres.new_database()
    first, match_id = seated(url)
    second = PostgresStore(url)
    won: list[list[int]] = [[], []]
    hands = [make_hand(match_id, n, ("alice", "bob"), (n % 5 - 2, 2 - n % 5)) for n in range(1, 41)]

    def record(index: int, store: PostgresStore) -> None:
        for hand in hands:
            if store.record_hand(hand):
                won[index].append(hand.hand_number)

    threads = [threading.Thread(target=record, args=(i, s)) for i, s in enumerate((first, second))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sorted(won[0] + won[1]) == list(range(1, 41))  # each hand reported new exactly once
    assert first.completed_hands(match_id) == hands
    assert count(url, "SELECT COUNT(*) FROM hand_seats") == 80
    first.close()
    second.close()


def test_two_workers_storing_the_same_hands_luck_at_once_both_succeed(postgres: PostgresServer) -> None:
    """Two workers computing the leaderboard at once both store the luck of the same ended hands:
    the second writer's check sees nothing stored (the first has not committed yet), then its
    insert waits for the first's commit. That must not break the unique key (it once crashed a
    worker mid-league, stalling the tables that needed its bots)."""
    url = postgres.new_database()
    store, match_id = seated(url)
    store.record_hand(make_hand(match_id, 1, ("alice", "bob"), (10, -10)))
    store.finish_match(match_id, "7")
    record = HandLuckRecord(match_id, 1, 0, "v", (2.5, -2.5))
    stored: list[int] = []
    with psycopg.connect(url) as first:  # the other worker, in its transaction
        row = first.execute("SELECT hand_id FROM hands WHERE match_id = %s", (match_id,)).fetchone()
        assert row is not None
        first.execute("INSERT INTO hand_luck (hand_id, value_function, seat, luck_chips) "
                      "VALUES (%s, 'v', 0, 2.5), (%s, 'v', 1, -2.5)", (row[0], row[0]))
        second = threading.Thread(target=lambda: stored.append(store.record_luck([record])))
        second.start()
        deadline = time.monotonic() + 10
        while count(url, "SELECT COUNT(*) FROM pg_stat_activity WHERE wait_event_type = 'Lock' "
                    "AND datname = current_database()") == 0:  # it waits for our commit
            assert time.monotonic() < deadline, "the second insert never waited"
            time.sleep(0.02)
    second.join(timeout=10)  # committed: the waiting insert goes on
    assert stored == [0]  # no error: the hand's luck was there already
    assert count(url, "SELECT COUNT(*) FROM hand_luck") == 2
    store.close()


def test_same_migrations_and_a_newer_schema_is_refused(postgres: PostgresServer) -> None:
    url = postgres.new_database()
    store = PostgresStore(url)
    assert store.schema_version == LATEST_VERSION
    store.close()
    store = PostgresStore(url)  # a second open applies nothing
    assert count(url, "SELECT COUNT(*) FROM schema_version") == LATEST_VERSION
    store.close()
    with psycopg.connect(url, autocommit=True) as db:
        db.execute("INSERT INTO schema_version VALUES (%s, 'from the future', '2030-01-01')",
                   (LATEST_VERSION + 1,))
    with pytest.raises(SchemaTooNew, match="newer arena"):
        PostgresStore(url)


def test_tokens_are_kept_as_salted_hashes(postgres: PostgresServer) -> None:
    url = postgres.new_database()
    store, _ = seated(url)
    assert store.verify_bot_token("alice", "token-a") and not store.verify_bot_token("alice", "token-b")
    with psycopg.connect(url) as db:
        hashes: list[Any] = [r[0] for r in db.execute("SELECT token_hash FROM bots")]
    assert all(h.startswith("scrypt$") and "token-" not in h for h in hashes)
    store.close()


def test_finishing_twice_from_two_processes_is_refused(postgres: PostgresServer) -> None:
    url = postgres.new_database()
    first, match_id = seated(url)
    second = PostgresStore(url)
    assert first.finish_match(match_id, "7").status is MatchStatus.FINISHED
    with pytest.raises(Exception, match="finished already"):
        second.finish_match(match_id, "8")
    assert second.get_match(match_id).seed == "7"
    first.close()
    second.close()


def test_an_unreachable_server_is_a_clear_error_without_the_password(postgres: PostgresServer) -> None:
    url = f"postgresql://arena:s3cret-pw@127.0.0.1:{postgres.port + 1 if postgres.port < 65535 else 1}/x"
    with pytest.raises(StoreUnavailable) as caught:
        PostgresStore(url, connect_timeout_seconds=2)
    assert "cannot connect" in str(caught.value) and "s3cret-pw" not in str(caught.value)


def test_a_group_commit_keeps_the_writes_that_succeed_and_drops_the_refused_one(
        postgres: PostgresServer) -> None:
    """The writer's group commit on PostgreSQL (each write one message, its savepoint opened with
    it): a write refused by the server is rolled back alone, the others and the marks commit,
    and the prepared statements still serve afterwards (a rollback makes psycopg deallocate
    them all)."""
    url = postgres.new_database()
    store, match_id = seated(url)
    with store.batch():
        assert store.record_hand(make_hand(match_id, 1, ("alice", "bob"), (10, -10)))
        store.mark_in_flight(match_id, 0, 2)
        with pytest.raises(InvalidRecord), store.transaction(write=True) as db:
            db.execute("INSERT INTO hands_in_flight (match_id, copy_index, hand_number) VALUES (?, ?, ?)",
                       (match_id, 5, 1))
            db.execute("INSERT INTO hands_in_flight (match_id, copy_index, hand_number) VALUES (?, ?, ?)",
                       (match_id, 5, 1))  # a duplicate key: this write rolls back, the batch goes on
        assert store.record_hand(make_hand(match_id, 2, ("alice", "bob"), (-5, 5)))
        assert store.record_hand(make_hand(match_id, 2, ("alice", "bob"), (-5, 5))) is False  # the same
        with pytest.raises(HandConflict):
            store.record_hand(make_hand(match_id, 2, ("alice", "bob"), (5, -5)))
        store.mark_in_flight(match_id, 0, 3)
    assert [h.hand_number for h in store.completed_hands(match_id)] == [1, 2]
    assert store.hand_in_flight(match_id, 0) == 3
    assert store.hand_in_flight(match_id, 5) is None
    with store.batch():
        assert store.record_hand(make_hand(match_id, 3, ("alice", "bob"), (1, -1)))
        store.mark_in_flight(match_id, 0, 4)
    assert store.hand_in_flight(match_id, 0) == 4
    assert count(url, "SELECT COUNT(*) FROM hand_seats") == 6
    store.close()


def test_a_group_commit_that_fails_at_its_commit_writes_nothing_and_the_next_one_works(
        postgres: PostgresServer) -> None:
    """A group whose error escapes it (the writer then makes its writes one by one) commits
    nothing; so does a group whose connection is cut; the store reconnects for the next."""
    url = postgres.new_database()
    store, match_id = seated(url)
    with pytest.raises(StoreError), store.batch():
        assert store.record_hand(make_hand(match_id, 1, ("alice", "bob"), (10, -10)))
        store.mark_in_flight(match_id + 99, 0, 2)  # no such match: refused, and not caught
    assert store.completed_hands(match_id) == []
    with pytest.raises(StoreError), store.batch():
        assert store.record_hand(make_hand(match_id, 1, ("alice", "bob"), (10, -10)))
        with psycopg.connect(url, autocommit=True) as admin:
            admin.execute("SELECT pg_terminate_backend(%s)", (store.backend_pid(),))
        store.record_hand(make_hand(match_id, 2, ("alice", "bob"), (10, -10)))
    with store.batch():
        assert store.record_hand(make_hand(match_id, 1, ("alice", "bob"), (10, -10)))
        store.mark_in_flight(match_id, 0, 2)
    assert [h.hand_number for h in store.completed_hands(match_id)] == [1]
    assert store.hand_in_flight(match_id, 0) == 2
    assert count(url, "SELECT COUNT(*) FROM hand_seats") == 2
    store.close()


def test_a_group_whose_connection_is_cut_fails_even_when_its_writes_errors_were_caught(
        postgres: PostgresServer) -> None:
    """The writer keeps each job's error to that job (arena/storage/writer.py): a write the cut
    connection refused is caught inside the group. The group must still fail at its end: psycopg
    leaves a broken connection's transaction without a word, and a group taken for committed told
    its tables so, which went on dealing while their hands were lost (a hand missing after a
    database crash)."""
    url = postgres.new_database()
    store, match_id = seated(url)
    with pytest.raises(StoreUnavailable), store.batch():
        assert store.record_hand(make_hand(match_id, 1, ("alice", "bob"), (10, -10)))
        with psycopg.connect(url, autocommit=True) as admin:
            admin.execute("SELECT pg_terminate_backend(%s)", (store.backend_pid(),))
        with pytest.raises(StoreUnavailable):  # caught, as the writer catches a job's error
            store.record_hand(make_hand(match_id, 2, ("alice", "bob"), (10, -10)))
    assert store.completed_hands(match_id) == []  # reconnected: nothing of the group was kept
    store.close()
