"""`PostgresStore`: the results store on a PostgreSQL server (psycopg 3), shared by many processes.

Same schema and migrations as SQLite (`migrations.postgresql_statement` rewrites the SQLite-only
spellings, or a step gives its own), same queries (`SqlStore`). A hand is committed exactly once:
the (match, hand, copy) key is unique and inserts are ``ON CONFLICT DO NOTHING``, so when the
connection is lost around a commit, the store reconnects and retries, and a hand that did commit
reads back as "already there". Inside the writer's batch a write costs one round trip to the
server (`OneTripDb`): its savepoint and its statement go in one message, a hand and its seats as
one statement.
"""

from __future__ import annotations

import contextlib
import itertools
import re
import threading
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from datetime import datetime
from functools import cache
from typing import Any, ParamSpec, TypeVar

import psycopg
from psycopg.rows import dict_row

from arena.storage.errors import InvalidRecord, SchemaTooNew, StoreError, StoreUnavailable
from arena.storage.migrations import LATEST_VERSION, MIGRATIONS
from arena.storage.records import HandRecord, VoidHand, check_hand, now, timestamp_text
from arena.storage.sqlstore import Cursor, Db, Guard, SqlStore

_MIGRATION_LOCK = 7_330_001  # pg_advisory_xact_lock key: one migrating process at a time
_RETRIES = 5
_RETRY_PAUSE_SECONDS = 0.2

# A completed hand and its seats in one statement, inserted only when the generic path
# (`SqlStore.record_hand`) would insert them: the match running, copy 0 or a duplicate match,
# every seat's bot seated in it, the hand new. Otherwise nothing is written and no row comes back.
_RECORD_HAND = """WITH ok AS (
    SELECT m.match_id FROM matches m
    WHERE m.match_id = ? AND m.status = 'running' AND (? = 0 OR m.is_duplicate <> 0)
    AND (SELECT COUNT(*) FROM match_seats s JOIN bots b ON b.bot_id = s.bot_id
         WHERE s.match_id = m.match_id AND b.name = ANY(?)) = ?
), h AS (
    INSERT INTO hands (match_id, hand_number, copy_index, deal_id, game_code, small_bet_chips,
                       button_seat, status, phh_text, started_at, finished_at)
    SELECT match_id, ?, ?, ?, ?, ?, ?, 'completed', ?, ?, ? FROM ok
    ON CONFLICT (match_id, hand_number, copy_index) DO NOTHING RETURNING hand_id
), seated AS (
    INSERT INTO hand_seats (hand_id, seat, bot_id, net_chips, final_stack_chips, timeouts,
                            absent_decisions, rejected_replies, disconnects, sdk_fallbacks)
    SELECT h.hand_id, v.seat, b.bot_id, v.net, v.stack, v.timeouts, v.absent, v.rejected,
           v.disconnects, v.fallbacks
    FROM h CROSS JOIN unnest(?::integer[], ?::text[], ?::integer[], ?::integer[], ?::integer[],
                             ?::integer[], ?::integer[], ?::integer[], ?::integer[])
         AS v(seat, name, net, stack, timeouts, absent, rejected, disconnects, fallbacks)
    JOIN bots b ON b.name = v.name
)
SELECT hand_id FROM h"""

P = ParamSpec("P")
R = TypeVar("R")


def describe_url(url: str) -> str:
    """host:port/dbname of a URL, for messages: never the password."""
    try:
        parts = psycopg.conninfo.conninfo_to_dict(url)
    except psycopg.ProgrammingError:
        return "postgresql://(unparsable URL)"
    host, port, name = parts.get("host", "localhost"), parts.get("port", 5432), parts.get("dbname", "")
    return f"postgresql://{host}:{port}/{name}"


@cache
def _placeholders(sql: str) -> str:
    return sql.replace("?", "%s")


class _PostgresDb:
    """The `Db` of one PostgreSQL transaction."""

    def __init__(self, connection: psycopg.Connection[Any]) -> None:
        self._connection = connection

    def execute(self, sql: str, params: Sequence[object] = ()) -> Cursor:
        return self._connection.execute(_placeholders(sql), tuple(params))

    def executemany(self, sql: str, rows: Iterable[Sequence[object]]) -> None:
        with self._connection.cursor() as cursor:
            cursor.executemany(_placeholders(sql), [tuple(r) for r in rows])


