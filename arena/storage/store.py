"""Results store: leagues, bots, matches and hands, one committed SQLite transaction per hand.

`ResultsStore` is the interface the dealer and the leaderboard use; `SqliteStore` implements it on
the standard library's sqlite3 (WAL journal, ``synchronous=FULL``), with ordered schema migrations.
"""

from __future__ import annotations

import base64
import functools
import hashlib
import hmac
import json
import os
import re
import secrets
import sqlite3
import threading
import tomllib
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime
from enum import StrEnum
from pathlib import Path
from typing import Literal, Protocol

from arena.engine.errors import ArenaError, ConfigError
from arena.engine.games import VARIANTS

# --------------------------------------------------------------------------- errors


class StoreError(ArenaError):
    """A results store that cannot be opened, read or written as asked."""


class CorruptStore(StoreError):
    """A file that is not an SQLite database, is damaged, or is not an arena results store."""


class SchemaTooNew(StoreError):
    """A database written by a newer arena: this version cannot read it safely."""


class NotFound(StoreError, LookupError):
    """A league, bot or match that does not exist."""


class AlreadyExists(StoreError):
    """A league or bot name that is already taken."""


class InvalidRecord(StoreError, ValueError):
    """A value the store refuses: chips that do not sum to zero, an unknown game, a finished match."""


class HandConflict(StoreError):
    """A different hand is already recorded under the same (match, hand number, copy)."""


# --------------------------------------------------------------------------- values


class MatchStatus(StrEnum):
    RUNNING = "running"
    FINISHED = "finished"
    ABORTED = "aborted"


class MatchFormat(StrEnum):
    CASH = "cash"
    TOURNAMENT = "tournament"


class HandStatus(StrEnum):
    COMPLETED = "completed"
    VOID = "void"


@dataclass(frozen=True, slots=True)
class League:
    league_id: int
    name: str
    config_toml: str
    created_at: datetime


@dataclass(frozen=True, slots=True)
class Bot:
    """A registered bot; the token's hash never leaves the store."""

    bot_id: int
    name: str
    created_at: datetime


@dataclass(frozen=True, slots=True)
class Match:
    match_id: int
    league_id: int
    games: tuple[str, ...]  # the rotation, PHH codes
    match_format: MatchFormat
    is_duplicate: bool
    seat_bots: tuple[str, ...]  # bot name per seat at the start of the match
    status: MatchStatus
    seed: str | None  # secret while running: revealed by finish_match / abort_match
    created_at: datetime
    finished_at: datetime | None


@dataclass(frozen=True, slots=True)
class SeatResult:
    seat: int  # 0-based seat of the hand, as in its PHH log
    bot: str
    net_chips: int
    final_stack_chips: int


@dataclass(frozen=True, slots=True)
class HandRecord:
    """One completed hand: what `record_hand` commits and `completed_hands` returns."""

    match_id: int
    hand_number: int  # 1-based within the match
    copy_index: int  # 0 unless the match is duplicate: which replay of the deal
    deal_id: str  # the same for every copy of one deal
    game_code: str
    small_bet_chips: int
    button_seat: int
    seats: tuple[SeatResult, ...]
    phh_text: str
    started_at: datetime
    finished_at: datetime


@dataclass(frozen=True, slots=True)
class VoidHand:
    """A misdeal (RULES.md §5): every chip went back; it keeps its hand number and counts for nobody."""

    match_id: int
    hand_number: int
    copy_index: int
    deal_id: str
    game_code: str
    small_bet_chips: int
    button_seat: int
    reason: str
    phh_text: str  # the log up to the failure; may be empty
    started_at: datetime
    voided_at: datetime


@dataclass(frozen=True, slots=True)
class ResultRow:
    """One bot's result in one completed hand; satisfies `arena.league.stats.PerHandResult`."""

    bot: str
    game_code: str
    net_chips: int
    small_bet_chips: int
    match_id: int
    hand_number: int
    deal_id: str
    copy_index: int
    seat: int
    opponents: tuple[tuple[str, int], ...]  # (bot, net chips) of every other seat of the hand


# --------------------------------------------------------------------------- interface


