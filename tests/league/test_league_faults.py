"""The faults operators meet, with real PostgreSQL and every worker, coordinator and bot a
process of its own (issue 38): a database restart under a coordinator that only watches and a
worker started while the database is down. Each league finishes with every hand dealt once."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from tests.league.faults import every_hand_once, hands_played, wait_for, worker
from tests.league.test_league_e2e import write_league
from tests.league.test_league_postgres import BOTS
from tests.league.test_workers import Cluster, free_port, with_token_files
from tests.pgserver import PostgresUnavailable, postgres_server

pytestmark = pytest.mark.timeout(400)


def test_a_database_restart_ends_neither_the_coordinator_nor_a_worker_started_meanwhile(
        tmp_path: Path) -> None:
    try:
        server_context = postgres_server()
        server = server_context.__enter__()
    except PostgresUnavailable as exc:
        pytest.skip(str(exc))
    try:
        url = server.new_database()
        hands_per_match = 60
        league = with_token_files(write_league(tmp_path, BOTS, store=url, hands_per_match=hands_per_match,
                                               tables_at_once=2))
        cluster = Cluster(league, workers=1, connect={bot: "w1" for bot, _ in BOTS}, lease_seconds=4.0)
        late = None
        try:
            wait_for(lambda: hands_played(url) >= 10, "w1's first hands")
            server.crash()
            # The coordinator polls the queue every second: it meets the database away now.
            late = worker(url, "w2", free_port(), tmp_path)
            started = late

            def waits() -> bool:
                text = (tmp_path / "w2.out").read_text()
                assert started.poll() is None, f"w2 left while the database was away:\n{text}"
                return "database unavailable" in text

            wait_for(waits, "w2 to say it waits for the database")
            time.sleep(2)
            assert cluster.coordinator.poll() is None, "the coordinator left while the database was away"
            assert late.poll() is None, (tmp_path / "w2.out").read_text()
            server.start()
            output = cluster.wait(timeout=300)
            assert late.wait(timeout=120) == 0, (tmp_path / "w2.out").read_text()
        finally:
            cluster.stop()
            if late is not None and late.poll() is None:
                late.kill()
        assert "database unavailable" in output and "database back after" in output
        assert "database reached" in (tmp_path / "w2.out").read_text()
        every_hand_once(url, hands_per_match)
    finally:
        server_context.__exit__(None, None, None)
