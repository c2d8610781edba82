"""Errors of the results store, typed by cause; every one is an `ArenaError`."""

from __future__ import annotations

from arena.engine.errors import ArenaError


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


class StoreUnavailable(StoreError):
    """A database server that cannot be reached (down, restarting, network): worth retrying."""


class LeaseLost(StoreError):
    """A worker no longer holds a job: another worker claimed it after its lease ran out."""
