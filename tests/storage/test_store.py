"""The results store contract over SQLite and PostgreSQL (one parametrised suite), then what is
SQLite's own: one transaction per hand under SIGKILL, migrations, refusing bad files."""

from __future__ import annotations

import hashlib
import os
import signal
import sqlite3
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import replace
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

import arena.storage.tokens as tokens_module
from arena.engine.errors import ArenaError, ConfigError
from arena.storage.postgres import PostgresStore
from arena.storage.store import (
    LATEST_VERSION,
    MIGRATIONS,
    AlreadyExists,
    CorruptStore,
    HandConflict,
    HandLuckRecord,
    HandRecord,
    InvalidRecord,
    Match,
    MatchFormat,
    MatchStatus,
    NotFound,
    ResultsStore,
    SchemaTooNew,
    SeatResult,
    SqliteStore,
    StoreError,
    VoidHand,
    apply_migrations,
    open_store,
)
from tests.pgserver import PostgresServer

REPO = Path(__file__).resolve().parents[2]
T0 = datetime(2025, 3, 1, 12, 0, tzinfo=UTC)
BOTS = ("alice", "bob", "carol")


def make_hand(match_id: int, number: int, bots: Sequence[str], nets: Sequence[int], *, copy_index: int = 0,
              deal_id: str | None = None, game: str = "FT", small_bet: int = 20) -> HandRecord:
    seats = tuple(SeatResult(i, b, n, 2000 + n) for i, (b, n) in enumerate(zip(bots, nets, strict=True)))
    started = T0 + timedelta(seconds=10 * number)
    return HandRecord(match_id=match_id, hand_number=number, copy_index=copy_index,
                      deal_id=deal_id or f"deal-{number}", game_code=game, small_bet_chips=small_bet,
                      button_seat=len(bots) - 1, seats=seats,
                      phh_text=f'variant = "{game}"\n_hand = {number}\n', started_at=started,
                      finished_at=started + timedelta(seconds=3))


@pytest.fixture(autouse=True)
def cheap_token_hash(monkeypatch: pytest.MonkeyPatch) -> None:
    """scrypt at full cost takes ~50 ms a bot; the hash records its parameters, so verifying still works."""
    monkeypatch.setattr(tokens_module, "_SCRYPT_N", 2**8)


Opener = Callable[[], ResultsStore]


@pytest.fixture(params=["sqlite", "postgresql"])
def opener(request: pytest.FixtureRequest, tmp_path: Path) -> Opener:
    """Opens the same (initially empty) store again each call: an SQLite file or a PostgreSQL database."""
    if request.param == "sqlite":
        path = tmp_path / "results.sqlite"
        return lambda: SqliteStore(path)
    server: PostgresServer = request.getfixturevalue("postgres")
    url = server.new_database()
    return lambda: open_store(url)


@pytest.fixture
def store(opener: Opener) -> Iterator[ResultsStore]:
    opened = opener()
    try:
        for bot in BOTS:
            opened.register_bot(bot, f"token-of-{bot}")
        yield opened
    finally:
        opened.close()


def new_match(store: ResultsStore, *, seats: Sequence[str] = ("alice", "bob"), is_duplicate: bool = False,
              league_name: str = "L") -> Match:
    league = store.find_league(league_name) or store.create_league(league_name, 'games = ["FT"]\n')
    return store.create_match(league.league_id, seat_bots=seats, games=("FT", "FO/8"),
                              is_duplicate=is_duplicate)


def test_both_stores_implement_the_interface(tmp_path: Path, postgres: PostgresServer) -> None:
    stores: list[ResultsStore] = [SqliteStore(tmp_path / "r.sqlite"),  # mypy checks the Protocol here
                                  PostgresStore(postgres.new_database())]
    assert isinstance(open_store(str(tmp_path / "r.sqlite")), SqliteStore)
    for store in stores:
        store.close()