class ResultsStore(Protocol):
    """What the dealer and the leaderboard need from a results store (SQLite now, a server later)."""

    def close(self) -> None: ...

    def create_league(self, name: str, config_toml: str) -> League: ...

    def get_league(self, league_id: int) -> League: ...

    def find_league(self, name: str) -> League | None: ...

    def list_leagues(self) -> list[League]: ...

    def register_bot(self, name: str, token: str) -> Bot: ...

    def get_bot(self, name: str) -> Bot: ...

    def list_bots(self) -> list[Bot]: ...

    def verify_bot_token(self, name: str, token: str) -> bool: ...

    def create_match(self, league_id: int, *, seat_bots: Sequence[str], games: Sequence[str],
                     match_format: MatchFormat = MatchFormat.CASH, is_duplicate: bool = False) -> Match: ...

    def get_match(self, match_id: int) -> Match: ...

    def list_matches(self, league_id: int) -> list[Match]: ...

    def record_hand(self, hand: HandRecord) -> bool: ...

    def void_hand(self, hand: VoidHand) -> bool: ...

    def finish_match(self, match_id: int, seed: str) -> Match: ...

    def abort_match(self, match_id: int, *, seed: str | None = None) -> Match: ...

    def completed_hands(self, match_id: int) -> list[HandRecord]: ...

    def void_hands(self, match_id: int) -> list[VoidHand]: ...

    def next_hand_number(self, match_id: int, *, copy_index: int | None = None) -> int: ...

    def iter_results(self, league_id: int, *,
                     statuses: Iterable[MatchStatus] = (MatchStatus.RUNNING, MatchStatus.FINISHED),
                     ) -> Iterator[ResultRow]: ...


# --------------------------------------------------------------------------- schema


@dataclass(frozen=True, slots=True)
class Migration:
    """One schema step. Released steps are never edited: a change is a new step at the end."""

    version: int
    description: str
    statements: tuple[str, ...]


MIGRATIONS: tuple[Migration, ...] = (
    Migration(1, "leagues, bots, matches with seats, hands with per-seat results", (
        """CREATE TABLE schema_version (
            version INTEGER PRIMARY KEY,
            description TEXT NOT NULL,
            applied_at TEXT NOT NULL
        )""",
        """CREATE TABLE leagues (
            league_id INTEGER PRIMARY KEY,
            name TEXT NOT NULL UNIQUE,
            config_toml TEXT NOT NULL,
            created_at TEXT NOT NULL
        )""",
        """CREATE TABLE bots (
            bot_id INTEGER PRIMARY KEY,
            name TEXT NOT NULL UNIQUE,
            token_hash TEXT NOT NULL,
            created_at TEXT NOT NULL
        )""",
        """CREATE TABLE matches (
            match_id INTEGER PRIMARY KEY,
            league_id INTEGER NOT NULL REFERENCES leagues(league_id),
            games TEXT NOT NULL,
            format TEXT NOT NULL CHECK (format IN ('cash', 'tournament')),
            is_duplicate INTEGER NOT NULL CHECK (is_duplicate IN (0, 1)),
            status TEXT NOT NULL CHECK (status IN ('running', 'finished', 'aborted')),
            seed TEXT CHECK (seed IS NULL OR status <> 'running'),
            created_at TEXT NOT NULL,
            finished_at TEXT CHECK ((finished_at IS NULL) = (status = 'running'))
        )""",
        "CREATE INDEX matches_by_league ON matches(league_id)",
        """CREATE TABLE match_seats (
            match_id INTEGER NOT NULL REFERENCES matches(match_id),
            seat INTEGER NOT NULL CHECK (seat >= 0),
            bot_id INTEGER NOT NULL REFERENCES bots(bot_id),
            PRIMARY KEY (match_id, seat),
            UNIQUE (match_id, bot_id)
        ) WITHOUT ROWID""",
        """CREATE TABLE hands (
            hand_id INTEGER PRIMARY KEY,
            match_id INTEGER NOT NULL REFERENCES matches(match_id),
            hand_number INTEGER NOT NULL CHECK (hand_number >= 1),
            copy_index INTEGER NOT NULL CHECK (copy_index >= 0),
            deal_id TEXT NOT NULL,
            game_code TEXT NOT NULL CHECK (game_code IN ('FT', 'FO/8', 'FR', 'F7S', 'F7S/8')),
            small_bet_chips INTEGER NOT NULL CHECK (small_bet_chips > 0),
            button_seat INTEGER NOT NULL CHECK (button_seat >= 0),
            status TEXT NOT NULL CHECK (status IN ('completed', 'void')),
            phh_text TEXT NOT NULL,
            started_at TEXT NOT NULL,
            finished_at TEXT NOT NULL,
            UNIQUE (match_id, hand_number, copy_index)
        )""",
        "CREATE INDEX hands_by_deal ON hands(match_id, deal_id)",
        """CREATE TABLE hand_seats (
            hand_id INTEGER NOT NULL REFERENCES hands(hand_id),
            seat INTEGER NOT NULL CHECK (seat >= 0),
            bot_id INTEGER NOT NULL REFERENCES bots(bot_id),
            net_chips INTEGER NOT NULL,
            final_stack_chips INTEGER NOT NULL CHECK (final_stack_chips >= 0),
            PRIMARY KEY (hand_id, seat)
        ) WITHOUT ROWID""",
    )),
    Migration(2, "reason of each void hand; per-bot results index", (
        "ALTER TABLE hands ADD COLUMN void_reason TEXT",
        "UPDATE hands SET void_reason = 'unknown' WHERE status = 'void'",
        "CREATE INDEX hand_seats_by_bot ON hand_seats(bot_id)",
    )),
)
LATEST_VERSION = MIGRATIONS[-1].version

