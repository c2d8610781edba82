"""Migration 10 on SQLite and PostgreSQL: the hands table takes every game code the engine deals
(issue 42: docs/house-rules.md §21 to §25), and a version-9 store is upgraded with every hand,
seat and luck row kept."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import psycopg
import pytest

import arena.storage.tokens as tokens_module
from arena.engine.games import ALL_VARIANTS
from arena.storage.migrations import LATEST_VERSION, MIGRATIONS
from arena.storage.postgres import PostgresStore
from arena.storage.store import (
    HandLuckRecord,
    MatchFormat,
    ResultsStore,
    SqliteStore,
    apply_migrations,
    open_store,
)
from tests.pgserver import PostgresServer
from tests.storage.test_placings import _fill_v5, migrate_postgresql
from tests.storage.test_store import make_hand

NEW_GAMES = ("F2L3D", "FLL", "F7SW", "F7SWL", "F7SW/8", "FLH", "FLH/8", "FES")
_INSERT_NEW_GAME = ("INSERT INTO hands (match_id, hand_number, copy_index, deal_id, game_code, "
                    "small_bet_chips, button_seat, status, phh_text, started_at, finished_at) "
                    "VALUES (1, 9, 0, 'd9', 'F2L3D', 20, 0, 'completed', '', 'x', 'x')")


@pytest.fixture(autouse=True)
def cheap_token_hash(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(tokens_module, "_SCRYPT_N", 2**8)


def test_migration_10_names_every_game_the_engine_deals() -> None:
    """The step is written out (frozen), so it is checked against the engine's list here."""
    statement = next(s for s in MIGRATIONS[9].statements if s.startswith("CREATE TABLE hands"))
    assert MIGRATIONS[9].version == 10 == LATEST_VERSION
    for code in ALL_VARIANTS:
        assert f"'{code}'" in statement, code
        assert f"'{code}'" in MIGRATIONS[9].postgresql_statements()[1], code
    assert set(NEW_GAMES) <= set(ALL_VARIANTS)


def _check_upgraded(store: ResultsStore) -> None:
    """Every v9 row is still there; every game code goes in now, and luck joins its hands."""
    assert [(h.hand_number, h.game_code, [s.net_chips for s in h.seats])
            for h in store.completed_hands(1)] == [(1, "FT", [15, -15]), (2, "FR", [-40, 40])]
    assert [(v.hand_number, v.reason) for v in store.void_hands(1)] == [(3, "lost")]
    luck = {r.hand_number: r.luck_chips for r in store.iter_results(1, value_function="pot")
            if r.bot == "alice"}
    assert luck == {1: 1.5, 2: None}
    for k, game in enumerate(NEW_GAMES):
        assert store.record_hand(make_hand(1, 4 + k, ("alice", "bob"), (5, -5), game=game))
    assert store.record_luck([HandLuckRecord(1, 4, 0, "pot", (0.5, -0.5))]) == 1
    stored = {h.hand_number: h.game_code for h in store.completed_hands(1)}
    assert [stored[4 + k] for k in range(len(NEW_GAMES))] == list(NEW_GAMES)


def test_a_version_9_sqlite_store_is_upgraded_keeping_every_row(tmp_path: Path) -> None:
    path = tmp_path / "v9.sqlite"
    db = sqlite3.connect(path, isolation_level=None)
    db.execute("PRAGMA foreign_keys = ON")
    assert apply_migrations(db, target_version=9) == 9
    _fill_v5(db.execute)
    with pytest.raises(sqlite3.IntegrityError, match="CHECK"):  # version 9 refuses F2L3D
        db.execute(_INSERT_NEW_GAME)
    db.close()
    with SqliteStore(path) as store:
        assert store.schema_version == LATEST_VERSION
        _check_upgraded(store)
        assert store.check_integrity() == []
        connection = store._connection
        assert connection.execute("SELECT COUNT(*) FROM sqlite_master WHERE name = 'hands_by_deal'"
                                  ).fetchone()[0] == 1
        assert connection.execute("SELECT COUNT(*) FROM sqlite_master WHERE name LIKE "
                                  "'hands_before%'").fetchone()[0] == 0


def test_a_version_9_postgresql_store_is_upgraded_keeping_every_row(postgres: PostgresServer) -> None:
    url = postgres.new_database()
    with psycopg.connect(url, autocommit=True) as db:
        migrate_postgresql(db, up_to=9)
        _fill_v5(lambda sql: db.execute(sql))  # type: ignore[arg-type]
        with pytest.raises(psycopg.errors.CheckViolation):
            db.execute(_INSERT_NEW_GAME)
        for table, key in (("hands", "hand_id"), ("leagues", "league_id"), ("bots", "bot_id"),
                           ("matches", "match_id")):
            db.execute(f"SELECT setval(pg_get_serial_sequence('{table}', '{key}'), "  # type: ignore[arg-type]
                       f"(SELECT MAX({key}) FROM {table}))")
    store = open_store(url)
    try:
        assert isinstance(store, PostgresStore) and store.schema_version == LATEST_VERSION
        _check_upgraded(store)
    finally:
        store.close()


@pytest.mark.parametrize("kind", ["sqlite", "postgresql"])
def test_a_fresh_store_takes_every_game(kind: str, tmp_path: Path, request: pytest.FixtureRequest) -> None:
    if kind == "sqlite":
        store: ResultsStore = SqliteStore(tmp_path / "fresh.sqlite")
    else:
        server: PostgresServer = request.getfixturevalue("postgres")
        store = open_store(server.new_database())
    try:
        for bot in ("alice", "bob"):
            store.register_bot(bot, f"token-of-{bot}")
        league = store.create_league("all", "")
        codes = tuple(ALL_VARIANTS)
        match = store.create_match(league.league_id, seat_bots=("alice", "bob"), games=codes,
                                   match_format=MatchFormat.CASH)
        for k, code in enumerate(codes):
            assert store.record_hand(make_hand(match.match_id, k + 1, ("alice", "bob"), (1, -1),
                                               game=code))
        assert [h.game_code for h in store.completed_hands(match.match_id)] == list(codes)
    finally:
        store.close()
