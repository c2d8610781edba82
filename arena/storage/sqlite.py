"""`SqliteStore`: the results store in one SQLite file (the embedded default), with its migrations."""

from __future__ import annotations

import os
import sqlite3
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import datetime
from pathlib import Path
from typing import Literal

from arena.engine.errors import ConfigError
from arena.storage.errors import CorruptStore, InvalidRecord, SchemaTooNew, StoreError
from arena.storage.migrations import LATEST_VERSION, MIGRATIONS
from arena.storage.records import now, timestamp_text
from arena.storage.sqlstore import MARK_IN_FLIGHT, Guard, SqlStore

_SQLITE_MAGIC = b"SQLite format 3\x00"


def apply_migrations(connection: sqlite3.Connection, *, target_version: int = LATEST_VERSION,
                     clock: Callable[[], datetime] = now) -> int:
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
                (migration.version, migration.description, timestamp_text(clock())))
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


class SqliteStore(SqlStore):
    """`ResultsStore` in one SQLite file; safe to share between threads (one lock, one connection).

    Durability: WAL journal with ``synchronous=FULL`` fsyncs the log at every commit, so a hand
    that `record_hand` returned for survives SIGKILL and power loss; a hand being written when the
    process dies is rolled back whole on the next open. ``NORMAL`` (fsync at checkpoints only)
    also survives SIGKILL but may lose the last hands on power loss; a hand lasts seconds, an
    fsync milliseconds, so FULL is the default.
    """

    def __init__(self, path: str | os.PathLike[str], *, synchronous: Literal["FULL", "NORMAL"] = "FULL",
                 busy_timeout_seconds: float = 5.0, clock: Callable[[], datetime] = now) -> None:
        self.path = Path(path)
        self.synchronous = synchronous
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
        connection.row_factory = sqlite3.Row
        self._connection = connection

    def close(self) -> None:
        with self._lock:
            self._connection.close()

    @contextmanager
    def transaction(self, *, write: bool) -> Iterator[sqlite3.Connection]:
        """One transaction under the lock; sqlite3 errors become StoreError subclasses."""
        with self._lock, _errors(self.path):
            connection = self._connection
            nested = self._in_batch()  # a savepoint inside the batch's transaction
            connection.execute("SAVEPOINT write" if nested else
                               "BEGIN IMMEDIATE" if write else "BEGIN DEFERRED")
            try:
                yield connection
                connection.execute("RELEASE write" if nested else "COMMIT")
            except BaseException:
                if nested:
                    connection.execute("ROLLBACK TO write")
                    connection.execute("RELEASE write")
                elif connection.in_transaction:
                    connection.execute("ROLLBACK")
                raise

    def mark_in_flight(self, match_id: int, copy_index: int, hand_number: int, *,
                       guard: Guard | None = None) -> None:
        """`SqlStore.mark_in_flight`; in this thread's batch, without a guard, one statement and
        no savepoint (a statement that fails changes nothing in SQLite)."""
        if guard is not None or not self._in_batch():
            super().mark_in_flight(match_id, copy_index, hand_number, guard=guard)
            return
        with self._lock, _errors(self.path):
            self._connection.execute(MARK_IN_FLIGHT, (match_id, copy_index, hand_number))

    def check_integrity(self) -> list[str]:
        """SQLite's full integrity check plus foreign keys: an empty list when all is well."""
        with self._lock:
            problems = [row[0] for row in self._connection.execute("PRAGMA integrity_check")]
            problems = [] if problems == ["ok"] else problems
            orphans = self._connection.execute("PRAGMA foreign_key_check").fetchall()
            problems += [f"foreign key: {tuple(row)}" for row in orphans]
            return problems


@contextmanager
def _errors(path: Path) -> Iterator[None]:
    """sqlite3's errors as StoreError subclasses."""
    try:
        yield
    except sqlite3.DatabaseError as exc:
        raise _store_error(path, exc) from exc


def _store_error(path: Path, exc: sqlite3.DatabaseError) -> StoreError:
    if isinstance(exc, sqlite3.IntegrityError):
        return InvalidRecord(f"{path}: refused by a schema constraint: {exc}")
    if "malformed" in str(exc) or "not a database" in str(exc):
        return CorruptStore(f"{path}: {exc}")
    return StoreError(f"{path}: {exc}")


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
