"""The PostgreSQL work queue: concurrent claims never share a job, a silent worker's job is claimed
again by another worker (never by itself), heartbeats keep jobs, completion is by the holder."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager

import pytest

import arena.storage.tokens as tokens_module
from arena.engine.errors import ConfigError
from arena.storage.errors import InvalidRecord, LeaseLost
from arena.storage.postgres import PostgresStore
from arena.storage.queue import JobBook, WorkQueue
from arena.storage.sqlite import SqliteStore
from arena.storage.sqlstore import Cursor, Db
from tests.pgserver import PostgresServer
from tests.storage.test_store import make_hand


@pytest.fixture(autouse=True)
def cheap_token_hash(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(tokens_module, "_SCRYPT_N", 2**8)


def queue_with_jobs(url: str, jobs: int) -> tuple[WorkQueue, int]:
    store = PostgresStore(url)
    store.register_bot("a", "token-a")
    store.register_bot("b", "token-b")
    league = store.create_league("L", "")
    matches = [store.create_match(league.league_id, seat_bots=("a", "b"), games=("FT",)) for _ in range(jobs)]
    queue = WorkQueue(store)
    assert queue.enqueue(league.league_id, [(f"r{k}", m.match_id) for k, m in enumerate(matches)]) == jobs
    assert queue.enqueue(league.league_id, [("r0", matches[0].match_id)]) == 0  # idempotent
    return queue, league.league_id


def test_concurrent_claims_never_share_a_job(postgres: PostgresServer) -> None:
    url = postgres.new_database()
    _, league_id = queue_with_jobs(url, 30)
    claimed: dict[str, list[int]] = {}

    def work(name: str) -> None:
        queue = WorkQueue(PostgresStore(url))
        mine = claimed.setdefault(name, [])
        while jobs := queue.claim(name, lease_seconds=60, holding=mine):
            mine += [j.job_id for j in jobs]

    threads = [threading.Thread(target=work, args=(f"w{k}",)) for k in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    everything = sorted(j for jobs in claimed.values() for j in jobs)
    assert everything == sorted(set(everything)) and len(everything) == 30  # each exactly once
    queue = WorkQueue(PostgresStore(url))
    assert queue.depth(league_id) == {"queued": 0, "running": 30, "done": 0}


def test_a_silent_workers_job_is_claimed_again_by_another(postgres: PostgresServer) -> None:
    queue, league_id = queue_with_jobs(postgres.new_database(), 1)
    [job] = queue.claim("w1", lease_seconds=0.5)
    assert queue.claim("w2", lease_seconds=0.5) == []  # w1's lease is fresh
    time.sleep(0.7)
    # never one it holds: it still plays it
    assert queue.claim("w1", lease_seconds=0.5, holding=[job.job_id]) == []
    assert queue.heartbeat("w1", [job.job_id]) == {job.job_id}
    assert queue.claim("w2", lease_seconds=0.5) == []  # the heartbeat renewed the lease
    time.sleep(0.7)
    [again] = queue.claim("w2", lease_seconds=0.5)
    assert (again.job_id, again.claims) == (job.job_id, 2)
    assert queue.heartbeat("w1", [job.job_id]) == set()  # w1 learns it lost the job
    assert not queue.complete("w1", job.job_id)
    assert queue.complete("w2", job.job_id)
    assert queue.depth(league_id) == {"queued": 0, "running": 0, "done": 1}


def test_hands_in_flight_and_announced_tables(postgres: PostgresServer) -> None:
    queue, _ = queue_with_jobs(postgres.new_database(), 1)
    [job] = queue.claim("w1", lease_seconds=30)
    assert queue.store.hand_in_flight(job.match_id, 0) is None
    queue.store.mark_in_flight(job.match_id, 0, 7)
    queue.store.mark_in_flight(job.match_id, 0, 8)
    assert queue.store.hand_in_flight(job.match_id, 0) == 8
    queue.announce("w1", job.job_id, "10.0.0.1:50051", ["r0-c1", "r0-c2"])
    assert queue.remote_tables(["a", "b"], "w2") == {
        "a": {"10.0.0.1:50051": ["r0-c1", "r0-c2"]}, "b": {"10.0.0.1:50051": ["r0-c1", "r0-c2"]}}
    assert queue.remote_tables(["a"], "w1") == {}  # its own tables are not remote


def test_the_queue_needs_postgresql(tmp_path: object) -> None:
    from pathlib import Path

    store = SqliteStore(Path(str(tmp_path)) / "x.sqlite")
    with pytest.raises(ConfigError, match="PostgreSQL"):
        WorkQueue(store)
    store.close()


def test_a_worker_claims_first_the_jobs_of_the_bots_connected_to_it(postgres: PostgresServer) -> None:
    store = PostgresStore(postgres.new_database())
    for bot in ("a", "b", "c", "d"):
        store.register_bot(bot, f"token-{bot}")
    league = store.create_league("L", "")
    pairs = [("a", "b"), ("c", "d"), ("a", "c"), ("b", "d")]
    matches = [store.create_match(league.league_id, seat_bots=p, games=("FT",)) for p in pairs]
    queue = WorkQueue(store)
    queue.enqueue(league.league_id, [(f"r{k}", m.match_id) for k, m in enumerate(matches)])
    [first] = queue.claim("w1", lease_seconds=30, local_bots=["c", "d"])
    assert first.match_id == matches[1].match_id  # both seats local: no relay
    [second] = queue.claim("w1", lease_seconds=30, local_bots=["d", "zz"], holding=[first.job_id])
    assert second.match_id == matches[3].match_id  # one seat local, before queue order
    holding = [first.job_id, second.job_id]
    assert [j.match_id for j in queue.claim("w1", lease_seconds=30, limit=5, holding=holding)] == \
        [matches[0].match_id, matches[2].match_id]  # no local bot: queue order


def test_a_lease_is_checked_once_per_group_commit_and_again_after_a_rollback(
        postgres: PostgresServer) -> None:
    """The writes of one group commit check the job's lease once (its row stays locked to the
    commit); a savepoint rolled back releases that lock, so the next write checks again; so does
    the next transaction, and a lost lease is refused there."""
    queue, _ = queue_with_jobs(postgres.new_database(), 1)
    [job] = queue.claim("w1", lease_seconds=60)
    book = JobBook(queue, "w1")
    checks: list[str] = []
    store = queue.store
    real = store.transaction

    @contextmanager
    def counting(*, write: bool) -> Iterator[Db]:
        with real(write=write) as db:
            yield Counting(db, checks)

    store.transaction = counting  # type: ignore[method-assign]
    with store.batch():
        book.hand_started(job.match_id, 0, 1)
        book.hand_started(job.match_id, 1, 1)
        assert len(checks) == 1
        with pytest.raises(InvalidRecord), store.transaction(write=True) as db:
            book.guard(job.match_id)(db)  # already checked: no query
            db.execute("INSERT INTO hands_in_flight (match_id, copy_index, hand_number) VALUES (?, ?, ?)",
                       (job.match_id, 9, 1))
            db.execute("INSERT INTO hands_in_flight (match_id, copy_index, hand_number) VALUES (?, ?, ?)",
                       (job.match_id, 9, 1))  # a duplicate key: this savepoint rolls back
        book.hand_started(job.match_id, 0, 2)
        assert len(checks) == 2  # checked again after the rollback
    book.hand_started(job.match_id, 0, 3)
    assert len(checks) == 3  # a new transaction checks again
    queue.release("w1", job.job_id)
    with pytest.raises(LeaseLost):
        book.hand_started(job.match_id, 0, 4)
    assert queue.store.hand_in_flight(job.match_id, 0) == 3



def test_in_a_group_commit_a_lost_lease_refuses_its_own_writes_and_the_others_stand(
        postgres: PostgresServer) -> None:
    """A lost lease refuses its hand and its mark in flight (LeaseLost, nothing of them written)
    while the batch's other writes stand."""
    queue, _ = queue_with_jobs(postgres.new_database(), 2)
    mine, lost = queue.claim("w1", lease_seconds=60, limit=2)
    book, store = JobBook(queue, "w1"), queue.store
    with store.batch():
        assert store.record_hand(make_hand(mine.match_id, 1, ("a", "b"), (10, -10)),
                                 guard=book.guard(mine.match_id))
        book.hand_started(mine.match_id, 0, 2)
    assert queue.store.hand_in_flight(mine.match_id, 0) == 2
    queue.release("w1", lost.job_id)  # another worker may claim it now
    with store.batch():
        with pytest.raises(LeaseLost):
            store.record_hand(make_hand(lost.match_id, 1, ("a", "b"), (5, -5)),
                              guard=book.guard(lost.match_id))
        assert store.record_hand(make_hand(mine.match_id, 2, ("a", "b"), (10, -10)),
                                 guard=book.guard(mine.match_id))
        book.hand_started(mine.match_id, 0, 3)
        with pytest.raises(LeaseLost):
            book.hand_started(lost.match_id, 0, 1)
    assert [h.hand_number for h in store.completed_hands(mine.match_id)] == [1, 2]
    assert store.completed_hands(lost.match_id) == []
    assert queue.store.hand_in_flight(mine.match_id, 0) == 3
    assert queue.store.hand_in_flight(lost.match_id, 0) is None


