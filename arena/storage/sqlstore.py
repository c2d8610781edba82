"""The results store's queries, written once for every SQL backend (SQLite, PostgreSQL).

A backend supplies transactions (`SqlStore.transaction`) over a `Db`; every query here uses
``?`` placeholders and reads rows by column name.
"""

from __future__ import annotations

import itertools
import json
import threading
from abc import ABC, abstractmethod
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import AbstractContextManager, contextmanager
from datetime import datetime
from typing import Any, Protocol, Self

from arena.storage import faultrows, handrows, tokens
from arena.storage.errors import AlreadyExists, HandConflict, InvalidRecord, NotFound
from arena.storage.records import (
    Bot,
    FaultCounts,
    HandLuckRecord,
    HandRecord,
    HandStatus,
    League,
    LeftOutHand,
    LuckPending,
    Match,
    MatchFormat,
    MatchStatus,
    ResultRow,
    TournamentPlacing,
    VoidHand,
    check_bot,
    check_hand,
    check_league,
    check_luck,
    check_match,
    check_placing,
    check_void,
    parse_timestamp,
    timestamp_text,
)

Row = Any  # sqlite3.Row or a psycopg dict row: both are read by column name


class Cursor(Protocol):
    @property
    def rowcount(self) -> int: ...

    def fetchone(self) -> Row: ...

    def fetchall(self) -> list[Row]: ...

    def __iter__(self) -> Iterator[Row]: ...


class Db(Protocol):
    """One open transaction of a backend; SQL uses ``?`` placeholders."""

    def execute(self, sql: str, params: Sequence[object] = (), /) -> Cursor: ...

    def executemany(self, sql: str, rows: Iterable[Sequence[object]], /) -> object: ...


Guard = Callable[[Db], None]  # a check inside a write's transaction; it refuses by raising

_MATCH_COLUMNS = ("match_id, league_id, games, format, is_duplicate, status, seed, created_at, "
                  "finished_at")
_LEAGUE_COLUMNS = "league_id, name, config_toml, created_at"
MARK_IN_FLIGHT = ("INSERT INTO hands_in_flight (match_id, copy_index, hand_number) VALUES (?, ?, ?) "
                  "ON CONFLICT (match_id, copy_index) DO UPDATE SET hand_number = excluded.hand_number")


