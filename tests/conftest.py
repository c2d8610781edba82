"""Fixtures shared by every test area: a real PostgreSQL server, started once per session."""

from __future__ import annotations

import os
from collections.abc import Iterator

import pytest

from tests.pgserver import PostgresServer, PostgresUnavailable, postgres_server


@pytest.fixture(scope="session")
def postgres() -> Iterator[PostgresServer]:
    """A PostgreSQL cluster on loopback; skipped only where it cannot start, never in CI."""
    try:
        with postgres_server() as server:
            yield server
    except PostgresUnavailable as exc:
        if os.environ.get("CI") == "true":
            pytest.fail(f"PostgreSQL must run in CI: {exc}")
        pytest.skip(f"PostgreSQL cannot start here: {exc}")