_SQLITE_MAGIC = b"SQLite format 3\x00"
_BOT_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.\-]{0,63}")
_LEAGUE_NAME_MAX = 200

# scrypt: tokens may be chosen by people, so a slow salted hash; checked once per connection.
_SCRYPT_N, _SCRYPT_R, _SCRYPT_P = 2**14, 8, 1


def hash_token(token: str, *, salt: bytes | None = None) -> str:
    """``scrypt$n$r$p$salt$hash`` (base64): what the store keeps instead of a bot's token."""
    salt = secrets.token_bytes(16) if salt is None else salt
    digest = hashlib.scrypt(token.encode(), salt=salt, n=_SCRYPT_N, r=_SCRYPT_R, p=_SCRYPT_P, dklen=32)
    b64 = base64.b64encode
    return f"scrypt${_SCRYPT_N}${_SCRYPT_R}${_SCRYPT_P}${b64(salt).decode()}${b64(digest).decode()}"


def verify_token(token: str, token_hash: str) -> bool:
    try:
        scheme, n, r, p, salt_b64, digest_b64 = token_hash.split("$")
        if scheme != "scrypt":
            return False
        salt, expected = base64.b64decode(salt_b64), base64.b64decode(digest_b64)
        digest = hashlib.scrypt(token.encode(), salt=salt, n=int(n), r=int(r), p=int(p), dklen=len(expected))
    except ValueError:
        return False
    return hmac.compare_digest(digest, expected)


def _now() -> datetime:
    return datetime.now(UTC)


def _ts(moment: datetime) -> str:
    if moment.tzinfo is None:
        raise InvalidRecord(f"timestamp {moment.isoformat()} has no time zone; use an aware datetime")
    return moment.astimezone(UTC).isoformat(timespec="microseconds")


def _dt(text: str) -> datetime:
    return datetime.fromisoformat(text)


def apply_migrations(connection: sqlite3.Connection, *, target_version: int = LATEST_VERSION,
                     clock: Callable[[], datetime] = _now) -> int:
    """Bring an (autocommit) connection's schema up to ``target_version``, one transaction per step.

    Safe against a second process migrating at the same time: each step re-reads the version
    inside its write transaction. Returns the version reached.
    """
    for migration in MIGRATIONS:
        if migration.version > target_version:
            break
        connection.execute("BEGIN IMMEDIATE")
        try:
            if _schema_version(connection) >= migration.version:
                connection.execute("ROLLBACK")
                continue
            for statement in migration.statements:
                connection.execute(statement)
            connection.execute(
                "INSERT INTO schema_version (version, description, applied_at) VALUES (?, ?, ?)",
                (migration.version, migration.description, _ts(clock())))
            connection.execute("COMMIT")
        except BaseException:
            if connection.in_transaction:
                connection.execute("ROLLBACK")
            raise
    return _schema_version(connection)