def test_round_trip_of_leagues_bots_matches_and_hands(store: ResultsStore) -> None:
    league = store.create_league("spring", '[rules]\ngames = ["FT", "FR"]\n')
    assert store.get_league(league.league_id) == league
    assert store.find_league("spring") == league and store.find_league("autumn") is None
    match = store.create_match(league.league_id, seat_bots=("bob", "alice", "carol"), games=("FT", "FR"),
                               match_format=MatchFormat.CASH)
    assert (match.status, match.seed, match.finished_at) == (MatchStatus.RUNNING, None, None)
    assert match.seat_bots == ("bob", "alice", "carol") and match.games == ("FT", "FR")
    hands = [make_hand(match.match_id, 1, ("bob", "alice", "carol"), (30, -20, -10)),
             make_hand(match.match_id, 2, ("alice", "carol", "bob"), (-5, 0, 5), game="FR")]
    assert all(store.record_hand(h) for h in hands)
    assert store.completed_hands(match.match_id) == hands
    assert store.next_hand_number(match.match_id) == 3
    finished = store.finish_match(match.match_id, "0xfeedface")
    assert (finished.status, finished.seed) == (MatchStatus.FINISHED, "0xfeedface")
    assert store.get_match(match.match_id) == finished
    assert store.list_matches(league.league_id) == [finished]
    with pytest.raises(InvalidRecord, match="finished"):
        store.record_hand(make_hand(match.match_id, 3, ("alice", "bob"), (1, -1)))


def test_round_trip_survives_reopening(opener: Opener) -> None:
    store = opener()
    store.register_bot("alice", "a" * 20)
    store.register_bot("bob", "b" * 20)
    match = new_match(store)
    hand = make_hand(match.match_id, 1, ("alice", "bob"), (40, -40))
    store.record_hand(hand)
    store.close()
    store = opener()
    assert store.completed_hands(match.match_id) == [hand]
    assert store.get_match(match.match_id) == match
    store.close()


def test_tokens_are_stored_only_as_salted_hashes(tmp_path: Path) -> None:
    path = tmp_path / "r.sqlite"
    token = "correct-horse-battery-staple"
    with SqliteStore(path) as store:
        store.register_bot("alice", token)
        store.register_bot("bob", token)
        assert store.verify_bot_token("alice", token)
        assert not store.verify_bot_token("alice", token + "!")
        assert not store.verify_bot_token("nobody", token)
        with pytest.raises(AlreadyExists):
            store.register_bot("alice", "other")
        with pytest.raises(InvalidRecord):
            store.register_bot("no spaces please", "x")
    files = b"".join(p.read_bytes() for p in tmp_path.iterdir())
    assert token.encode() not in files
    with sqlite3.connect(path) as db:
        hashes = [r[0] for r in db.execute("SELECT token_hash FROM bots")]
    assert len(set(hashes)) == 2 and all(h.startswith("scrypt$") for h in hashes)  # salted: they differ


def test_recording_a_hand_twice_counts_it_once(store: ResultsStore) -> None:
    match = new_match(store)
    hand = make_hand(match.match_id, 1, ("alice", "bob"), (20, -20))
    assert store.record_hand(hand) is True
    assert store.record_hand(replace(hand, finished_at=hand.finished_at + timedelta(seconds=1))) is False
    assert len(store.completed_hands(match.match_id)) == 1
    league_id = match.league_id
    results = sorted((r.bot, r.net_chips) for r in store.iter_results(league_id))
    assert results == [("alice", 20), ("bob", -20)]
    with pytest.raises(HandConflict, match="different result"):
        store.record_hand(make_hand(match.match_id, 1, ("alice", "bob"), (-20, 20)))