class SqlStore(ABC):
    """Every `ResultsStore` operation over a backend's transactions."""

    _clock: Callable[[], datetime]  # set by the backend's constructor
    _batch_thread: int | None = None  # the thread inside `batch`, if any

    @abstractmethod
    def transaction(self, *, write: bool) -> AbstractContextManager[Db]:
        """One transaction (a savepoint inside another); backend errors become StoreError
        subclasses. The store's own queries use it, and so do those beyond the store interface
        (the work queue)."""

    @abstractmethod
    def close(self) -> None: ...

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    # ------------------------------------------------------------ leagues

    def create_league(self, name: str, config_toml: str) -> League:
        check_league(name, config_toml)
        created = self._clock()
        with self.transaction(write=True) as db:
            if db.execute("SELECT 1 FROM leagues WHERE name = ?", (name,)).fetchone():
                raise AlreadyExists(f"a league named {name!r} exists already")
            row = db.execute("INSERT INTO leagues (name, config_toml, created_at) VALUES (?, ?, ?) "
                             "RETURNING league_id", (name, config_toml, timestamp_text(created))).fetchone()
        return League(int(row["league_id"]), name, config_toml, parse_timestamp(timestamp_text(created)))

    def get_league(self, league_id: int) -> League:
        with self.transaction(write=False) as db:
            row = db.execute(f"SELECT {_LEAGUE_COLUMNS} FROM leagues WHERE league_id = ?",
                             (league_id,)).fetchone()
        if row is None:
            raise NotFound(f"no league {league_id}")
        return _league(row)

    def find_league(self, name: str) -> League | None:
        with self.transaction(write=False) as db:
            row = db.execute(f"SELECT {_LEAGUE_COLUMNS} FROM leagues WHERE name = ?", (name,)).fetchone()
        return None if row is None else _league(row)

    def list_leagues(self) -> list[League]:
        with self.transaction(write=False) as db:
            rows = db.execute(f"SELECT {_LEAGUE_COLUMNS} FROM leagues ORDER BY league_id").fetchall()
        return [_league(r) for r in rows]

    # ------------------------------------------------------------ bots

    def register_bot(self, name: str, token: str) -> Bot:
        """Register a bot; only a salted scrypt hash of ``token`` is stored."""
        check_bot(name, token)
        token_hash = tokens.hash_token(token)  # slow on purpose: outside any transaction
        created = self._clock()
        with self.transaction(write=True) as db:
            if db.execute("SELECT 1 FROM bots WHERE name = ?", (name,)).fetchone():
                raise AlreadyExists(f"a bot named {name!r} is registered already")
            row = db.execute("INSERT INTO bots (name, token_hash, created_at) VALUES (?, ?, ?) "
                             "RETURNING bot_id", (name, token_hash, timestamp_text(created))).fetchone()
        return Bot(int(row["bot_id"]), name, parse_timestamp(timestamp_text(created)))

    def get_bot(self, name: str) -> Bot:
        with self.transaction(write=False) as db:
            row = db.execute("SELECT bot_id, name, created_at FROM bots WHERE name = ?", (name,)).fetchone()
        if row is None:
            raise NotFound(f"no bot named {name!r}")
        return Bot(row["bot_id"], row["name"], parse_timestamp(row["created_at"]))

    def verify_bot_token(self, name: str, token: str) -> bool:
        with self.transaction(write=False) as db:
            row = db.execute("SELECT token_hash FROM bots WHERE name = ?", (name,)).fetchone()
        if row is None:
            tokens.verify_token(token, tokens.dummy_hash())  # same work for unknown names
            return False
        return tokens.verify_token(token, row["token_hash"])

    # ------------------------------------------------------------ matches

    def create_match(self, league_id: int, *, seat_bots: Sequence[str], games: Sequence[str],
                     match_format: MatchFormat = MatchFormat.CASH, is_duplicate: bool = False) -> Match:
        seat_bots = tuple(seat_bots)
        games = tuple(games)
        check_match(seat_bots, games)
        match_format = MatchFormat(match_format)
        created = self._clock()
        with self.transaction(write=True) as db:
            if db.execute("SELECT 1 FROM leagues WHERE league_id = ?", (league_id,)).fetchone() is None:
                raise NotFound(f"no league {league_id}")
            bot_ids = _bot_ids(db, seat_bots)
            row = db.execute(
                "INSERT INTO matches (league_id, games, format, is_duplicate, status, seed, created_at) "
                "VALUES (?, ?, ?, ?, 'running', NULL, ?) RETURNING match_id",
                (league_id, json.dumps(list(games)), match_format.value, int(is_duplicate),
                 timestamp_text(created))).fetchone()
            match_id = int(row["match_id"])
            db.executemany("INSERT INTO match_seats (match_id, seat, bot_id) VALUES (?, ?, ?)",
                           [(match_id, seat, bot_ids[name]) for seat, name in enumerate(seat_bots)])
            return _match(db, match_id)

    def get_match(self, match_id: int) -> Match:
        with self.transaction(write=False) as db:
            return _match(db, match_id)

    def list_matches(self, league_id: int) -> list[Match]:
        with self.transaction(write=False) as db:
            rows = db.execute(f"SELECT {_MATCH_COLUMNS} FROM matches WHERE league_id = ? ORDER BY match_id",
                              (league_id,)).fetchall()
            seats: dict[int, list[str]] = {}
            for r in db.execute("SELECT s.match_id, b.name FROM match_seats s JOIN bots b USING (bot_id) "
                                "JOIN matches m ON m.match_id = s.match_id WHERE m.league_id = ? "
                                "ORDER BY s.match_id, s.seat", (league_id,)):
                seats.setdefault(int(r["match_id"]), []).append(str(r["name"]))
            return [_match_of(row, tuple(seats.get(int(row["match_id"]), ()))) for row in rows]

    def finish_match(self, match_id: int, seed: str) -> Match:
        """Close a match and reveal its seed, so every hand can be re-dealt and checked."""
        return self._end_match(match_id, MatchStatus.FINISHED, seed)

    def abort_match(self, match_id: int, *, seed: str | None = None) -> Match:
        return self._end_match(match_id, MatchStatus.ABORTED, seed)

    def _end_match(self, match_id: int, status: MatchStatus, seed: str | None) -> Match:
        with self.transaction(write=True) as db:
            current = _match(db, match_id)
            ended = db.execute(
                "UPDATE matches SET status = ?, seed = ?, finished_at = ? "
                "WHERE match_id = ? AND status = 'running' RETURNING match_id",
                (status.value, seed, timestamp_text(self._clock()), match_id)).fetchone()
            if ended is None:  # already ended (by another process, on a shared server)
                raise InvalidRecord(f"match {match_id} is {current.status.value} already")
            return _match(db, match_id)

    # ------------------------------------------------------------ hands

    def record_hand(self, hand: HandRecord, *, guard: Guard | None = None) -> bool:
        """Commit one completed hand atomically: its row and every seat's row, or nothing.

        Idempotent on (match, hand number, copy): recording the same hand again returns False and
        changes nothing; a *different* hand under that key raises HandConflict. ``guard`` runs
        first in the same transaction and may refuse it by raising (a worker's lease on the job).
        """
        check_hand(hand)
        seats = hand.seats
        with self.transaction(write=True) as db:
            if guard is not None:
                guard(db)
            inserted = db.execute(handrows.record_hand_sql(len(seats)), (
                hand.hand_number, hand.copy_index, hand.deal_id, hand.game_code, hand.small_bet_chips,
                hand.button_seat, hand.phh_text, timestamp_text(hand.started_at),
                timestamp_text(hand.finished_at), hand.match_id, hand.copy_index,
                *(s.bot for s in seats), len(seats)))
            if inserted.rowcount == 1:
                db.execute(handrows.record_seats_sql(len(seats)), (*(
                    value for s in seats for value in (
                        s.seat, s.bot, s.net_chips, s.final_stack_chips, s.timeouts,
                        s.absent_decisions, s.rejected_replies, s.disconnects, s.sdk_fallbacks)),
                    hand.match_id, hand.hand_number, hand.copy_index))
                return True
            # Nothing written: say why (the match, a seat, or the hand there already).
            bot_ids = handrows.running_match_bots(db, hand.match_id, hand.copy_index)
            unknown = [s.bot for s in seats if s.bot not in bot_ids]
            if unknown:
                raise InvalidRecord(f"match {hand.match_id} hand {hand.hand_number}: {', '.join(unknown)} "
                                    f"not seated in this match")
            handrows.check_same_hand(db, hand)
        return False

    def void_hand(self, hand: VoidHand, *, guard: Guard | None = None) -> bool:
        """Record a misdeal. Idempotent like `record_hand`; False if this void was recorded already."""
        check_void(hand)
        with self.transaction(write=True) as db:
            if guard is not None:
                guard(db)
            handrows.running_match_bots(db, hand.match_id, hand.copy_index)
            inserted = db.execute(
                "INSERT INTO hands (match_id, hand_number, copy_index, deal_id, game_code, small_bet_chips, "
                "button_seat, status, phh_text, started_at, finished_at, void_reason) "
                "VALUES (?, ?, ?, ?, ?, ?, ?, 'void', ?, ?, ?, ?) "
                "ON CONFLICT (match_id, hand_number, copy_index) DO NOTHING RETURNING hand_id",
                (hand.match_id, hand.hand_number, hand.copy_index, hand.deal_id, hand.game_code,
                 hand.small_bet_chips, hand.button_seat, hand.phh_text, timestamp_text(hand.started_at),
                 timestamp_text(hand.voided_at), hand.reason)).fetchone()
            if inserted is None:
                row = db.execute(
                    "SELECT status, deal_id FROM hands "
                    "WHERE match_id = ? AND hand_number = ? AND copy_index = ?",
                    (hand.match_id, hand.hand_number, hand.copy_index)).fetchone()
                if row["status"] != HandStatus.VOID.value or row["deal_id"] != hand.deal_id:
                    raise HandConflict(f"match {hand.match_id} hand {hand.hand_number} copy "
                                       f"{hand.copy_index} is recorded already as a {row['status']} hand of "
                                       f"deal {row['deal_id']!r}")
                return False
        return True

    def completed_hands(self, match_id: int) -> list[HandRecord]:
        """Every completed hand of a match in (hand number, copy) order: what a resumed match skips."""
        with self.transaction(write=False) as db:
            _match(db, match_id)
            return handrows.completed(db, match_id, None)

    def void_hands(self, match_id: int) -> list[VoidHand]:
        with self.transaction(write=False) as db:
            _match(db, match_id)
            rows = db.execute(
                "SELECT match_id, hand_number, copy_index, deal_id, game_code, small_bet_chips, button_seat, "
                "void_reason, phh_text, started_at, finished_at FROM hands "
                "WHERE match_id = ? AND status = 'void' ORDER BY hand_number, copy_index",
                (match_id,)).fetchall()
        return [VoidHand(r["match_id"], r["hand_number"], r["copy_index"], r["deal_id"], r["game_code"],
                         r["small_bet_chips"], r["button_seat"], r["void_reason"], r["phh_text"],
                         parse_timestamp(r["started_at"]), parse_timestamp(r["finished_at"])) for r in rows]

    def mark_in_flight(self, match_id: int, copy_index: int, hand_number: int, *,
                       guard: Guard | None = None) -> None:
        """Note the hand being dealt on a table (one row per table), for whoever resumes it after
        a crash: that hand is voided (docs/house-rules.md §6)."""
        with self.transaction(write=True) as db:
            if guard is not None:
                guard(db)
            db.execute(MARK_IN_FLIGHT, (match_id, copy_index, hand_number))

    def hand_in_flight(self, match_id: int, copy_index: int) -> int | None:
        """The last hand marked in flight on this table (it may have finished since)."""
        with self.transaction(write=False) as db:
            row = db.execute("SELECT hand_number FROM hands_in_flight WHERE match_id = ? AND copy_index = ?",
                             (match_id, copy_index)).fetchone()
        return None if row is None else int(row["hand_number"])

    @contextmanager
    def batch(self) -> Iterator[None]:
        """Every write of this thread inside runs in one transaction, committed (one commit, one
        fsync) when the block ends; each write keeps a savepoint of its own, so a refused write
        changes nothing and the others stand. Other threads wait for the block (the store's lock)."""
        with self.transaction(write=True):
            self._batch_thread = threading.get_ident()
            try:
                yield
            finally:
                self._batch_thread = None

    def _in_batch(self) -> bool:
        return self._batch_thread == threading.get_ident()

    def next_hand_number(self, match_id: int, *, copy_index: int | None = None) -> int:
        """One more than the highest hand number recorded (completed or void), 1 for a new match.

        With ``copy_index`` only that copy counts: duplicate copies played on separate tables resume
        separately.
        """
        with self.transaction(write=False) as db:
            _match(db, match_id)
            if copy_index is None:
                row = db.execute("SELECT MAX(hand_number) AS last FROM hands WHERE match_id = ?",
                                 (match_id,)).fetchone()
            else:
                row = db.execute("SELECT MAX(hand_number) AS last FROM hands "
                                 "WHERE match_id = ? AND copy_index = ?", (match_id, copy_index)).fetchone()
        return int(row["last"] or 0) + 1

    def fault_counts(self, league_id: int) -> list[FaultCounts]:
        """Per bot and stored match: `arena.storage.faultrows.fault_counts`."""
        with self.transaction(write=False) as db:
            return faultrows.fault_counts(db, league_id)

    def left_out_hands(self, league_id: int) -> list[LeftOutHand]:
        """The hands `iter_results` leaves out: `arena.storage.faultrows.left_out_hands`."""
        with self.transaction(write=False) as db:
            return faultrows.left_out_hands(db, league_id)

    def iter_results(self, league_id: int, *,
                     statuses: Iterable[MatchStatus] = (MatchStatus.RUNNING, MatchStatus.FINISHED),
                     value_function: str | None = None) -> Iterator[ResultRow]:
        """Per-hand, per-bot results of the league's completed hands, match by match.

        A deal voided in one duplicate copy (its dealer crashed or stopped, docs/house-rules.md §6) is
        scored in none: its other copies' hands are left out, so that luck still cancels
        (duplicate practice: a fouled board is not scored). With ``value_function`` every row
        carries the seats' luck under it where it is stored.
        Each match is read in one transaction, so a hand is never seen half-written; nothing is
        held between matches, so the dealer keeps recording while the leaderboard reads.
        """
        wanted = sorted(MatchStatus(s).value for s in statuses)
        marks = ", ".join("?" for _ in wanted)
        with self.transaction(write=False) as db:
            if db.execute("SELECT 1 FROM leagues WHERE league_id = ?", (league_id,)).fetchone() is None:
                raise NotFound(f"no league {league_id}")
            match_ids = [r["match_id"] for r in db.execute(
                f"SELECT match_id FROM matches WHERE league_id = ? AND status IN ({marks}) ORDER BY match_id",
                (league_id, *wanted))]
        for match_id in match_ids:
            with self.transaction(write=False) as db:
                fouled = {r["deal_id"] for r in db.execute(
                    "SELECT DISTINCT deal_id FROM hands WHERE match_id = ? AND status = 'void'",
                    (match_id,))}
                rows = db.execute(
                    "SELECT h.hand_id, h.hand_number, h.copy_index, h.deal_id, h.game_code, "
                    "h.small_bet_chips, s.seat, b.name, s.net_chips, l.luck_chips "
                    "FROM hands h JOIN hand_seats s USING (hand_id) "
                    "JOIN bots b ON b.bot_id = s.bot_id "
                    "LEFT JOIN hand_luck l ON l.hand_id = s.hand_id AND l.seat = s.seat "
                    "AND l.value_function = ? WHERE h.match_id = ? AND h.status = 'completed' "
                    "ORDER BY h.hand_number, h.copy_index, s.seat",
                    (value_function or "", match_id)).fetchall()
            for _, seats in itertools.groupby(rows, key=lambda r: r["hand_id"]):
                hand = list(seats)
                if hand[0]["deal_id"] in fouled:
                    continue
                has_luck = all(o["luck_chips"] is not None for o in hand)
                for r in hand:
                    others = [o for o in hand if o["seat"] != r["seat"]]
                    yield ResultRow(bot=r["name"], game_code=r["game_code"], net_chips=r["net_chips"],
                                    small_bet_chips=r["small_bet_chips"], match_id=match_id,
                                    hand_number=r["hand_number"], deal_id=r["deal_id"],
                                    copy_index=r["copy_index"], seat=r["seat"],
                                    opponents=tuple((o["name"], o["net_chips"]) for o in others),
                                    luck_chips=float(r["luck_chips"]) if has_luck else None,
                                    opponents_luck_chips=tuple(float(o["luck_chips"]) for o in others)
                                    if has_luck else ())

    def iter_hand_texts(self, league_id: int) -> Iterator[str]:
        """The league's completed hands' PHH texts, a match per transaction (`handrows`)."""
        with self.transaction(write=False) as db:
            match_ids = handrows.league_match_ids(db, league_id)
        for match_id in match_ids:
            with self.transaction(write=False) as db:
                texts = handrows.completed_hand_texts(db, match_id)
            yield from texts

    # ------------------------------------------------------------ luck

    def hands_without_luck(self, league_id: int, value_function: str, *,
                           match_ids: Iterable[int] | None = None, limit: int = 10_000,
                           ) -> list[LuckPending]:
        """Completed hands of the league's ended matches (seed revealed) with no luck stored
        under ``value_function``, at most ``limit``, in match and hand order."""
        wanted = () if match_ids is None else tuple(sorted(set(match_ids)))
        if match_ids is not None and not wanted:
            return []
        where = f" AND m.match_id IN ({', '.join('?' * len(wanted))})" if wanted else ""
        with self.transaction(write=False) as db:
            rows = db.execute(
                "SELECT h.match_id, h.hand_number, h.copy_index, m.seed, h.phh_text FROM hands h "
                "JOIN matches m USING (match_id) "
                "WHERE m.league_id = ? AND m.seed IS NOT NULL AND h.status = 'completed' "
                "AND NOT EXISTS (SELECT 1 FROM hand_luck l WHERE l.hand_id = h.hand_id "
                "AND l.value_function = ?)"
                f"{where} ORDER BY h.match_id, h.hand_number, h.copy_index LIMIT ?",
                (league_id, value_function, *wanted, int(limit))).fetchall()
        return [LuckPending(r["match_id"], r["hand_number"], r["copy_index"], r["seed"], r["phh_text"])
                for r in rows]

    def record_luck(self, records: Sequence[HandLuckRecord]) -> int:
        """Store each seat's luck of some hands in one transaction; idempotent (a hand that has
        luck under that value function already keeps it). Returns the hands newly stored."""
        for record in records:
            check_luck(record)
        stored = 0
        with self.transaction(write=True) as db:
            for record in records:
                row = db.execute(
                    "SELECT h.hand_id, COUNT(s.seat) AS seats, "
                    "(SELECT COUNT(*) FROM hand_luck l WHERE l.hand_id = h.hand_id "
                    "AND l.value_function = ?) AS stored FROM hands h JOIN hand_seats s USING (hand_id) "
                    "WHERE h.match_id = ? AND h.hand_number = ? AND h.copy_index = ? "
                    "AND h.status = 'completed' GROUP BY h.hand_id",
                    (record.value_function, record.match_id, record.hand_number,
                     record.copy_index)).fetchone()
                where = f"match {record.match_id} hand {record.hand_number} copy {record.copy_index}"
                if row is None:
                    raise NotFound(f"{where}: no completed hand")
                if int(row["seats"]) != len(record.luck_chips):
                    raise InvalidRecord(f"{where}: {len(record.luck_chips)} luck values for "
                                        f"{row['seats']} seats")
                if int(row["stored"]):
                    continue
                # Another process (a worker) may store the same hand's luck meanwhile: on PostgreSQL
                # both see none stored above, and the second insert would break the unique key.
                values = ", ".join("(?, ?, ?, ?)" for _ in record.luck_chips)
                inserted = db.execute(
                    f"INSERT INTO hand_luck (hand_id, value_function, seat, luck_chips) VALUES {values} "
                    "ON CONFLICT DO NOTHING RETURNING seat",
                    [field for seat, value in enumerate(record.luck_chips)
                     for field in (row["hand_id"], record.value_function, seat, float(value))]).fetchall()
                stored += bool(inserted)
        return stored

    # ------------------------------------------------------------ tournament placings

    def record_placings(self, league_id: int, placings: Sequence[TournamentPlacing]) -> int:
        """Store a league's tournament placings in one transaction, replacing those stored
        before (a resumed tournament writes its results again). Returns the rows written."""
        for placing in placings:
            check_placing(placing)
        with self.transaction(write=True) as db:
            if db.execute("SELECT 1 FROM leagues WHERE league_id = ?", (league_id,)).fetchone() is None:
                raise NotFound(f"no league {league_id}")
            ids = _bot_ids(db, sorted({p.bot for p in placings}))
            db.execute("DELETE FROM tournament_placings WHERE league_id = ?", (league_id,))
            db.executemany(
                "INSERT INTO tournament_placings (league_id, tournament, bot_id, place, points, "
                "eliminated_at_hand) VALUES (?, ?, ?, ?, ?, ?)",
                [(league_id, p.tournament, ids[p.bot], p.place, p.points, p.eliminated_at_hand)
                 for p in placings])
        return len(placings)

    def tournament_placings(self, league_id: int) -> list[TournamentPlacing]:
        """Every placing of a league's tournaments, by tournament, place and bot."""
        with self.transaction(write=False) as db:
            rows = db.execute(
                "SELECT t.tournament, b.name, t.place, t.points, t.eliminated_at_hand "
                "FROM tournament_placings t JOIN bots b USING (bot_id) WHERE t.league_id = ? "
                "ORDER BY t.tournament, t.place, b.name", (league_id,)).fetchall()
        return [TournamentPlacing(r["tournament"], r["name"], int(r["place"]), int(r["points"]),
                                  r["eliminated_at_hand"]) for r in rows]


