"""Shared fixtures: a real PostgreSQL server started once per session; tests marked ``slow`` run
only when asked for (``pytest -m slow``)."""

from __future__ import annotations

import os
from collections.abc import Iterator
from datetime import timedelta

import pytest
from hypothesis import HealthCheck, settings

import arena  # noqa: F401  # before any test imports grpc: the suite runs on arena's gRPC I/O path
from tests.pgserver import PostgresServer, PostgresUnavailable, postgres_server

# Hypothesis (docs/testing.md, "Hypothesis profiles"). One example of these tests takes
# milliseconds, so a 5 s deadline fails only a pathological case (a hang, an exponential search),
# never a loaded machine: Hypothesis's 200 ms default failed a property test 3 runs in 5 on 2
# shared cores. The too_slow health check times data generation, so it is off for the same
# reason. "ci" (the default) tries the same examples every run; "dev" searches at random, longer.
EXAMPLE_DEADLINE = timedelta(seconds=5)
settings.register_profile("ci", deadline=EXAMPLE_DEADLINE, derandomize=True, database=None,
                          suppress_health_check=[HealthCheck.too_slow])
settings.register_profile("dev", deadline=EXAMPLE_DEADLINE, max_examples=1000,
                          suppress_health_check=[HealthCheck.too_slow])
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    if "slow" in (config.getoption("-m") or ""):
        return
    skip = pytest.mark.skip(reason="slow: opt in with -m slow")
    for item in items:
        if "slow" in item.keywords:
            item.add_marker(skip)


@pytest.fixture(autouse=True)
def _no_dealer_runs_none(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """A test marked ``no_dealer`` (left out of the pass with every fast path off) fails if it
    starts a dealer in this process after all: the dealer asks whether its fast paths may run."""
    if request.node.get_closest_marker("no_dealer") is None:
        yield
        return
    from arena.host import fastpaths

    asked: list[str] = []
    allowed = fastpaths.allowed

    def noting(path: fastpaths.FastPath) -> bool:
        asked.append(path.name)
        return allowed(path)

    monkeypatch.setattr(fastpaths, "allowed", noting)
    yield
    assert not asked, f"marked no_dealer, yet it ran the dealer (it asked for {sorted(set(asked))})"


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