def _schema_version(connection: sqlite3.Connection) -> int:
    """0 for an empty database; raises CorruptStore for an SQLite database of something else."""
    tables = {row[0] for row in connection.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    if not tables:
        return 0
    if "schema_version" not in tables:
        shown = ", ".join(sorted(tables)[:5])
        raise CorruptStore(f"an SQLite database but not an arena results store (no schema_version table; "
                           f"tables: {shown})")
    row = connection.execute("SELECT MAX(version) FROM schema_version").fetchone()
    return int(row[0] or 0)


# --------------------------------------------------------------------------- SQLite


class SqliteStore:
    """`ResultsStore` in one SQLite file; safe to share between threads (one lock, one connection).

    Durability: WAL journal with ``synchronous=FULL`` fsyncs the log at every commit, so a hand
    that `record_hand` returned for survives SIGKILL and power loss; a hand being written when the
    process dies is rolled back whole on the next open. ``NORMAL`` (fsync at checkpoints only)
    also survives SIGKILL but may lose the last hands on power loss; a hand lasts seconds, an
    fsync milliseconds, so FULL is the default.
    """

    def __init__(self, path: str | os.PathLike[str], *, synchronous: Literal["FULL", "NORMAL"] = "FULL",
                 busy_timeout_seconds: float = 5.0, clock: Callable[[], datetime] = _now) -> None:
        self.path = Path(path)
        self._clock = clock
        self._lock = threading.RLock()
        if synchronous not in ("FULL", "NORMAL"):
            raise ConfigError(f"synchronous must be FULL or NORMAL, not {synchronous!r}")
        _check_header(self.path)
        try:
            connection = sqlite3.connect(self.path, isolation_level=None, check_same_thread=False,
                                         timeout=busy_timeout_seconds)
        except sqlite3.Error as exc:
            raise StoreError(f"{self.path}: cannot open: {exc}") from exc
        try:
            # Read-only checks first: a file we refuse must stay byte-for-byte as it was.
            version = _schema_version(connection)
            if version > LATEST_VERSION:
                raise SchemaTooNew(f"schema version {version} was written by a newer arena; this one reads "
                                   f"up to version {LATEST_VERSION}: upgrade arena")
            mode = connection.execute("PRAGMA journal_mode = WAL").fetchone()[0]
            if str(mode).lower() != "wal":
                raise StoreError(f"cannot use the WAL journal (got {mode!r}); is it on a network share?")
            connection.execute(f"PRAGMA synchronous = {synchronous}")
            connection.execute("PRAGMA foreign_keys = ON")
            self.schema_version = apply_migrations(connection, clock=clock)
        except CorruptStore as exc:
            connection.close()
            raise CorruptStore(f"{self.path}: {exc}") from None
        except StoreError as exc:
            connection.close()
            raise type(exc)(f"{self.path}: {exc}") from None
        except sqlite3.DatabaseError as exc:
            connection.close()
            raise CorruptStore(f"{self.path}: not a readable arena results store: {exc}") from exc
        self._connection = connection

    # ------------------------------------------------------------ plumbing

    def close(self) -> None:
        with self._lock:
            self._connection.close()

    def __enter__(self) -> SqliteStore:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    @contextmanager
    def _transaction(self, *, write: bool) -> Iterator[sqlite3.Connection]:
        """One transaction under the lock; sqlite3 errors become StoreError subclasses."""
        with self._lock:
            connection = self._connection
            try:
                connection.execute("BEGIN IMMEDIATE" if write else "BEGIN DEFERRED")
                try:
                    yield connection
                    connection.execute("COMMIT")
                except BaseException:
                    if connection.in_transaction:
                        connection.execute("ROLLBACK")
                    raise
            except sqlite3.IntegrityError as exc:
                raise InvalidRecord(f"{self.path}: refused by a schema constraint: {exc}") from exc
            except sqlite3.DatabaseError as exc:
                if "malformed" in str(exc) or "not a database" in str(exc):
                    raise CorruptStore(f"{self.path}: {exc}") from exc
                raise StoreError(f"{self.path}: {exc}") from exc

    def check_integrity(self) -> list[str]:
        """SQLite's full integrity check plus foreign keys: an empty list when all is well."""
        with self._lock:
            problems = [row[0] for row in self._connection.execute("PRAGMA integrity_check")]
            problems = [] if problems == ["ok"] else problems
            orphans = self._connection.execute("PRAGMA foreign_key_check").fetchall()
            problems += [f"foreign key: {tuple(row)}" for row in orphans]
            return problems

    # ------------------------------------------------------------ leagues

    def create_league(self, name: str, config_toml: str) -> League:
        if not name.strip() or len(name) > _LEAGUE_NAME_MAX:
            raise InvalidRecord(f"league name must have 1 to {_LEAGUE_NAME_MAX} characters, not {name!r}")
        try:
            tomllib.loads(config_toml)
        except tomllib.TOMLDecodeError as exc:
            raise ConfigError(f"league {name!r}: config is not valid TOML: {exc}") from None
        created = self._clock()
        with self._transaction(write=True) as db:
            if db.execute("SELECT 1 FROM leagues WHERE name = ?", (name,)).fetchone():
                raise AlreadyExists(f"a league named {name!r} exists already")
            cursor = db.execute("INSERT INTO leagues (name, config_toml, created_at) VALUES (?, ?, ?)",
                                (name, config_toml, _ts(created)))
            league_id = int(cursor.lastrowid or 0)
        return League(league_id, name, config_toml, _dt(_ts(created)))

    def get_league(self, league_id: int) -> League:
        with self._transaction(write=False) as db:
            row = db.execute("SELECT league_id, name, config_toml, created_at FROM leagues "
                             "WHERE league_id = ?", (league_id,)).fetchone()
        if row is None:
            raise NotFound(f"no league {league_id}")
        return League(row[0], row[1], row[2], _dt(row[3]))

    def find_league(self, name: str) -> League | None:
        with self._transaction(write=False) as db:
            row = db.execute("SELECT league_id, name, config_toml, created_at FROM leagues WHERE name = ?",
                             (name,)).fetchone()
        return None if row is None else League(row[0], row[1], row[2], _dt(row[3]))

    def list_leagues(self) -> list[League]:
        with self._transaction(write=False) as db:
            rows = db.execute("SELECT league_id, name, config_toml, created_at FROM leagues "
                              "ORDER BY league_id").fetchall()
        return [League(r[0], r[1], r[2], _dt(r[3])) for r in rows]

    # ------------------------------------------------------------ bots

    def register_bot(self, name: str, token: str) -> Bot:
        """Register a bot; only a salted scrypt hash of ``token`` is stored."""
        if not _BOT_NAME.fullmatch(name):
            raise InvalidRecord(f"bot name {name!r}: 1 to 64 of A-Z a-z 0-9 _ . -, starting with a letter "
                                f"or digit")
        if not token:
            raise InvalidRecord(f"bot {name!r}: empty token")
        token_hash = hash_token(token)  # slow on purpose: outside the lock
        created = self._clock()
        with self._transaction(write=True) as db:
            if db.execute("SELECT 1 FROM bots WHERE name = ?", (name,)).fetchone():
                raise AlreadyExists(f"a bot named {name!r} is registered already")
            cursor = db.execute("INSERT INTO bots (name, token_hash, created_at) VALUES (?, ?, ?)",
                                (name, token_hash, _ts(created)))
            bot_id = int(cursor.lastrowid or 0)
        return Bot(bot_id, name, _dt(_ts(created)))

    def get_bot(self, name: str) -> Bot:
        with self._transaction(write=False) as db:
            row = db.execute("SELECT bot_id, name, created_at FROM bots WHERE name = ?", (name,)).fetchone()
        if row is None:
            raise NotFound(f"no bot named {name!r}")
        return Bot(row[0], row[1], _dt(row[2]))

    def list_bots(self) -> list[Bot]:
        with self._transaction(write=False) as db:
            rows = db.execute("SELECT bot_id, name, created_at FROM bots ORDER BY name").fetchall()
        return [Bot(r[0], r[1], _dt(r[2])) for r in rows]

    def verify_bot_token(self, name: str, token: str) -> bool:
        with self._transaction(write=False) as db:
            row = db.execute("SELECT token_hash FROM bots WHERE name = ?", (name,)).fetchone()
        if row is None:
            verify_token(token, _dummy_hash())  # same work for unknown names: no timing oracle
            return False
        return verify_token(token, row[0])

    # ------------------------------------------------------------ matches

    def create_match(self, league_id: int, *, seat_bots: Sequence[str], games: Sequence[str],
                     match_format: MatchFormat = MatchFormat.CASH, is_duplicate: bool = False) -> Match:
        seat_bots = tuple(seat_bots)
        games = tuple(games)
        if len(seat_bots) < 2:
            raise InvalidRecord(f"a match needs at least two seats, got {len(seat_bots)}")
        if len(set(seat_bots)) != len(seat_bots):
            raise InvalidRecord(f"a bot sits at most once in a match: {', '.join(seat_bots)}")
        if not games or any(g not in VARIANTS for g in games):
            raise InvalidRecord(f"games must be PHH codes among {', '.join(VARIANTS)}, not {list(games)}")
        match_format = MatchFormat(match_format)
        created = self._clock()
        with self._transaction(write=True) as db:
            if db.execute("SELECT 1 FROM leagues WHERE league_id = ?", (league_id,)).fetchone() is None:
                raise NotFound(f"no league {league_id}")
            bot_ids = self._bot_ids(db, seat_bots)
            cursor = db.execute(
                "INSERT INTO matches (league_id, games, format, is_duplicate, status, seed, created_at) "
                "VALUES (?, ?, ?, ?, 'running', NULL, ?)",
                (league_id, json.dumps(list(games)), match_format.value, int(is_duplicate), _ts(created)))
            match_id = int(cursor.lastrowid or 0)
            db.executemany("INSERT INTO match_seats (match_id, seat, bot_id) VALUES (?, ?, ?)",
                           [(match_id, seat, bot_ids[name]) for seat, name in enumerate(seat_bots)])
            return self._match(db, match_id)

    def get_match(self, match_id: int) -> Match:
        with self._transaction(write=False) as db:
            return self._match(db, match_id)

    def list_matches(self, league_id: int) -> list[Match]:
        with self._transaction(write=False) as db:
            ids = [r[0] for r in db.execute(
                "SELECT match_id FROM matches WHERE league_id = ? ORDER BY match_id", (league_id,))]
            return [self._match(db, match_id) for match_id in ids]

    def finish_match(self, match_id: int, seed: str) -> Match:
        """Close a match and reveal its seed, so every hand can be re-dealt and checked."""
        return self._end_match(match_id, MatchStatus.FINISHED, seed)

    def abort_match(self, match_id: int, *, seed: str | None = None) -> Match:
        return self._end_match(match_id, MatchStatus.ABORTED, seed)

    def _end_match(self, match_id: int, status: MatchStatus, seed: str | None) -> Match:
        with self._transaction(write=True) as db:
            current = self._match(db, match_id)
            if current.status is not MatchStatus.RUNNING:
                raise InvalidRecord(f"match {match_id} is {current.status.value} already")
            db.execute("UPDATE matches SET status = ?, seed = ?, finished_at = ? WHERE match_id = ?",
                       (status.value, seed, _ts(self._clock()), match_id))
            return self._match(db, match_id)

    @staticmethod
    def _match(db: sqlite3.Connection, match_id: int) -> Match:
        row = db.execute("SELECT match_id, league_id, games, format, is_duplicate, status, seed, created_at, "
                         "finished_at FROM matches WHERE match_id = ?", (match_id,)).fetchone()
        if row is None:
            raise NotFound(f"no match {match_id}")
        seats = tuple(r[0] for r in db.execute(
            "SELECT b.name FROM match_seats s JOIN bots b USING (bot_id) WHERE s.match_id = ? "
            "ORDER BY s.seat", (match_id,)))
        return Match(row[0], row[1], tuple(json.loads(row[2])), MatchFormat(row[3]), bool(row[4]), seats,
                     MatchStatus(row[5]), row[6], _dt(row[7]), None if row[8] is None else _dt(row[8]))

    @staticmethod
    def _bot_ids(db: sqlite3.Connection, names: Iterable[str]) -> dict[str, int]:
        ids: dict[str, int] = {}
        for name in names:
            row = db.execute("SELECT bot_id FROM bots WHERE name = ?", (name,)).fetchone()
            if row is None:
                raise NotFound(f"no bot named {name!r}; register it first")
            ids[name] = int(row[0])
        return ids

    # ------------------------------------------------------------ hands

    def record_hand(self, hand: HandRecord) -> bool:
        """Commit one completed hand atomically: its row and every seat's row, or nothing.

        Idempotent on (match, hand number, copy): recording the same hand again returns False and
        changes nothing; a *different* hand under that key raises HandConflict.
        """
        _check_hand(hand)
        with self._transaction(write=True) as db:
            bot_ids = self._running_match_bots(db, hand.match_id, hand.copy_index)
            unknown = [s.bot for s in hand.seats if s.bot not in bot_ids]
            if unknown:
                raise InvalidRecord(f"match {hand.match_id} hand {hand.hand_number}: {', '.join(unknown)} "
                                    f"not seated in this match")
            cursor = db.execute(
                "INSERT INTO hands (match_id, hand_number, copy_index, deal_id, game_code, small_bet_chips, "
                "button_seat, status, phh_text, started_at, finished_at) "
                "VALUES (?, ?, ?, ?, ?, ?, ?, 'completed', ?, ?, ?) "
                "ON CONFLICT (match_id, hand_number, copy_index) DO NOTHING",
                (hand.match_id, hand.hand_number, hand.copy_index, hand.deal_id, hand.game_code,
                 hand.small_bet_chips, hand.button_seat, hand.phh_text, _ts(hand.started_at),
                 _ts(hand.finished_at)))
            if cursor.rowcount == 0:
                self._check_same_hand(db, hand)
                return False
            hand_id = cursor.lastrowid
            db.executemany(
                "INSERT INTO hand_seats (hand_id, seat, bot_id, net_chips, final_stack_chips) "
                "VALUES (?, ?, ?, ?, ?)",
                [(hand_id, s.seat, bot_ids[s.bot], s.net_chips, s.final_stack_chips) for s in hand.seats])
        return True

    def void_hand(self, hand: VoidHand) -> bool:
        """Record a misdeal. Idempotent like `record_hand`; False if this void was recorded already."""
        if hand.hand_number < 1 or hand.copy_index < 0:
            raise InvalidRecord(f"hand number {hand.hand_number} / copy {hand.copy_index} out of range")
        if hand.game_code not in VARIANTS:
            raise InvalidRecord(f"unknown game {hand.game_code!r}")
        if not hand.reason.strip():
            raise InvalidRecord("a void hand needs a reason")
        with self._transaction(write=True) as db:
            self._running_match_bots(db, hand.match_id, hand.copy_index)
            cursor = db.execute(
                "INSERT INTO hands (match_id, hand_number, copy_index, deal_id, game_code, small_bet_chips, "
                "button_seat, status, phh_text, started_at, finished_at, void_reason) "
                "VALUES (?, ?, ?, ?, ?, ?, ?, 'void', ?, ?, ?, ?) "
                "ON CONFLICT (match_id, hand_number, copy_index) DO NOTHING",
                (hand.match_id, hand.hand_number, hand.copy_index, hand.deal_id, hand.game_code,
                 hand.small_bet_chips, hand.button_seat, hand.phh_text, _ts(hand.started_at),
                 _ts(hand.voided_at), hand.reason))
            if cursor.rowcount == 0:
                row = db.execute(
                    "SELECT status, deal_id FROM hands "
                    "WHERE match_id = ? AND hand_number = ? AND copy_index = ?",
                    (hand.match_id, hand.hand_number, hand.copy_index)).fetchone()
                if row[0] != HandStatus.VOID.value or row[1] != hand.deal_id:
                    raise HandConflict(f"match {hand.match_id} hand {hand.hand_number} copy "
                                       f"{hand.copy_index} is recorded already as a {row[0]} hand of deal "
                                       f"{row[1]!r}")
                return False
        return True

    def _running_match_bots(self, db: sqlite3.Connection, match_id: int, copy_index: int) -> dict[str, int]:
        row = db.execute("SELECT status, is_duplicate FROM matches WHERE match_id = ?",
                         (match_id,)).fetchone()
        if row is None:
            raise NotFound(f"no match {match_id}")
        if row[0] != MatchStatus.RUNNING.value:
            raise InvalidRecord(f"match {match_id} is {row[0]}: no more hands can be recorded")
        if copy_index != 0 and not row[1]:
            raise InvalidRecord(f"match {match_id} is not duplicate: copy index must be 0, not {copy_index}")
        return {name: bot_id for name, bot_id in db.execute(
            "SELECT b.name, b.bot_id FROM match_seats s JOIN bots b USING (bot_id) WHERE s.match_id = ?",
            (match_id,))}

    def _check_same_hand(self, db: sqlite3.Connection, hand: HandRecord) -> None:
        where = f"match {hand.match_id} hand {hand.hand_number} copy {hand.copy_index}"
        existing = self._hands(db, hand.match_id, HandStatus.COMPLETED, (hand.hand_number, hand.copy_index))
        if not existing:
            raise HandConflict(f"{where} is recorded already as a void hand")
        old = existing[0]
        if _result_fields(old) != _result_fields(hand):
            raise HandConflict(f"{where} is recorded already with a different result")

    def completed_hands(self, match_id: int) -> list[HandRecord]:
        """Every completed hand of a match in (hand number, copy) order: what a resumed match skips."""
        with self._transaction(write=False) as db:
            self._match(db, match_id)
            return self._hands(db, match_id, HandStatus.COMPLETED, None)

    def void_hands(self, match_id: int) -> list[VoidHand]:
        with self._transaction(write=False) as db:
            self._match(db, match_id)
            rows = db.execute(
                "SELECT match_id, hand_number, copy_index, deal_id, game_code, small_bet_chips, button_seat, "
                "void_reason, phh_text, started_at, finished_at FROM hands "
                "WHERE match_id = ? AND status = 'void' ORDER BY hand_number, copy_index",
                (match_id,)).fetchall()
        return [VoidHand(r[0], r[1], r[2], r[3], r[4], r[5], r[6], r[7], r[8], _dt(r[9]), _dt(r[10]))
                for r in rows]

    @staticmethod
    def _hands(db: sqlite3.Connection, match_id: int, status: HandStatus,
               key: tuple[int, int] | None) -> list[HandRecord]:
        sql = ("SELECT h.hand_id, h.hand_number, h.copy_index, h.deal_id, h.game_code, h.small_bet_chips, "
               "h.button_seat, h.phh_text, h.started_at, h.finished_at FROM hands h "
               "WHERE h.match_id = ? AND h.status = ?")
        params: tuple[object, ...] = (match_id, status.value)
        if key is not None:
            sql += " AND h.hand_number = ? AND h.copy_index = ?"
            params += key
        rows = db.execute(sql + " ORDER BY h.hand_number, h.copy_index", params).fetchall()
        seats: dict[int, list[SeatResult]] = {}
        seat_sql = ("SELECT s.hand_id, s.seat, b.name, s.net_chips, s.final_stack_chips FROM hand_seats s "
                    "JOIN hands h USING (hand_id) JOIN bots b ON b.bot_id = s.bot_id "
                    "WHERE h.match_id = ? AND h.status = ?")
        seat_params = params
        if key is not None:
            seat_sql += " AND h.hand_number = ? AND h.copy_index = ?"
        seat_sql += " ORDER BY s.hand_id, s.seat"
        for hand_id, seat, name, net, final in db.execute(seat_sql, seat_params):
            seats.setdefault(hand_id, []).append(SeatResult(seat, name, net, final))
        return [HandRecord(match_id, r[1], r[2], r[3], r[4], r[5], r[6], tuple(seats.get(r[0], ())), r[7],
                           _dt(r[8]), _dt(r[9])) for r in rows]

    def next_hand_number(self, match_id: int, *, copy_index: int | None = None) -> int:
        """One more than the highest hand number recorded (completed or void), 1 for a new match.

        With ``copy_index`` only that copy counts: duplicate copies played on separate tables resume
        separately.
        """
        with self._transaction(write=False) as db:
            self._match(db, match_id)
            if copy_index is None:
                row = db.execute("SELECT MAX(hand_number) FROM hands WHERE match_id = ?",
                                 (match_id,)).fetchone()
            else:
                row = db.execute("SELECT MAX(hand_number) FROM hands WHERE match_id = ? AND copy_index = ?",
                                 (match_id, copy_index)).fetchone()
        return int(row[0] or 0) + 1

    def iter_results(self, league_id: int, *,
                     statuses: Iterable[MatchStatus] = (MatchStatus.RUNNING, MatchStatus.FINISHED),
                     ) -> Iterator[ResultRow]:
        """Per-hand, per-bot results of the league's completed hands, match by match.

        Each match is read in one transaction, so a hand is never seen half-written; the lock is
        not held between matches, so the dealer keeps recording while the leaderboard reads.
        """
        wanted = sorted(MatchStatus(s).value for s in statuses)
        marks = ", ".join("?" for _ in wanted)
        with self._transaction(write=False) as db:
            if db.execute("SELECT 1 FROM leagues WHERE league_id = ?", (league_id,)).fetchone() is None:
                raise NotFound(f"no league {league_id}")
            match_ids = [r[0] for r in db.execute(
                f"SELECT match_id FROM matches WHERE league_id = ? AND status IN ({marks}) ORDER BY match_id",
                (league_id, *wanted))]
        for match_id in match_ids:
            with self._transaction(write=False) as db:
                rows = db.execute(
                    "SELECT h.hand_id, h.hand_number, h.copy_index, h.deal_id, h.game_code, "
                    "h.small_bet_chips, s.seat, b.name, s.net_chips "
                    "FROM hands h JOIN hand_seats s USING (hand_id) "
                    "JOIN bots b ON b.bot_id = s.bot_id WHERE h.match_id = ? AND h.status = 'completed' "
                    "ORDER BY h.hand_number, h.copy_index, s.seat", (match_id,)).fetchall()
            start = 0
            while start < len(rows):
                end = start
                while end < len(rows) and rows[end][0] == rows[start][0]:
                    end += 1
                hand = rows[start:end]
                for r in hand:
                    opponents = tuple((o[7], o[8]) for o in hand if o[6] != r[6])
                    yield ResultRow(bot=r[7], game_code=r[4], net_chips=r[8], small_bet_chips=r[5],
                                    match_id=match_id, hand_number=r[1], deal_id=r[3], copy_index=r[2],
                                    seat=r[6], opponents=opponents)
                start = end


@functools.cache
def _dummy_hash() -> str:
    return hash_token("", salt=bytes(16))


def _check_header(path: Path) -> None:
    """Refuse a non-empty file that is not SQLite before sqlite3 touches it (it stays unchanged)."""
    try:
        with path.open("rb") as fh:
            header = fh.read(len(_SQLITE_MAGIC))
    except FileNotFoundError:
        return
    except IsADirectoryError:
        raise StoreError(f"{path}: is a directory, not a results store file") from None
    except OSError as exc:
        raise StoreError(f"{path}: cannot read: {exc}") from exc
    if header and header != _SQLITE_MAGIC:
        raise CorruptStore(f"{path}: not an SQLite database (header {header[:16]!r}); refusing to touch it")


def _result_fields(hand: HandRecord) -> tuple[object, ...]:
    """What makes two records the same hand (timestamps may differ on a retry)."""
    return (hand.deal_id, hand.game_code, hand.small_bet_chips, hand.button_seat, hand.seats, hand.phh_text)


def _check_hand(hand: HandRecord) -> None:
    where = f"match {hand.match_id} hand {hand.hand_number} copy {hand.copy_index}"
    if hand.hand_number < 1 or hand.copy_index < 0:
        raise InvalidRecord(f"{where}: hand numbers start at 1, copies at 0")
    if hand.game_code not in VARIANTS:
        raise InvalidRecord(f"{where}: unknown game {hand.game_code!r}")
    if hand.small_bet_chips <= 0:
        raise InvalidRecord(f"{where}: small bet must be positive, not {hand.small_bet_chips}")
    if len(hand.seats) < 2:
        raise InvalidRecord(f"{where}: a hand has at least two seats")
    if [s.seat for s in hand.seats] != list(range(len(hand.seats))):
        raise InvalidRecord(f"{where}: seats must be 0..{len(hand.seats) - 1} in order")
    if len({s.bot for s in hand.seats}) != len(hand.seats):
        raise InvalidRecord(f"{where}: a bot sits twice")
    if not 0 <= hand.button_seat < len(hand.seats):
        raise InvalidRecord(f"{where}: button seat {hand.button_seat} is not a seat")
    total = sum(s.net_chips for s in hand.seats)
    if total != 0:
        raise InvalidRecord(f"{where}: net chips sum to {total}, not 0 (chips are only won from other seats)")
    if any(s.final_stack_chips < 0 for s in hand.seats):
        raise InvalidRecord(f"{where}: a final stack is negative")
