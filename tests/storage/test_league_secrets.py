"""Migration 7 on SQLite and PostgreSQL: each league's deal secret kept in the store (one secret
however many processes start the league at once, a damaged one refused), and a version-6 database
upgraded with every row of every table kept."""

from __future__ import annotations

import sqlite3
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

import psycopg
import pytest

from arena.engine.seeds import SECRET_BITS
from arena.storage.errors import CorruptStore, InvalidRecord
from arena.storage.league_secrets import keep_secret, stored_secret
from arena.storage.migrations import LATEST_VERSION, MIGRATIONS
from arena.storage.store import ResultsStore, SqliteStore, apply_migrations, open_store
from tests.pgserver import PostgresServer
from tests.storage.test_placings import _fill_v5, migrate_postgresql
from tests.storage.test_store import T0

STEPS = [(m.version, m.description) for m in MIGRATIONS]
V6_TABLES = ("schema_version", "leagues", "bots", "matches", "match_seats", "hands", "hand_seats",
             "hand_luck", "jobs", "hands_in_flight", "tournament_placings")


def _fill_v6(execute: Callable[[str], object]) -> None:
    """A version-6 store: the version-5 rows, a second league's match as a job with a hand in
    flight, and tournament placings."""
    _fill_v5(execute)
    t = T0.isoformat()
    for sql in (
        f"INSERT INTO leagues (league_id, name, config_toml, created_at) VALUES (2, 'cup', 'y = 2', '{t}')",
        "INSERT INTO matches (match_id, league_id, games, format, is_duplicate, status, seed, "
        f"created_at, finished_at) VALUES (2, 2, '[\"NT\"]', 'cash', 1, 'running', NULL, '{t}', NULL)",
        "INSERT INTO match_seats (match_id, seat, bot_id) VALUES (2, 0, 2), (2, 1, 1)",
        "INSERT INTO jobs (job_id, league_id, match_id, deal_set, status, worker, claims, heartbeat_at, "
        "address, tables) VALUES (1, 2, 2, 'r1-t1', 'running', 'w1', 2, 1234.5, '10.0.0.7:50052', "
        "'r1-t1-c1,r1-t1-c2')",
        "INSERT INTO hands_in_flight (match_id, copy_index, hand_number) VALUES (2, 1, 7)",
        "INSERT INTO tournament_placings (league_id, tournament, bot_id, place, points, "
        "eliminated_at_hand) VALUES (1, 't1', 1, 1, 1, NULL), (1, 't1', 2, 2, 2, 't1-final-t1-h17')",
    ):
        execute(sql)


def _rows(fetch: Callable[[str], list[Any]]) -> dict[str, list[tuple[object, ...]]]:
    return {table: sorted(tuple(row) for row in fetch(f"SELECT * FROM {table}")) for table in V6_TABLES}


def upgraded(rows: dict[str, list[tuple[object, ...]]]) -> dict[str, list[tuple[object, ...]]]:
    """Rows as later migrations leave them: migration 9 adds ``hand_seats.sdk_fallbacks`` (0)."""
    return {**rows, "hand_seats": sorted((*row, 0) for row in rows["hand_seats"])}


def _check_secrets(store: ResultsStore) -> None:
    """Secrets are per league; the first one kept wins; a damaged one is refused."""
    assert stored_secret(store, "old") is None
    first = keep_secret(store, "old", 2**SECRET_BITS - 1)
    assert first == 2**SECRET_BITS - 1 == stored_secret(store, "old")
    assert keep_secret(store, "old", 5) == first  # kept already: the first one stays
    assert keep_secret(store, "cup", 0) == 0 and stored_secret(store, "old") == first
    with pytest.raises(ValueError, match="256 bits"):
        keep_secret(store, "new", 2**SECRET_BITS)
    with pytest.raises(InvalidRecord), store.transaction(write=True) as db:  # type: ignore[attr-defined]
        db.execute("INSERT INTO league_secrets VALUES ('short', 'abc', 'x')")  # the length CHECK
    with store.transaction(write=True) as db:  # type: ignore[attr-defined]
        db.execute("INSERT INTO league_secrets VALUES ('odd', ?, 'x')", ("g" * 64,))
    with pytest.raises(CorruptStore, match="'odd'"):
        stored_secret(store, "odd")


def test_a_version_6_sqlite_store_is_upgraded_keeping_every_row(tmp_path: Path) -> None:
    path = tmp_path / "v6.sqlite"
    db = sqlite3.connect(path, isolation_level=None)
    db.execute("PRAGMA foreign_keys = ON")
    assert apply_migrations(db, target_version=6) == 6
    _fill_v6(db.execute)
    before = _rows(lambda sql: db.execute(sql).fetchall())
    db.close()
    with SqliteStore(path) as store:
        assert store.schema_version == LATEST_VERSION == 10
        after = _rows(lambda sql: store._connection.execute(sql).fetchall())
        assert [r[:2] for r in after.pop("schema_version")] == STEPS
        before.pop("schema_version")
        assert after == upgraded(before) and all(after.values())  # every table had rows: all kept
        assert store.check_integrity() == []
        _check_secrets(store)


def test_a_version_6_postgresql_store_is_upgraded_keeping_every_row(postgres: PostgresServer) -> None:
    url = postgres.new_database()
    with psycopg.connect(url, autocommit=True) as db:
        migrate_postgresql(db, up_to=6)
        _fill_v6(lambda sql: db.execute(sql))
        before = _rows(lambda sql: db.execute(sql).fetchall())
    store = open_store(url)
    try:
        assert store.schema_version == LATEST_VERSION  # type: ignore[attr-defined]
        with psycopg.connect(url) as db:
            after = _rows(lambda sql: db.execute(sql).fetchall())
        assert [r[:2] for r in after.pop("schema_version")] == STEPS
        before.pop("schema_version")
        assert after == upgraded(before) and all(after.values())
        _check_secrets(store)
    finally:
        store.close()


def test_workers_starting_a_league_at_once_keep_one_secret(postgres: PostgresServer) -> None:
    """Each process offers its own random secret: every one of them reads back the same."""
    url = postgres.new_database()
    stores = [open_store(url) for _ in range(4)]
    kept: list[int] = []
    start = threading.Barrier(len(stores))

    def offer(store: ResultsStore, value: int) -> None:
        start.wait()
        kept.append(keep_secret(store, "league", value))

    threads = [threading.Thread(target=offer, args=(store, 1000 + k)) for k, store in enumerate(stores)]
    try:
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
    finally:
        for store in stores:
            store.close()
    assert len(kept) == 4 and len(set(kept)) == 1 and kept[0] in range(1000, 1004)