@pytest.mark.parametrize(("build", "message"), [
    (lambda m: make_hand(m, 1, ("alice", "bob"), (20, -10)), "sum to 10"),
    (lambda m: make_hand(m, 1, ("alice", "carol"), (20, -20)), "not seated"),
    (lambda m: make_hand(m, 1, ("alice", "bob"), (20, -20), copy_index=1), "not duplicate"),
    (lambda m: make_hand(m, 1, ("alice", "bob"), (20, -20), game="NLHE"), "unknown game"),
    (lambda m: make_hand(m, 0, ("alice", "bob"), (20, -20)), "start at 1"),
    (lambda m: make_hand(m, 1, ("alice", "alice"), (20, -20)), "sits twice"),
])
def test_record_hand_refuses_impossible_hands(store: ResultsStore, build: Callable[[int], HandRecord],
                                              message: str) -> None:
    match = new_match(store)
    with pytest.raises(InvalidRecord, match=message):
        store.record_hand(build(match.match_id))
    assert store.completed_hands(match.match_id) == []


def test_unknown_ids_raise_not_found(store: ResultsStore) -> None:
    with pytest.raises(NotFound):
        store.get_match(99)
    with pytest.raises(NotFound):
        store.record_hand(make_hand(99, 1, ("alice", "bob"), (1, -1)))
    with pytest.raises(NotFound, match="register it first"):
        new_match(store, seats=("alice", "zed"))
    assert issubclass(NotFound, StoreError) and issubclass(StoreError, ArenaError)


def test_league_config_must_be_toml(store: ResultsStore) -> None:
    with pytest.raises(ConfigError, match="not valid TOML"):
        store.create_league("bad", "games = [")


def test_void_hands_keep_their_number_and_count_for_nobody(store: ResultsStore) -> None:
    match = new_match(store)
    store.record_hand(make_hand(match.match_id, 1, ("alice", "bob"), (20, -20)))
    void = VoidHand(match.match_id, 2, 0, "deal-2", "FO/8", 20, 1, "dealer shut down", "", T0, T0)
    assert store.void_hand(void) is True
    assert store.void_hand(void) is False
    assert store.void_hands(match.match_id) == [void]
    assert [h.hand_number for h in store.completed_hands(match.match_id)] == [1]
    assert store.next_hand_number(match.match_id) == 3
    assert {r.hand_number for r in store.iter_results(match.league_id)} == {1}
    with pytest.raises(HandConflict, match="void"):
        store.record_hand(make_hand(match.match_id, 2, ("alice", "bob"), (20, -20), deal_id="deal-2"))


def test_a_deal_voided_in_one_duplicate_copy_is_scored_in_none(store: ResultsStore) -> None:
    """docs/house-rules.md §8 duplicate (luck cancels out) with §5 (a hand the dealer cannot finish is
    void): when a worker dies in copy 1 of deal 2, copy 0's result of deal 2 would stand alone,
    its luck uncancelled; like a fouled board in duplicate play, the deal counts in no copy."""
    match = new_match(store, is_duplicate=True)
    for number, nets in ((1, (5, -5)), (2, (-400, 400)), (3, (7, -7))):
        store.record_hand(make_hand(match.match_id, number, ("alice", "bob"), nets, copy_index=0))
    store.record_hand(make_hand(match.match_id, 1, ("bob", "alice"), (-5, 5), copy_index=1))
    store.void_hand(VoidHand(match.match_id, 2, 1, "deal-2", "FO/8", 20, 1, "worker lost", "",
                             T0, T0))
    store.record_hand(make_hand(match.match_id, 3, ("bob", "alice"), (3, -3), copy_index=1))
    rows = list(store.iter_results(match.league_id))
    assert {(r.hand_number, r.copy_index) for r in rows} == {(1, 0), (1, 1), (3, 0), (3, 1)}
    assert sum(r.net_chips for r in rows if r.bot == "alice") == 5 + 5 + 7 - 3
    assert len(store.completed_hands(match.match_id)) == 5  # the hand itself stays recorded


