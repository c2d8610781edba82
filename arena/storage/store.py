"""The results store's interface, and `open_store` choosing a backend from a league's ``store`` value.

Values live in `records`, errors in `errors`, the schema in `migrations`, token hashing in
`tokens`; `SqliteStore` (a file path, the default) and `PostgresStore` (a ``postgresql://`` URL)
are the `ResultsStore`s (`SqlStore`s). Everything is re-exported here for callers that want one
import.
"""

from __future__ import annotations

import re
from os import PathLike
from typing import TypeGuard

from arena.storage.errors import (
    AlreadyExists,
    CorruptStore,
    HandConflict,
    InvalidRecord,
    NotFound,
    SchemaTooNew,
    StoreError,
)
from arena.storage.migrations import LATEST_VERSION, MIGRATIONS, Migration
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
    SeatResult,
    TournamentPlacing,
    VoidHand,
)
from arena.storage.sqlite import SqliteStore, apply_migrations
from arena.storage.sqlstore import SqlStore
from arena.storage.tokens import hash_token, verify_token

__all__ = [
    "LATEST_VERSION", "MIGRATIONS", "AlreadyExists", "Bot", "CorruptStore", "FaultCounts", "HandConflict",
    "HandLuckRecord", "HandRecord", "HandStatus", "InvalidRecord", "League", "LeftOutHand", "LuckPending",
    "Match", "MatchFormat", "MatchStatus", "Migration", "NotFound", "ResultRow", "ResultsStore",
    "SchemaTooNew", "SeatResult", "SqliteStore", "StoreError", "TournamentPlacing", "VoidHand",
    "apply_migrations", "hash_token", "is_postgres_url", "open_store", "shown_location", "verify_token",
]


# What the dealer and the leaderboard need from a results store: the queries of `SqlStore`,
# written once for both backends (SQLite and PostgreSQL).
ResultsStore = SqlStore


def open_store(location: str | PathLike[str]) -> ResultsStore:
    """A ``postgresql://`` (or ``postgres://``) URL opens PostgreSQL; anything else is an SQLite file."""
    if is_postgres_url(location):
        from arena.storage.postgres import PostgresStore  # psycopg loads only when PostgreSQL is used

        return PostgresStore(location)
    return SqliteStore(location)


def is_postgres_url(location: object) -> TypeGuard[str]:
    return isinstance(location, str) and location.startswith(("postgresql://", "postgres://"))


def shown_location(location: str | PathLike[str]) -> str:
    """A store location fit for printing: a URL's password is replaced by ``***``."""
    return re.sub(r"(://[^:/@]*:)[^@]*@", r"\1***@", str(location))
