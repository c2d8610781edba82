"""Shared fixtures: a real PostgreSQL server started once per session; tests marked ``slow`` run
only when asked for (``pytest -m slow``)."""

from __future__ import annotations

import os
from collections.abc import Iterator

import pytest

import arena  # noqa: F401  # before any test imports grpc: the suite runs on arena's gRPC I/O path
from tests.pgserver import PostgresServer, PostgresUnavailable, postgres_server


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    if "slow" in (config.getoption("-m") or ""):
        return
    skip = pytest.mark.skip(reason="slow: opt in with -m slow")
    for item in items:
        if "slow" in item.keywords:
            item.add_marker(skip)


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