class _Session:
    """What the store knows of its connection's server-side state: the statements prepared on it
    (``PREPARE``: parsed and planned once), by SQL text, and the savepoint of the batch's last
    write, released with its next message. A prepared statement outlives a rollback (PREPARE is not
    transactional, and psycopg's own preparing, which would deallocate them all, is off); after a
    failed transaction outside the batch or a failed batch the store deallocates them all and
    forgets their names all the same; names are never used twice."""

    MAX_STATEMENTS = 64  # a query whose text varies (a list of ``?``) is not kept past this many

    def __init__(self, numbers: Iterator[int]) -> None:
        self.names: dict[str, str] = {}
        self.numbers = numbers
        self.to_release = ""  # a savepoint that ended well, not released yet

    def statements(self, cursor: psycopg.ClientCursor[Any], sql: str, params: Sequence[object]
                   ) -> tuple[list[str], bool]:
        """``sql`` with ``params`` bound, as statements of a message: its PREPARE first when it
        is new (then True: if the message fails, :meth:`forget` it), then its EXECUTE."""
        values = tuple(params)
        name = self.names.get(sql)
        new = name is None and len(self.names) < self.MAX_STATEMENTS
        if new:
            name = self.names[sql] = f"arena_{next(self.numbers)}"
        if name is None:  # not kept: sent whole
            return [cursor.mogrify(_placeholders(sql.replace("%", "%%")), values)], False
        if all(type(value) is int for value in values):  # no quoting to do: no adapting either
            execute = f"EXECUTE {name}({', '.join(map(str, values))})" if values else f"EXECUTE {name}"
        else:
            execute = cursor.mogrify(f"EXECUTE {name}({', '.join('%s' for _ in values)})", values)
        if not new:
            return [execute], False
        numbered = iter(range(1, sql.count("?") + 1))
        return [f"PREPARE {name} AS " + re.sub(r"\?", lambda _: f"${next(numbered)}", sql), execute], True

    def forget(self, sql: str) -> None:
        """After a failed message: whether its PREPARE ran is unknown, so the next use makes the
        statement again under a new name."""
        self.names.pop(sql, None)


class OneTripDb:
    """The `Db` of one write inside the writer's batch, in a savepoint of its own (a refused write
    leaves the batch's others standing) at the cost of no round trip: the savepoint opens with the
    write's first statement, in the same message (simple query protocol, parameters bound by
    psycopg on the client side, each statement prepared on the server once), and a write that
    ended well is released with the next one's first statement (or committed by the batch)."""

    def __init__(self, connection: psycopg.Connection[Any], session: _Session) -> None:
        self._cursor = psycopg.ClientCursor(connection, row_factory=dict_row)
        self._session = session
        self.savepoint = ""  # its name, once a statement was sent

    def execute(self, sql: str, params: Sequence[object] = ()) -> Cursor:
        session, cursor = self._session, self._cursor
        first = [f"RELEASE SAVEPOINT {session.to_release}"] if session.to_release else []
        session.to_release = ""
        if not self.savepoint:
            self.savepoint = f"arena_w{next(session.numbers)}"
            first.append(f"SAVEPOINT {self.savepoint}")
        own, new = session.statements(cursor, sql, params)
        try:
            cursor.execute("; ".join(first + own))
        except psycopg.Error:
            if new:
                session.forget(sql)
            raise
        for _ in range(len(first) + len(own) - 1):
            cursor.nextset()  # to the last statement's result
        return cursor

    def executemany(self, sql: str, rows: Iterable[Sequence[object]]) -> None:
        for row in rows:
            self.execute(sql, row)

    def ended_well(self) -> None:
        if self.savepoint:
            self._session.to_release = self.savepoint

    def roll_back(self) -> None:
        """Undo the write (its savepoint), after a refusal or an error; the batch goes on. (When
        the savepoint was never made, this fails, and the batch's transaction fails with it.)"""
        if self.savepoint:
            name = self.savepoint
            self._cursor.execute(f"ROLLBACK TO SAVEPOINT {name}; RELEASE SAVEPOINT {name}")