class Counting:
    """A `Db` that notes the lease checks it runs."""

    def __init__(self, db: Db, checks: list[str]) -> None:
        self._db, self._checks = db, checks

    def execute(self, sql: str, params: Sequence[object] = ()) -> Cursor:
        if "FOR SHARE" in sql:
            self._checks.append(sql)
        return self._db.execute(sql, params)

    def executemany(self, sql: str, rows: Iterable[Sequence[object]]) -> None:
        self._db.executemany(sql, rows)


def test_a_worker_restarted_under_its_name_takes_its_jobs_back_at_once(postgres: PostgresServer) -> None:
    """Issue 38: a container restarted with the same name holds nothing in memory; the jobs the
    database says it runs are its to take back, before their lease runs out; never another's."""
    queue, _ = queue_with_jobs(postgres.new_database(), 2)
    first = queue.claim("w1", lease_seconds=60)
    second = queue.claim("w2", lease_seconds=60)
    assert queue.claim("w1", lease_seconds=60, holding=[first[0].job_id]) == []
    [again] = queue.claim("w1", lease_seconds=60)  # restarted: holding nothing
    assert (again.job_id, again.claims) == (first[0].job_id, 2)
    assert queue.claim("w1", lease_seconds=60, holding=[again.job_id]) == []  # w2's lease is fresh
    assert queue.claim("w2", lease_seconds=60, holding=[second[0].job_id]) == []
