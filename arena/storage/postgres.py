"""`PostgresStore`: the results store on a PostgreSQL server (psycopg 3), shared by many processes.

Same schema and migrations as SQLite (`migrations.postgresql_statement` rewrites the SQLite-only
spellings, or a step gives its own), same queries (`SqlStore`). A hand is committed exactly once:
the (match, hand, copy) key is unique and inserts are ``ON CONFLICT DO NOTHING``, so when the
connection is lost around a commit, the store reconnects and retries, and a hand that did commit
reads back as "already there".
"""

from __future__ import annotations

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
from arena.storage.records import HandRecord, VoidHand, now, timestamp_text
from arena.storage.sqlstore import Cursor, Guard, SqlStore

_MIGRATION_LOCK = 7_330_001  # pg_advisory_xact_lock key: one migrating process at a time
_RETRIES = 5
_RETRY_PAUSE_SECONDS = 0.2

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


def _retrying(method: Callable[P, R]) -> Callable[P, R]:
    """Retry an idempotent operation when the server connection was lost (it reconnects)."""

    def wrapper(*args: P.args, **kwargs: P.kwargs) -> R:
        for attempt in range(_RETRIES):
            try:
                return method(*args, **kwargs)
            except StoreUnavailable:
                if attempt == _RETRIES - 1:
                    raise
                time.sleep(_RETRY_PAUSE_SECONDS * (attempt + 1))
        raise AssertionError("unreachable")

    wrapper.__doc__ = method.__doc__
    return wrapper


class PostgresStore(SqlStore):
    """`ResultsStore` on PostgreSQL; one connection per store, shared between threads under a lock."""

    def __init__(self, url: str, *, clock: Callable[[], datetime] = now,
                 connect_timeout_seconds: float = 10.0) -> None:
        self.url = url
        self.where = describe_url(url)
        self._clock = clock
        self._lock = threading.RLock()
        self._connect_timeout_seconds = connect_timeout_seconds
        self._connection: psycopg.Connection[Any] | None = None
        self._depth = 0  # transactions open on this thread (the lock's owner): 2+ are savepoints
        self._checked: set[object] = set()  # checks done in the running transaction
        with self._lock:
            self.schema_version = self._migrate(self._connect())

    # ------------------------------------------------------------ plumbing

    def _connect(self) -> psycopg.Connection[Any]:
        try:
            connection = psycopg.connect(self.url, autocommit=True, row_factory=dict_row,
                                         connect_timeout=max(1, round(self._connect_timeout_seconds)),
                                         application_name="arena")
        except psycopg.OperationalError as exc:
            raise StoreUnavailable(f"{self.where}: cannot connect: {str(exc).strip()}") from None
        except psycopg.ProgrammingError as exc:
            raise StoreError(f"{self.where}: bad connection URL: {exc}") from None
        self._connection = connection
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

    def __enter__(self) -> PostgresStore:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    @contextmanager
    def _transaction(self, *, write: bool) -> Iterator[_PostgresDb]:
        """One transaction under the lock (a savepoint inside another); a broken connection is
        replaced first."""
        with self._lock:
            connection = self._connection
            if self._depth == 0 and (connection is None or connection.closed or connection.broken):
                connection = self._connect()
            assert connection is not None
            self._depth += 1
            ended_well = False
            try:
                with connection.transaction():
                    yield _PostgresDb(connection)
                ended_well = True
            except psycopg.IntegrityError as exc:
                raise InvalidRecord(f"{self.where}: refused by a schema constraint: "
                                    f"{str(exc).strip()}") from exc
            except psycopg.OperationalError as exc:
                raise StoreUnavailable(f"{self.where}: {str(exc).strip()}") from exc
            except psycopg.Error as exc:
                raise StoreError(f"{self.where}: {str(exc).strip()}") from exc
            finally:
                self._depth -= 1
                if self._depth == 0 or not ended_well:  # a rolled-back savepoint released its locks
                    self._checked.clear()

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
        with self._transaction(write=False) as db:
            return int(db.execute("SELECT pg_backend_pid() AS pid").fetchone()["pid"])

    # ------------------------------------------------------------ idempotent writes retry

    @_retrying
    def record_hand(self, hand: HandRecord, *, guard: Guard | None = None) -> bool:
        return super().record_hand(hand, guard=guard)

    @_retrying
    def void_hand(self, hand: VoidHand, *, guard: Guard | None = None) -> bool:
        return super().void_hand(hand, guard=guard)


def _schema_version(connection: psycopg.Connection[Any]) -> int:
    row = connection.execute("SELECT to_regclass('schema_version') IS NOT NULL AS present").fetchone()
    if row is None or not row["present"]:
        return 0
    row = connection.execute("SELECT MAX(version) AS version FROM schema_version").fetchone()
    return int(row["version"] or 0) if row is not None else 0