def _store_error(where: str, exc: psycopg.Error) -> StoreError:
    """The store's error for a psycopg error."""
    if isinstance(exc, psycopg.IntegrityError):
        return InvalidRecord(f"{where}: refused by a schema constraint: {str(exc).strip()}")
    if isinstance(exc, psycopg.OperationalError):
        return StoreUnavailable(f"{where}: {str(exc).strip()}")
    return StoreError(f"{where}: {str(exc).strip()}")


def _retrying(method: Callable[P, R]) -> Callable[P, R]:
    """Retry an idempotent operation when the server connection was lost (it reconnects); not
    inside the writer's batch, whose transaction is lost with the connection: the batch fails at
    once and the writer makes its writes again one by one."""

    def wrapper(*args: P.args, **kwargs: P.kwargs) -> R:
        store = args[0]
        for attempt in range(_RETRIES):
            try:
                return method(*args, **kwargs)
            except StoreUnavailable:
                if attempt == _RETRIES - 1 or (isinstance(store, SqlStore) and store._in_batch()):
                    raise
                time.sleep(_RETRY_PAUSE_SECONDS * (attempt + 1))
        raise AssertionError("unreachable")

    wrapper.__doc__ = method.__doc__
    return wrapper


class PostgresStore(SqlStore):
    """`ResultsStore` on PostgreSQL; one connection per store, shared between threads under a lock."""

    def __init__(self, url: str, *, clock: Callable[[], datetime] = now,
                 connect_timeout_seconds: float = 10.0, bound_seconds: float | None = None,
                 role: str = "") -> None:
        """``bound_seconds``: the longest any transaction, statement or lock wait of this store
        may last, and how soon a silent connection is given up (`session_bounds`); a worker
        passes less than its lease, so that a worker paused inside a commit cannot keep its
        job's row locked past the lease. None: unbounded (the coordinator's long queries)."""
        self.url = url
        self.where = describe_url(url)
        self._clock = clock
        self._lock = threading.RLock()
        self._connect_timeout_seconds = connect_timeout_seconds
        self.bound_seconds = bound_seconds
        # Who holds a connection, in the server's pg_stat_activity ("arena worker w1"): printable
        # ASCII, within the 63 bytes PostgreSQL keeps.
        self.role = "".join(c for c in role if " " <= c <= "~")[:48]
        self._connection: psycopg.Connection[Any] | None = None
        self._depth = 0  # transactions open on this thread (the lock's owner): 2+ are savepoints
        self._checked: set[object] = set()  # checks done in the running transaction
        self._numbers = itertools.count(1)  # of prepared statements and savepoints
        self._session = _Session(self._numbers)  # of the current connection
        with self._lock:
            self.schema_version = self._migrate(self._connect())

    # ------------------------------------------------------------ plumbing

    def _connect(self) -> psycopg.Connection[Any]:
        try:
            url = self.url if self.bound_seconds is None else \
                psycopg.conninfo.make_conninfo(self.url, **session_bounds(self.bound_seconds))
            connection = psycopg.connect(url, autocommit=True, row_factory=dict_row,
                                         connect_timeout=max(1, round(self._connect_timeout_seconds)),
                                         application_name=f"arena {self.role}".strip())
        except psycopg.OperationalError as exc:
            raise StoreUnavailable(f"{self.where}: cannot connect: {str(exc).strip()}") from None
        except psycopg.ProgrammingError as exc:
            raise StoreError(f"{self.where}: bad connection URL: {exc}") from None
        # psycopg prepares a query it sees often and, after any ROLLBACK (a savepoint's too),
        # deallocates every prepared statement of the connection, the store's with its own: a
        # write refused inside the writer's batch then failed the batch's next writes, which
        # EXECUTE statements prepared earlier. The store prepares its own statements only.
        connection.prepare_threshold = None
        self._connection = connection
        self._session = _Session(self._numbers)
        return connection

    def _migrate(self, connection: psycopg.Connection[Any]) -> int:
        try:
            for migration in MIGRATIONS:
                with connection.transaction():
                    connection.execute("SELECT pg_advisory_xact_lock(%s)", (_MIGRATION_LOCK,))
                    version = _schema_version(connection)
                    if version > LATEST_VERSION:
                        raise SchemaTooNew(f"{self.where}: schema version {version} was written by a newer "
                                           f"arena; this one reads up to version {LATEST_VERSION}: upgrade "
                                           "arena")
                    if version >= migration.version:
                        continue
                    for statement in migration.postgresql_statements():
                        connection.execute(statement)
                    connection.execute(
                        "INSERT INTO schema_version (version, description, applied_at) VALUES (%s, %s, %s)",
                        (migration.version, migration.description, timestamp_text(self._clock())))
            with connection.transaction():
                return _schema_version(connection)
        except psycopg.OperationalError as exc:
            raise StoreUnavailable(f"{self.where}: {str(exc).strip()}") from None
        except psycopg.Error as exc:
            raise StoreError(f"{self.where}: cannot migrate the schema: {str(exc).strip()}") from None

    def close(self) -> None:
        with self._lock:
            if self._connection is not None:
                self._connection.close()

    @contextmanager
    def transaction(self, *, write: bool) -> Iterator[Db]:
        """One transaction under the lock (a savepoint inside another: in the writer's batch, one
        that costs no round trip of its own); a broken connection is replaced first."""
        with self._lock:
            connection = self._usable_connection()
            one_trip = self._depth == 1 and self._in_batch()  # a write in the writer's batch
            self._depth += 1
            ended_well = False
            try:
                if one_trip:
                    db = OneTripDb(connection, self._session)
                    try:
                        yield db
                    except BaseException:
                        with contextlib.suppress(psycopg.Error):
                            db.roll_back()
                        raise
                    db.ended_well()
                else:
                    with connection.transaction():
                        yield _PostgresDb(connection)
                        # psycopg ends a lost connection's transaction without a word (no COMMIT,
                        # no error): a write's error caught inside (the writer's group commit keeps
                        # each job's error to that job) must not pass for a commit.
                        if connection.broken or connection.closed:
                            raise StoreUnavailable(f"{self.where}: the connection was lost; "
                                                   "nothing of this transaction was committed")
                        if connection.info.transaction_status == psycopg.pq.TransactionStatus.INERROR:
                            raise StoreError(f"{self.where}: the transaction failed and is rolled back")
                ended_well = True
            except psycopg.Error as exc:
                raise _store_error(self.where, exc) from exc
            finally:
                self._depth -= 1
                if self._depth == 0 or not ended_well:  # a rolled-back savepoint released its locks
                    self._checked.clear()
                    self._session.to_release = ""  # committed, rolled back or released
                if not ended_well and self._depth == 0:  # (not inside the writer's batch: its
                    self._forget_prepared(connection)  # next writes' statements stay prepared)

    def _usable_connection(self) -> psycopg.Connection[Any]:
        """(Under the lock) the connection, replaced first when broken outside a transaction."""
        connection = self._connection
        if self._depth == 0 and (connection is None or connection.closed or connection.broken):
            connection = self._connect()
        assert connection is not None
        return connection

    def _forget_prepared(self, connection: psycopg.Connection[Any]) -> None:
        """After a rollback: psycopg deallocates its prepared statements (and with them the
        store's) or may; deallocate all, so that both know none is left."""
        with contextlib.suppress(psycopg.Error):
            connection.execute("DEALLOCATE ALL")
        self._session.names.clear()

    def checked_in_transaction(self, key: object) -> bool:
        """Whether :meth:`note_checked` was told ``key`` in the running transaction (a lease
        checked, its row locked): the check need not run again before the commit."""
        return key in self._checked

    def note_checked(self, key: object) -> None:
        """Remember ``key`` until the running transaction ends (or a savepoint of it is rolled
        back: the row locks taken in it are released with it)."""
        if self._depth:
            self._checked.add(key)

    def backend_pid(self) -> int:
        """The server process of this store's connection (tests use it to cut the connection)."""
        with self.transaction(write=False) as db:
            return int(db.execute("SELECT pg_backend_pid() AS pid").fetchone()["pid"])

    # ------------------------------------------------------------ idempotent writes retry

    @_retrying
    def record_hand(self, hand: HandRecord, *, guard: Guard | None = None) -> bool:
        """`SqlStore.record_hand` in one statement (the hand and its seats); when it writes
        nothing (the hand is there already, the same or not, or it is refused), the generic path
        says which."""
        check_hand(hand)
        seats = hand.seats
        with self.transaction(write=True) as db:
            if guard is not None:
                guard(db)
            row = db.execute(_RECORD_HAND, (
                hand.match_id, hand.copy_index, [s.bot for s in seats], len(seats), hand.hand_number,
                hand.copy_index, hand.deal_id, hand.game_code, hand.small_bet_chips, hand.button_seat,
                hand.phh_text, timestamp_text(hand.started_at), timestamp_text(hand.finished_at),
                [s.seat for s in seats], [s.bot for s in seats], [s.net_chips for s in seats],
                [s.final_stack_chips for s in seats], [s.timeouts for s in seats],
                [s.absent_decisions for s in seats], [s.rejected_replies for s in seats],
                [s.disconnects for s in seats], [s.sdk_fallbacks for s in seats])).fetchone()
        return True if row is not None else super().record_hand(hand, guard=guard)

    @_retrying
    def void_hand(self, hand: VoidHand, *, guard: Guard | None = None) -> bool:
        return super().void_hand(hand, guard=guard)


