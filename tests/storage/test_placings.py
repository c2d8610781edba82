"""Migration 6 on SQLite and PostgreSQL: hands of no-limit and pot-limit games (NT, PO and PT,
pot-limit hold'em) are stored, tournament placings round-trip (docs/house-rules.md §8), and a version-5
database is upgraded with every hand, seat and luck row kept."""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

import psycopg
import pytest

import arena.storage.tokens as tokens_module
from arena.storage.migrations import LATEST_VERSION, MIGRATIONS
from arena.storage.postgres import PostgresStore
from arena.storage.store import (
    HandLuckRecord,
    InvalidRecord,
    MatchFormat,
    NotFound,
    ResultsStore,
    SqliteStore,
    TournamentPlacing,
    VoidHand,
    apply_migrations,
    open_store,
)
from tests.pgserver import PostgresServer
from tests.storage.test_store import T0, make_hand

PLACINGS = [
    TournamentPlacing("t1", "alice", 1, 1, None),
    TournamentPlacing("t1", "bob", 2, 2, "t1-final-t1-h17"),
    TournamentPlacing("t1", "carol", 3, 3, "t1-losers-t1-h4"),
    TournamentPlacing("overall", "bob", 1, 3, None),
    TournamentPlacing("overall", "alice", 2, 3, None),
    TournamentPlacing("overall", "carol", 3, 6, None),
]