class InFlightBook:
    """Where the hand being dealt on each table is noted, for whoever resumes the table after a
    crash: the store's own table (a league in one process; a worker's book,
    `arena.storage.queue.JobBook`, fences each mark and commit with its lease)."""

    def __init__(self, store: SqlStore) -> None:
        self.store = store

    def hand_started(self, match_id: int, copy_index: int, hand_number: int) -> None:
        self.store.mark_in_flight(match_id, copy_index, hand_number, guard=self.guard(match_id))

    def hand_in_flight(self, match_id: int, copy_index: int) -> int | None:
        return self.store.hand_in_flight(match_id, copy_index)

    def guard(self, match_id: int) -> Guard | None:
        """A check the commit of each hand of this match runs in its transaction (a lease)."""
        return None


# --------------------------------------------------------------------------- row readers


def _league(row: Row) -> League:
    return League(row["league_id"], row["name"], row["config_toml"], parse_timestamp(row["created_at"]))


def _match(db: Db, match_id: int) -> Match:
    row = db.execute(f"SELECT {_MATCH_COLUMNS} FROM matches WHERE match_id = ?", (match_id,)).fetchone()
    if row is None:
        raise NotFound(f"no match {match_id}")
    seats = tuple(r["name"] for r in db.execute(
        "SELECT b.name FROM match_seats s JOIN bots b USING (bot_id) WHERE s.match_id = ? "
        "ORDER BY s.seat", (match_id,)))
    return _match_of(row, seats)


def _match_of(row: Row, seats: tuple[str, ...]) -> Match:
    finished = row["finished_at"]
    return Match(row["match_id"], row["league_id"], tuple(json.loads(row["games"])),
                 MatchFormat(row["format"]), bool(row["is_duplicate"]), seats, MatchStatus(row["status"]),
                 row["seed"],
                 parse_timestamp(row["created_at"]), None if finished is None else parse_timestamp(finished))


def _bot_ids(db: Db, names: Iterable[str]) -> dict[str, int]:
    ids: dict[str, int] = {}
    for name in names:
        row = db.execute("SELECT bot_id FROM bots WHERE name = ?", (name,)).fetchone()
        if row is None:
            raise NotFound(f"no bot named {name!r}; register it first")
        ids[name] = int(row["bot_id"])
    return ids
