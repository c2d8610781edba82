"""The results store's interface, and `open_store` choosing a backend from a league's ``store`` value.

Values live in `records`, errors in `errors`, the schema in `migrations`, token hashing in
`tokens`; `SqliteStore` (a file path, the default) and `PostgresStore` (a ``postgresql://`` URL)
implement `ResultsStore`. Everything is re-exported here for callers that want one import.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator, Sequence
from contextlib import AbstractContextManager
from os import PathLike
from typing import Protocol, TypeGuard

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
from arena.storage.sqlstore import Guard
from arena.storage.tokens import hash_token, verify_token

__all__ = [
    "LATEST_VERSION", "MIGRATIONS", "AlreadyExists", "Bot", "CorruptStore", "FaultCounts", "HandConflict",
    "HandLuckRecord", "HandRecord", "HandStatus", "InvalidRecord", "League", "LeftOutHand", "LuckPending",
    "Match", "MatchFormat", "MatchStatus", "Migration", "NotFound", "ResultRow", "ResultsStore",
    "SchemaTooNew", "SeatResult", "SqliteStore", "StoreError", "TournamentPlacing", "VoidHand",
    "apply_migrations", "hash_token", "is_postgres_url", "open_store", "shown_location", "verify_token",
]


class ResultsStore(Protocol):
    """What the dealer and the leaderboard need from a results store (SQLite or PostgreSQL)."""

    def close(self) -> None: ...

    def create_league(self, name: str, config_toml: str) -> League: ...

    def get_league(self, league_id: int) -> League: ...

    def find_league(self, name: str) -> League | None: ...

    def list_leagues(self) -> list[League]: ...

    def register_bot(self, name: str, token: str) -> Bot: ...

    def get_bot(self, name: str) -> Bot: ...

    def verify_bot_token(self, name: str, token: str) -> bool: ...

    def create_match(self, league_id: int, *, seat_bots: Sequence[str], games: Sequence[str],
                     match_format: MatchFormat = MatchFormat.CASH, is_duplicate: bool = False) -> Match: ...

    def get_match(self, match_id: int) -> Match: ...

    def list_matches(self, league_id: int) -> list[Match]: ...

    def record_hand(self, hand: HandRecord, *, guard: Guard | None = None) -> bool: ...

    def void_hand(self, hand: VoidHand, *, guard: Guard | None = None) -> bool: ...

    def mark_in_flight(self, match_id: int, copy_index: int, hand_number: int, *,
                       guard: Guard | None = None) -> None: ...

    def hand_in_flight(self, match_id: int, copy_index: int) -> int | None: ...

    def batch(self) -> AbstractContextManager[None]: ...

    def finish_match(self, match_id: int, seed: str) -> Match: ...

    def abort_match(self, match_id: int, *, seed: str | None = None) -> Match: ...

    def completed_hands(self, match_id: int) -> list[HandRecord]: ...

    def void_hands(self, match_id: int) -> list[VoidHand]: ...

    def next_hand_number(self, match_id: int, *, copy_index: int | None = None) -> int: ...

    def fault_counts(self, league_id: int) -> list[FaultCounts]: ...

    def left_out_hands(self, league_id: int) -> list[LeftOutHand]: ...

    def iter_results(self, league_id: int, *,
                     statuses: Iterable[MatchStatus] = (MatchStatus.RUNNING, MatchStatus.FINISHED),
                     value_function: str | None = None) -> Iterator[ResultRow]: ...

    def iter_hand_texts(self, league_id: int) -> Iterator[str]: ...

    def hands_without_luck(self, league_id: int, value_function: str, *,
                           match_ids: Iterable[int] | None = None, limit: int = 10_000,
                           ) -> list[LuckPending]: ...

    def record_luck(self, records: Sequence[HandLuckRecord]) -> int: ...

    def record_placings(self, league_id: int, placings: Sequence[TournamentPlacing]) -> int: ...

    def tournament_placings(self, league_id: int) -> list[TournamentPlacing]: ...


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