@pytest.fixture(autouse=True)
def cheap_token_hash(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(tokens_module, "_SCRYPT_N", 2**8)


@pytest.fixture(params=["sqlite", "postgresql"])
def store(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[ResultsStore]:
    if request.param == "sqlite":
        opened: ResultsStore = SqliteStore(tmp_path / "results.sqlite")
    else:
        server: PostgresServer = request.getfixturevalue("postgres")
        opened = open_store(server.new_database())
    try:
        for bot in ("alice", "bob", "carol"):
            opened.register_bot(bot, f"token-of-{bot}")
        yield opened
    finally:
        opened.close()


def test_no_limit_and_pot_limit_hands_round_trip(store: ResultsStore) -> None:
    league = store.create_league("nl", 'games = ["NT", "PO", "PT"]\n')
    match = store.create_match(league.league_id, seat_bots=("alice", "bob", "carol"),
                               games=("NT", "PO", "PT"), match_format=MatchFormat.TOURNAMENT)
    hands = [make_hand(match.match_id, k + 1, ("alice", "bob", "carol"), (30, -20, -10), game=game)
             for k, game in enumerate(("NT", "PO", "PT"))]
    assert all(store.record_hand(h) for h in hands)
    void = VoidHand(match.match_id, 4, 0, "d4", "PO", 20, 0, "misdeal", "", T0, T0)
    assert store.void_hand(void)
    assert store.completed_hands(match.match_id) == hands
    assert [(v.game_code, v.reason) for v in store.void_hands(match.match_id)] == [("PO", "misdeal")]
    with pytest.raises(InvalidRecord, match="unknown game"):
        store.record_hand(make_hand(match.match_id, 5, ("alice", "bob"), (1, -1), game="NLHE"))


def test_placings_round_trip_and_are_replaced_when_written_again(store: ResultsStore) -> None:
    league = store.create_league("cup", "")
    other = store.create_league("other", "")
    assert store.record_placings(league.league_id, PLACINGS) == len(PLACINGS)
    assert store.tournament_placings(other.league_id) == []
    expected = sorted(PLACINGS, key=lambda p: (p.tournament, p.place, p.bot))
    assert store.tournament_placings(league.league_id) == expected
    # A resumed tournament writes its results again: they replace the league's rows.
    changed = replace(PLACINGS[1], eliminated_at_hand="t1-final-t1-h18")
    store.record_placings(league.league_id, [PLACINGS[0], changed])
    assert store.tournament_placings(league.league_id) == [PLACINGS[0], changed]
    store.record_placings(other.league_id, PLACINGS[3:])
    assert len(store.tournament_placings(league.league_id)) == 2
    with pytest.raises(InvalidRecord):  # a bot placed twice in one tournament
        store.record_placings(league.league_id, [PLACINGS[0], replace(PLACINGS[0], place=2)])
    assert store.tournament_placings(league.league_id) == [PLACINGS[0], changed]


@pytest.mark.parametrize("bad", [
    TournamentPlacing("", "alice", 1, 1),
    TournamentPlacing("t1", "alice", 0, 1),
    TournamentPlacing("t1", "alice", 1, -1),
    TournamentPlacing("t1\n", "alice", 1, 1),
    TournamentPlacing("t1", "alice", 1, 1, "h" * 201),
])
def test_impossible_placings_are_refused(store: ResultsStore, bad: TournamentPlacing) -> None:
    league = store.create_league("cup", "")
    with pytest.raises(InvalidRecord):
        store.record_placings(league.league_id, [bad])
    assert store.tournament_placings(league.league_id) == []


def test_placings_of_unknown_bots_or_leagues_are_refused(store: ResultsStore) -> None:
    league = store.create_league("cup", "")
    with pytest.raises(NotFound, match="dave"):
        store.record_placings(league.league_id, [TournamentPlacing("t1", "dave", 1, 1)])
    with pytest.raises(NotFound):
        store.record_placings(league.league_id + 99, PLACINGS[:1])
    assert store.tournament_placings(league.league_id) == []


# --------------------------------------------------------------------------- upgrading v5


def _fill_v5(execute: Callable[[str], object]) -> None:
    """A version-5 store with a finished match: two hands with seats, luck, a void hand."""
    t = T0.isoformat()
    for sql in (
        f"INSERT INTO leagues (league_id, name, config_toml, created_at) VALUES (1, 'old', 'x = 1', '{t}')",
        f"INSERT INTO bots (bot_id, name, token_hash, created_at) VALUES (1, 'alice', 'scrypt$x', '{t}')",
        f"INSERT INTO bots (bot_id, name, token_hash, created_at) VALUES (2, 'bob', 'scrypt$x', '{t}')",
        "INSERT INTO matches (match_id, league_id, games, format, is_duplicate, status, seed, "
        f"created_at, finished_at) VALUES (1, 1, '[\"FT\"]', 'cash', 0, 'running', NULL, '{t}', NULL)",
        "INSERT INTO match_seats (match_id, seat, bot_id) VALUES (1, 0, 1), (1, 1, 2)",
        "INSERT INTO hands (hand_id, match_id, hand_number, copy_index, deal_id, game_code, "
        "small_bet_chips, button_seat, status, phh_text, started_at, finished_at, void_reason) VALUES "
        f"(1, 1, 1, 0, 'd1', 'FT', 20, 1, 'completed', 'phh1', '{t}', '{t}', NULL), "
        f"(2, 1, 2, 0, 'd2', 'FR', 20, 0, 'completed', 'phh2', '{t}', '{t}', NULL), "
        f"(3, 1, 3, 0, 'd3', 'FT', 20, 1, 'void', '', '{t}', '{t}', 'lost')",
        "INSERT INTO hand_seats (hand_id, seat, bot_id, net_chips, final_stack_chips, timeouts) "
        "VALUES (1, 0, 1, 15, 2015, 1), (1, 1, 2, -15, 1985, 0), (2, 0, 1, -40, 1960, 0), "
        "(2, 1, 2, 40, 2040, 2)",
        "INSERT INTO hand_luck (hand_id, value_function, seat, luck_chips) VALUES "
        "(1, 'pot', 0, 1.5), (1, 'pot', 1, -1.5)",
    ):
        execute(sql)


def migrate_postgresql(db: psycopg.Connection[Any], *, up_to: int) -> None:
    """Bring an empty PostgreSQL database to schema version ``up_to``, as that arena left it."""
    for migration in MIGRATIONS[:up_to]:
        for statement in migration.postgresql_statements():
            db.execute(statement)  # type: ignore[arg-type]
        db.execute("INSERT INTO schema_version VALUES (%s, %s, %s)",
                   (migration.version, migration.description, T0.isoformat()))


def _check_upgraded(store: ResultsStore) -> None:
    assert [(h.hand_number, h.game_code, [s.net_chips for s in h.seats], [s.timeouts for s in h.seats])
            for h in store.completed_hands(1)] == [(1, "FT", [15, -15], [1, 0]), (2, "FR", [-40, 40], [0, 2])]
    assert [(v.hand_number, v.reason) for v in store.void_hands(1)] == [(3, "lost")]
    assert store.next_hand_number(1) == 4
    luck = {r.hand_number: r.luck_chips for r in store.iter_results(1, value_function="pot")
            if r.bot == "alice"}
    assert luck == {1: 1.5, 2: None}
    # The new codes go in now, into the old match; placings too.
    assert store.record_hand(make_hand(1, 4, ("alice", "bob"), (5, -5), game="NT"))
    assert store.record_luck([HandLuckRecord(1, 2, 0, "pot", (0.5, -0.5))]) == 1
    store.record_placings(1, [TournamentPlacing("overall", "bob", 1, 1)])
    assert store.tournament_placings(1) == [TournamentPlacing("overall", "bob", 1, 1)]


def test_a_version_5_sqlite_store_is_upgraded_keeping_every_row(tmp_path: Path) -> None:
    path = tmp_path / "v5.sqlite"
    db = sqlite3.connect(path, isolation_level=None)
    db.execute("PRAGMA foreign_keys = ON")
    assert apply_migrations(db, target_version=5) == 5
    _fill_v5(db.execute)
    with pytest.raises(sqlite3.IntegrityError, match="CHECK"):  # version 5 refuses NT
        db.execute("INSERT INTO hands (match_id, hand_number, copy_index, deal_id, game_code, "
                   "small_bet_chips, button_seat, status, phh_text, started_at, finished_at) "
                   "VALUES (1, 9, 0, 'd9', 'NT', 20, 0, 'completed', '', 'x', 'x')")
    db.close()
    with SqliteStore(path) as store:
        assert store.schema_version == LATEST_VERSION
        _check_upgraded(store)
        assert store.check_integrity() == []
        connection = store._connection
        assert "'NT', 'PO', 'PT'" in connection.execute(
            "SELECT sql FROM sqlite_master WHERE name = 'hands'").fetchone()[0]
        assert connection.execute("SELECT COUNT(*) FROM sqlite_master WHERE name = 'hands_by_deal'"
                                  ).fetchone()[0] == 1
        # The references still hold.
        with pytest.raises(InvalidRecord, match="FOREIGN KEY"), store.transaction(write=True) as tx:
            tx.execute("INSERT INTO hand_seats (hand_id, seat, bot_id, net_chips, "
                       "final_stack_chips) VALUES (99, 0, 1, 0, 0)")


def test_a_version_5_postgresql_store_is_upgraded_keeping_every_row(postgres: PostgresServer) -> None:
    url = postgres.new_database()
    with psycopg.connect(url, autocommit=True) as db:
        migrate_postgresql(db, up_to=5)
        _fill_v5(lambda sql: db.execute(sql))  # type: ignore[arg-type]
        with pytest.raises(psycopg.errors.CheckViolation):
            db.execute("INSERT INTO hands (match_id, hand_number, copy_index, deal_id, game_code, "
                       "small_bet_chips, button_seat, status, phh_text, started_at, finished_at) "
                       "VALUES (1, 9, 0, 'd9', 'PO', 20, 0, 'completed', '', 'x', 'x')")
        # Rows inserted with explicit ids: move the identity sequences past them, as a live
        # store's would be.
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
