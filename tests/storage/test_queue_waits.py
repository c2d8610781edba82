"""Postponed jobs in the store (`JobWaits`, migration 8), on SQLite and PostgreSQL: one row per job,
updated on each postponement and gone when the match is dealt or its job completed or given back;
only seats of the match are taken as missing bots; the coordinator sees only the rows of the
worker that holds the job now. A version-7 store is upgraded with every row kept."""

from __future__ import annotations

import sqlite3
import time
from collections.abc import Iterator
from contextlib import closing
from pathlib import Path
from typing import Any

import psycopg
import pytest

import arena.storage.tokens as tokens_module
from arena.league.coordinator import describe_waits
from arena.storage.errors import InvalidRecord
from arena.storage.migrations import LATEST_VERSION
from arena.storage.postgres import PostgresStore
from arena.storage.queue import JobWaits, PostponedJob, WorkQueue
from arena.storage.sqlite import SqliteStore
from arena.storage.sqlstore import SqlStore
from arena.storage.store import apply_migrations, open_store
from tests.pgserver import PostgresServer
from tests.storage.test_league_secrets import V6_TABLES, _fill_v6, upgraded
from tests.storage.test_placings import migrate_postgresql


@pytest.fixture(autouse=True)
def cheap_token_hash(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(tokens_module, "_SCRYPT_N", 2**8)


@pytest.fixture(params=["sqlite", "postgresql"])
def store(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[SqlStore]:
    opened: SqlStore
    if request.param == "sqlite":
        opened = SqliteStore(tmp_path / "waits.sqlite")
    else:
        postgres: PostgresServer = request.getfixturevalue("postgres")
        opened = PostgresStore(postgres.new_database())
    try:
        yield opened
    finally:
        opened.close()


def _jobs(store: SqlStore, *seatings: tuple[str, ...]) -> tuple[int, list[int]]:
    """A league with one running job of ``w1`` per seating; (league id, job ids)."""
    for name in sorted({bot for seats in seatings for bot in seats}):
        store.register_bot(name, f"token-{name}")
    league = store.create_league("L", "")
    ids = []
    for k, seats in enumerate(seatings):
        match = store.create_match(league.league_id, seat_bots=seats, games=("FT",))
        with store.transaction(write=True) as db:
            row = db.execute("INSERT INTO jobs (league_id, match_id, deal_set, status, worker, claims) "
                             "VALUES (?, ?, ?, 'running', 'w1', 1) RETURNING job_id",
                             (league.league_id, match.match_id, f"r{k + 1}")).fetchone()
        ids.append(int(row["job_id"]))
    return league.league_id, ids


def _rows(store: SqlStore) -> list[tuple[object, ...]]:
    with store.transaction(write=False) as db:
        return [(r["job_id"], r["worker"], r["bots"], r["postponements"])
                for r in db.execute("SELECT * FROM job_waits ORDER BY job_id").fetchall()]


def _first_postponed_at(store: SqlStore) -> list[float]:
    with store.transaction(write=False) as db:
        return [float(r["first_postponed_at"])
                for r in db.execute("SELECT first_postponed_at FROM job_waits ORDER BY job_id").fetchall()]


def _claim_again(store: SqlStore, job_id: int, worker: str) -> None:
    """What `WorkQueue.claim` does to a job whose worker's lease ran out."""
    with store.transaction(write=True) as db:
        db.execute("UPDATE jobs SET worker = ?, claims = claims + 1 WHERE job_id = ?", (worker, job_id))


def test_a_postponement_is_one_row_per_job_updated_then_gone_once_dealt(store: SqlStore) -> None:
    league_id, (first, second) = _jobs(store, ("alpha", "gamma"), ("beta", "gamma"))
    waits = JobWaits(store)
    assert waits.waiting(league_id) == []
    assert waits.postponed("w1", first, ["gamma"], 1)
    time.sleep(0.05)
    assert waits.postponed("w1", first, ["gamma"], 2)
    assert waits.postponed("w1", first, ["gamma", "alpha", "gamma"], 3)
    assert waits.postponed("w1", second, ["gamma"], 1)
    assert _rows(store) == [(first, "w1", "alpha,gamma", 3), (second, "w1", "gamma", 1)]
    one, two = waits.waiting(league_id)
    assert (one.job_id, one.deal_set, one.worker, one.bots, one.postponements) == (
        first, "r1", "w1", ("alpha", "gamma"), 3)
    assert one.waited_seconds > two.waited_seconds >= 0  # since each one's first postponement
    assert describe_waits([one, two]).startswith("waiting for alpha (1 match postponed 3 times for ")
    assert "; gamma (2 matches postponed 4 times for " in describe_waits([one, two])
    waits.dealt("w2", first)  # not w2's: kept
    assert len(waits.waiting(league_id)) == 2
    waits.dealt("w1", first)
    assert [job.job_id for job in waits.waiting(league_id)] == [second]
    assert _rows(store) == [(second, "w1", "gamma", 1)]
    assert waits.postponed("w1", first, ["gamma"], 4)  # put back again later: a new row
    assert _rows(store) == [(first, "w1", "gamma", 4), (second, "w1", "gamma", 1)]


def test_only_seats_of_the_match_held_by_the_worker_are_noted(store: SqlStore) -> None:
    league_id, (job,) = _jobs(store, ("alpha", "gamma"))
    store.register_bot("delta", "token-delta")
    waits = JobWaits(store)
    with pytest.raises(InvalidRecord, match="delta has no seat"):
        waits.postponed("w1", job, ["gamma", "delta"], 1)
    with pytest.raises(InvalidRecord, match="no seat"):
        waits.postponed("w1", job, ["gamma,alpha"], 1)  # one name only, never a list in disguise
    with pytest.raises(InvalidRecord):
        waits.postponed("w1", job, [], 1)
    with pytest.raises(InvalidRecord):
        waits.postponed("w1", job, ["gamma"], 0)
    assert not waits.postponed("w2", job, ["gamma"], 1)  # w1 holds it
    assert not waits.postponed("w1", job + 1, ["gamma"], 1)  # no such job
    assert _rows(store) == [] and waits.waiting(league_id) == []
    with pytest.raises(InvalidRecord), store.transaction(write=True) as db:  # the table's own checks
        db.execute("INSERT INTO job_waits VALUES (?, 'w1', '', 1, 0, 0)", (job,))
    with pytest.raises(InvalidRecord), store.transaction(write=True) as db:
        db.execute("INSERT INTO job_waits VALUES (?, 'w1', 'gamma', 0, 0, 0)", (job,))


def test_a_job_claimed_again_shows_only_its_new_workers_postponements(store: SqlStore) -> None:
    league_id, (job,) = _jobs(store, ("alpha", "gamma"))
    waits = JobWaits(store)
    assert waits.postponed("w1", job, ["gamma"], 5)
    [w1_since] = _first_postponed_at(store)
    time.sleep(0.05)
    _claim_again(store, job, "w2")  # w1 died
    assert waits.waiting(league_id) == []  # w1's note is stale
    assert not waits.postponed("w1", job, ["gamma"], 6)
    assert waits.postponed("w2", job, ["alpha"], 1)
    [again] = waits.waiting(league_id)
    assert (again.worker, again.bots, again.postponements) == ("w2", ("alpha",), 1)
    assert _first_postponed_at(store)[0] > w1_since  # counted from w2's first postponement
    assert _rows(store) == [(job, "w2", "alpha", 1)]


def test_a_claim_forgets_the_postponement_an_earlier_holder_noted(postgres: PostgresServer) -> None:
    """w1 notes a postponement and dies; w2 claims the job and dies too; w1, restarted under its
    name, claims it again: the old note is not shown as this claim's (its tables may deal at
    once, and then the worker never writes again). Workers share PostgreSQL only."""
    store = PostgresStore(postgres.new_database())
    try:
        league_id, (job,) = _jobs(store, ("alpha", "gamma"))
        waits, queue = JobWaits(store), WorkQueue(store)
        assert waits.postponed("w1", job, ["gamma"], 3)
        for worker in ("w2", "w1"):
            with store.transaction(write=True) as db:  # the holder's lease ran out long ago
                db.execute("UPDATE jobs SET heartbeat_at = 0 WHERE job_id = ?", (job,))
            assert [claimed.job_id for claimed in queue.claim(worker, lease_seconds=1.0)] == [job]
        assert _rows(store) == [] and waits.waiting(league_id) == []
    finally:
        store.close()


def test_completing_or_giving_back_a_job_forgets_its_postponement(postgres: PostgresServer) -> None:
    store = PostgresStore(postgres.new_database())
    try:
        for name in ("alpha", "gamma"):
            store.register_bot(name, f"token-{name}")
        league = store.create_league("L", "")
        matches = [store.create_match(league.league_id, seat_bots=("alpha", "gamma"), games=("FT",))
                   for _ in range(2)]
        queue = WorkQueue(store)
        queue.enqueue(league.league_id, [(f"r{k}", m.match_id) for k, m in enumerate(matches)])
        first, second = queue.claim("w1", lease_seconds=60, limit=2)
        waits = JobWaits(store)
        for job in (first, second):
            assert waits.postponed("w1", job.job_id, ["gamma"], 2)
        assert not queue.complete("w2", first.job_id)  # not w2's job: nothing changes
        assert len(_rows(store)) == 2
        assert queue.complete("w1", first.job_id)
        queue.release("w2", second.job_id)
        assert [row[0] for row in _rows(store)] == [second.job_id]
        queue.release("w1", second.job_id)
        assert _rows(store) == [] and waits.waiting(league.league_id) == []
    finally:
        store.close()


def test_describe_waits_names_each_missing_bot_with_its_matches_and_workers() -> None:
    jobs = [PostponedJob(1, "r1", "w2", ("gamma",), 1, 12.4),
            PostponedJob(2, "r2", "w1", ("delta", "gamma"), 3, 40.6)]
    assert describe_waits([]) == ""
    assert describe_waits(jobs) == ("waiting for delta (1 match postponed 3 times for 41 s, w1); "
                                    "gamma (2 matches postponed 4 times for 41 s, w1, w2)")
    assert describe_waits(jobs[:1]) == "waiting for gamma (1 match postponed 1 time for 12 s, w2)"


# ----------------------------------------------------------------- migration 8

def _all_rows(fetch: object) -> dict[str, list[tuple[object, ...]]]:
    assert callable(fetch)
    return {table: sorted(tuple(row) for row in fetch(f"SELECT * FROM {table}"))
            for table in (*V6_TABLES, "league_secrets")}


def _fill_v7(execute: object) -> None:
    assert callable(execute)
    _fill_v6(execute)
    execute("INSERT INTO league_secrets VALUES ('cup', '" + "ab" * 32 + "', 'x')")


def _check_v8(store: SqlStore) -> None:
    """The version-6 job (2, running on w1) can be noted as postponed, for its seats."""
    waits = JobWaits(store)
    with store.transaction(write=False) as db:
        seats = [str(r["name"]) for r in db.execute(
            "SELECT b.name FROM match_seats s JOIN bots b USING (bot_id) WHERE s.match_id = 2 "
            "ORDER BY s.seat").fetchall()]
    assert waits.postponed("w1", 1, seats[:1], 1)
    [job] = waits.waiting(2)
    assert (job.job_id, job.deal_set, job.bots) == (1, "r1-t1", tuple(seats[:1]))


def _raw(backend: str, target: str) -> Any:
    """A plain connection (rows as tuples) to the SQLite file or PostgreSQL database ``target``."""
    if backend == "sqlite":
        db = sqlite3.connect(target, isolation_level=None)
        db.execute("PRAGMA foreign_keys = ON")
        return db
    return psycopg.connect(target, autocommit=True)


@pytest.mark.parametrize("backend", ["sqlite", "postgresql"])
def test_a_version_7_store_is_upgraded_keeping_every_row(backend: str, tmp_path: Path,
                                                         request: pytest.FixtureRequest) -> None:
    target = (str(tmp_path / "v7.sqlite") if backend == "sqlite"
              else request.getfixturevalue("postgres").new_database())
    with closing(_raw(backend, target)) as old:
        if backend == "sqlite":
            assert apply_migrations(old, target_version=7) == 7
        else:
            migrate_postgresql(old, up_to=7)
        _fill_v7(old.execute)
        before = _all_rows(lambda sql: old.execute(sql).fetchall())
    store = open_store(target)
    try:
        assert isinstance(store, SqlStore) and store.schema_version == LATEST_VERSION  # type: ignore[attr-defined]
        with closing(_raw(backend, target)) as new:
            after = _all_rows(lambda sql: new.execute(sql).fetchall())
        assert [r[0] for r in after.pop("schema_version")] == list(range(1, LATEST_VERSION + 1))
        before.pop("schema_version")
        assert after == upgraded(before) and all(after.values())  # every table had rows: all kept
        if isinstance(store, SqliteStore):
            assert store.check_integrity() == []
        _check_v8(store)
    finally:
        store.close()