def test_next_hand_number_per_duplicate_copy(store: ResultsStore) -> None:
    match = new_match(store, is_duplicate=True)
    assert store.next_hand_number(match.match_id) == 1
    for number in (1, 2, 3):
        store.record_hand(make_hand(match.match_id, number, ("alice", "bob"), (5, -5), copy_index=0))
    store.record_hand(make_hand(match.match_id, 1, ("bob", "alice"), (-5, 5), copy_index=1))
    assert store.next_hand_number(match.match_id) == 4
    assert store.next_hand_number(match.match_id, copy_index=0) == 4
    assert store.next_hand_number(match.match_id, copy_index=1) == 2
    assert [(h.hand_number, h.copy_index) for h in store.completed_hands(match.match_id)] == [
        (1, 0), (1, 1), (2, 0), (3, 0)]


def test_iter_results_yields_each_bot_with_its_opponents(store: ResultsStore) -> None:
    match = new_match(store, seats=BOTS)
    store.record_hand(make_hand(match.match_id, 1, ("carol", "alice", "bob"), (-30, 50, -20), game="F7S"))
    aborted = new_match(store)
    store.record_hand(make_hand(aborted.match_id, 1, ("alice", "bob"), (10, -10)))
    store.abort_match(aborted.match_id)
    rows = list(store.iter_results(match.league_id))
    assert [(r.bot, r.seat, r.net_chips) for r in rows] == [
        ("carol", 0, -30), ("alice", 1, 50), ("bob", 2, -20)]
    assert rows[1].opponents == (("carol", -30), ("bob", -20))
    assert {(r.game_code, r.small_bet_chips, r.match_id, r.deal_id) for r in rows} == {
        ("F7S", 20, match.match_id, "deal-1")}
    everything = list(store.iter_results(match.league_id, statuses=list(MatchStatus)))
    assert len(everything) == 5