def session_bounds(bound_seconds: float) -> dict[str, str | int]:
    """libpq connection settings under which no transaction, statement or lock wait of the
    session outlives ``bound_seconds``, whatever the client does: the server ends a session idle
    inside a transaction (a client paused by SIGSTOP or a VM pause between its writes and its
    COMMIT) and with it its row locks; TCP keepalives and a user timeout, on both sides, give up
    a peer that went silent (a network cut without a reset) in about the same time."""
    if not 0 < bound_seconds <= 86_400 or bound_seconds != bound_seconds:
        raise StoreError(f"bound_seconds must be in (0, 86400], got {bound_seconds!r}")
    ms = max(100, int(bound_seconds * 1000))
    probe = max(1, int(bound_seconds / 4))  # keepalive idle time and interval, whole seconds
    settings = {
        "idle_in_transaction_session_timeout": ms, "statement_timeout": ms, "lock_timeout": ms,
        "tcp_keepalives_idle": probe, "tcp_keepalives_interval": probe, "tcp_keepalives_count": 3,
        "tcp_user_timeout": ms,
    }
    return {"keepalives": 1, "keepalives_idle": probe, "keepalives_interval": probe,
            "keepalives_count": 3, "tcp_user_timeout": ms,
            "options": " ".join(f"-c {name}={value}" for name, value in settings.items())}


def open_when_up(url: str, *, say: Callable[[str], None], bound_seconds: float | None = None,
                 role: str = "", max_pause_seconds: float = 5.0,
                 sleep: Callable[[float], None] = time.sleep) -> PostgresStore:
    """A store on ``url``, waiting for the database while it cannot be reached (a worker started
    before the database, or during its restart): said once, then retried with a pause that
    doubles up to ``max_pause_seconds``. Other errors (a bad URL, a refused login, a schema too
    new) raise at once."""
    pause = 0.25
    away = False
    while True:
        try:
            store = PostgresStore(url, bound_seconds=bound_seconds, role=role)
        except StoreUnavailable as exc:
            if not away:
                say(f"database unavailable ({exc}); waiting for it")
                away = True
            sleep(pause)
            pause = min(pause * 2, max_pause_seconds)
            continue
        if away:
            say("database reached")
        return store


def _schema_version(connection: psycopg.Connection[Any]) -> int:
    row = connection.execute("SELECT to_regclass('schema_version') IS NOT NULL AS present").fetchone()
    if row is None or not row["present"]:
        return 0
    row = connection.execute("SELECT MAX(version) AS version FROM schema_version").fetchone()
    return int(row["version"] or 0) if row is not None else 0