def test_threads_record_concurrently(store: ResultsStore) -> None:
    match = new_match(store, is_duplicate=True)

    def play(copy_index: int) -> None:
        for number in range(1, 26):
            store.record_hand(make_hand(match.match_id, number, ("alice", "bob"), (copy_index, -copy_index),
                                        copy_index=copy_index))

    threads = [threading.Thread(target=play, args=(c,)) for c in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(store.completed_hands(match.match_id)) == 100


def test_durability_pragmas(tmp_path: Path) -> None:
    store = SqliteStore(tmp_path / "r.sqlite")
    db = store._connection  # white-box: the settings the docstring promises
    assert db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    assert db.execute("PRAGMA synchronous").fetchone()[0] == 2  # FULL
    assert db.execute("PRAGMA foreign_keys").fetchone()[0] == 1


# --------------------------------------------------------------------------- crashes

CHILD = """
import sys, time
from datetime import UTC, datetime
from arena.storage.store import HandRecord, SeatResult, SqliteStore

path, match_id, stop_at = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
store = SqliteStore(path)
now = datetime.now(UTC)
current = [0]

def trace(sql):
    # Park inside the transaction of hand `stop_at`: its hands row is written, its seats are not.
    if current[0] == stop_at and sql.lstrip().upper().startswith("INSERT INTO HAND_SEATS"):
        print("inside", flush=True)
        time.sleep(60)

store._connection.set_trace_callback(trace)
number = 0
while True:
    number += 1
    current[0] = number
    net = number % 7 - 3
    seats = (SeatResult(0, "alice", net, 2000 + net), SeatResult(1, "bob", -net, 2000 - net))
    store.record_hand(HandRecord(match_id, number, 0, f"d{number}", "FT", 20, 1, seats,
                                 "x" * 5000, now, now))
    print(number, flush=True)
"""


def run_child_until(path: Path, match_id: int, *, stop_at: int, kill_after_acks: int | None,
                    linger_seconds: float = 0.0) -> list[int]:
    """Start a recording process, SIGKILL it, and return the hand numbers it reported committed
    (all it printed: the child does not wait for this process to read, so on a busy machine it
    may have reported many more hands than the ``kill_after_acks`` read before the kill)."""
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    child = subprocess.Popen([sys.executable, "-c", CHILD, str(path), str(match_id), str(stop_at)],
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    acked: list[int] = []
    assert child.stdout is not None
    try:
        for line in child.stdout:
            if line.startswith("inside"):
                break
            acked.append(int(line))
            if kill_after_acks is not None and len(acked) >= kill_after_acks:
                break
    finally:
        time.sleep(linger_seconds)  # the child records on meanwhile, as on a busy machine
        os.kill(child.pid, signal.SIGKILL)
        child.wait(timeout=10)
        rest = child.stdout.read()
        child.stdout.close()
        stderr = child.stderr.read() if child.stderr else ""
        if child.stderr:
            child.stderr.close()
    assert child.returncode == -signal.SIGKILL, stderr
    # Each number is printed whole (one small write); what follows "inside" is nothing.
    return acked + [int(line) for line in rest.splitlines(keepends=True)
                    if line.endswith("\n") and not line.startswith("inside")]


def check_every_hand_whole_and_once(path: Path, match_id: int) -> list[int]:
    with SqliteStore(path) as store:
        assert store.check_integrity() == []
        hands = store.completed_hands(match_id)
        numbers = [h.hand_number for h in hands]
        assert numbers == list(range(1, len(numbers) + 1))  # contiguous, each exactly once
        assert all(len(h.seats) == 2 and sum(s.net_chips for s in h.seats) == 0 for h in hands)
        db = store._connection
        assert db.execute("SELECT COUNT(*) FROM hand_seats").fetchone()[0] == 2 * len(hands)
        orphans = db.execute("SELECT COUNT(*) FROM hands h WHERE NOT EXISTS "
                             "(SELECT 1 FROM hand_seats s WHERE s.hand_id = h.hand_id)").fetchone()[0]
        assert orphans == 0
    return numbers


@pytest.fixture
def crash_db(tmp_path: Path) -> tuple[Path, int]:
    path = tmp_path / "crash.sqlite"
    with SqliteStore(path) as store:
        store.register_bot("alice", "a" * 16)
        store.register_bot("bob", "b" * 16)
        return path, new_match(store).match_id


def test_sigkill_inside_a_hand_transaction_leaves_no_partial_hand(crash_db: tuple[Path, int]) -> None:
    path, match_id = crash_db
    acked = run_child_until(path, match_id, stop_at=30, kill_after_acks=None)
    assert acked == list(range(1, 30))
    assert check_every_hand_whole_and_once(path, match_id) == acked  # hand 30 rolled back whole
    with SqliteStore(path) as store:
        assert store.next_hand_number(match_id) == 30


def test_sigkill_while_recording_keeps_every_committed_hand(crash_db: tuple[Path, int]) -> None:
    path, match_id = crash_db
    acked = run_child_until(path, match_id, stop_at=-1, kill_after_acks=40, linger_seconds=0.3)
    numbers = check_every_hand_whole_and_once(path, match_id)
    assert set(acked) <= set(numbers)  # committed and reported: durable
    assert len(numbers) <= len(acked) + 1  # at most the hand committed but not yet reported


# --------------------------------------------------------------------------- migrations

FROZEN_MIGRATIONS = {  # sha256 of each released step: editing one breaks every existing database
    1: "e63b47e20a054e3865a2337ddd0935708ce86e306be1369c4f18d2e958d2a33a",
    2: "702a39a2f55e3fd1d9c4cfe458260ea8bfed8253d0e795b212976f6c1cb3e39f",
    3: "2c76cd775282ed94a4aec444f81ac7967cc214417da929aa903b17e528821edd",
    4: "2eedf687cfea9e789a0e3e28c55a5608e42d68869dd6c53712bae690edd4ae69",
    5: "c1c98533bb8d3dd568c2c7e3c7392d643e37f0ac047e82ed0d375c2ecb1ce3fd",
    6: "2c74d540886c9bc84c6d418254ad193c33d779683ad5b68c45c60e28647559d6",
    7: "5c7c26c57a935bb4e35272586ea564b5d5ecf9665627541c7a50ffc9fd9f6185",
    8: "f274a9a3a2102ffdd3dd322d4094e0fbce06c2ab5d67c67b947ebabde927c288",
    9: "88d22dfc7ffe4e44e95140072ef426f8becd3117edd5ccf1a572a91c52854e56",
    10: "416a2d43ed394849ccfd8d9afdc11173fec83281f88994521e4c12a92185b59b",
}


def test_released_migrations_are_frozen_and_ordered() -> None:
    assert [m.version for m in MIGRATIONS] == list(range(1, LATEST_VERSION + 1))
    for migration in MIGRATIONS:
        if migration.version in FROZEN_MIGRATIONS:
            digest = hashlib.sha256("\n".join(migration.statements).encode()).hexdigest()
            assert digest == FROZEN_MIGRATIONS[migration.version], f"migration {migration.version} was edited"


def test_a_version_1_database_is_migrated_to_the_latest(tmp_path: Path) -> None:
    path = tmp_path / "v1.sqlite"
    db = sqlite3.connect(path, isolation_level=None)
    assert apply_migrations(db, target_version=1) == 1
    db.executescript(f"""
        INSERT INTO leagues VALUES (1, 'old', 'x = 1', '{T0.isoformat()}');
        INSERT INTO bots VALUES (1, 'alice', 'scrypt$legacy', '{T0.isoformat()}');
        INSERT INTO bots VALUES (2, 'bob', 'scrypt$legacy', '{T0.isoformat()}');
        INSERT INTO matches VALUES (1, 1, '["FT"]', 'cash', 0, 'running', NULL, '{T0.isoformat()}', NULL);
        INSERT INTO match_seats VALUES (1, 0, 1), (1, 1, 2);
        INSERT INTO hands VALUES (1, 1, 1, 0, 'd1', 'FT', 20, 1, 'completed', 'phh', '{T0.isoformat()}',
                                  '{T0.isoformat()}');
        INSERT INTO hand_seats VALUES (1, 0, 1, 15, 2015), (1, 1, 2, -15, 1985);
        INSERT INTO hands VALUES (2, 1, 2, 0, 'd2', 'FT', 20, 0, 'void', '', '{T0.isoformat()}',
                                  '{T0.isoformat()}');
    """)
    db.close()
    with SqliteStore(path) as store:
        assert store.schema_version == LATEST_VERSION
        assert [(h.hand_number, [s.net_chips for s in h.seats]) for h in store.completed_hands(1)] == [
            (1, [15, -15])]
        assert [v.reason for v in store.void_hands(1)] == ["unknown"]  # step 2 filled in old void hands
        assert store.next_hand_number(1) == 3
        versions = [r[0] for r in store._connection.execute("SELECT version FROM schema_version ORDER BY 1")]
        assert versions == list(range(1, LATEST_VERSION + 1))
        assert store.check_integrity() == []


def test_a_newer_database_is_refused_untouched(tmp_path: Path) -> None:
    path = tmp_path / "new.sqlite"
    SqliteStore(path).close()
    with sqlite3.connect(path) as db:
        db.execute("INSERT INTO schema_version VALUES (?, 'from the future', '2030-01-01')",
                   (LATEST_VERSION + 1,))
    db.close()
    before = path.read_bytes()
    with pytest.raises(SchemaTooNew, match="newer arena"):
        SqliteStore(path)
    assert path.read_bytes() == before


# --------------------------------------------------------------------------- bad files


def _damaged_sqlite(path: Path) -> None:
    with SqliteStore(path) as store:
        store.create_league("x", "")
    data = bytearray(path.read_bytes())
    data[100:4096] = os.urandom(3996)  # page 1 after the header: the schema table
    path.write_bytes(bytes(data))


@pytest.mark.parametrize("kind", ["random", "text", "other-app", "damaged"])
def test_a_file_that_is_not_a_results_store_is_refused_untouched(tmp_path: Path, kind: str) -> None:
    path = tmp_path / f"{kind}.sqlite"
    if kind == "random":
        path.write_bytes(os.urandom(8192))
    elif kind == "text":
        path.write_text("league = 'not a database'\n" * 100)
    elif kind == "other-app":
        with sqlite3.connect(path) as db:
            db.execute("CREATE TABLE photos (id INTEGER PRIMARY KEY, name TEXT)")
        db.close()
    else:
        _damaged_sqlite(path)
        for extra in tmp_path.glob("*-wal"):
            extra.unlink()
        for extra in tmp_path.glob("*-shm"):
            extra.unlink()
    before = path.read_bytes()
    siblings = sorted(p.name for p in tmp_path.iterdir())
    with pytest.raises(CorruptStore) as caught:
        SqliteStore(path)
    assert str(path) in str(caught.value)
    assert path.read_bytes() == before
    if kind != "damaged":
        assert sorted(p.name for p in tmp_path.iterdir()) == siblings  # no -wal/-shm left beside it


def test_a_directory_is_a_clear_error(tmp_path: Path) -> None:
    with pytest.raises(StoreError, match="directory"):
        SqliteStore(tmp_path)


def test_luck_is_stored_once_per_hand_and_value_function(store: SqliteStore) -> None:
    """Luck is computed only for ended matches (seed revealed), kept per value function,
    recorded idempotently, and joined to the per-bot results."""
    match = new_match(store)
    for number in (1, 2):
        store.record_hand(make_hand(match.match_id, number, ("alice", "bob"), (30, -30)))
    assert store.hands_without_luck(match.league_id, "pot-equity/400/1000") == []  # still running
    store.finish_match(match.match_id, "12345")
    pending = store.hands_without_luck(match.league_id, "pot-equity/400/1000")
    assert [(p.hand_number, p.seed) for p in pending] == [(1, "12345"), (2, "12345")]
    record = HandLuckRecord(match.match_id, 1, 0, "pot-equity/400/1000", (12.5, -12.5))
    assert store.record_luck([record]) == 1
    assert store.record_luck([record]) == 0  # idempotent
    assert [p.hand_number for p in store.hands_without_luck(match.league_id, "pot-equity/400/1000")] == [2]
    assert len(store.hands_without_luck(match.league_id, "other")) == 2
    rows = list(store.iter_results(match.league_id, value_function="pot-equity/400/1000"))
    by_hand = {(r.hand_number, r.bot): r for r in rows}
    assert by_hand[(1, "alice")].luck_chips == 12.5
    assert by_hand[(1, "alice")].opponents_luck_chips == (-12.5,)
    assert by_hand[(2, "bob")].luck_chips is None
    assert all(r.luck_chips is None for r in store.iter_results(match.league_id))
    for bad in (HandLuckRecord(match.match_id, 2, 0, "v", (float("nan"), 0.0)),
                HandLuckRecord(match.match_id, 2, 0, "", (1.0, -1.0))):
        with pytest.raises(InvalidRecord):
            store.record_luck([bad])
    with pytest.raises(InvalidRecord, match="3 luck values for 2 seats"):
        store.record_luck([HandLuckRecord(match.match_id, 2, 0, "v", (1.0, -1.0, 0.0))])
    with pytest.raises(NotFound):
        store.record_luck([HandLuckRecord(match.match_id, 9, 0, "v", (1.0, -1.0))])


def test_iter_hand_texts_gives_the_completed_hands_logs_of_the_league(store: ResultsStore) -> None:
    """Issue 40 (the leaderboard's share of strategy replies reads them): completed hands only,
    of this league only, match by match in hand order."""
    match = new_match(store)
    store.record_hand(make_hand(match.match_id, 2, ("alice", "bob"), (20, -20)))
    store.record_hand(make_hand(match.match_id, 1, ("alice", "bob"), (-5, 5)))
    store.void_hand(VoidHand(match.match_id, 3, 0, "deal-3", "FT", 20, 1, "dealer shut down", "",
                             T0, T0))
    other = new_match(store, league_name="other")
    store.record_hand(make_hand(other.match_id, 1, ("alice", "bob"), (1, -1)))
    texts = list(store.iter_hand_texts(match.league_id))
    assert texts == [h.phh_text for h in store.completed_hands(match.match_id)]
    assert len(texts) == 2
