"""The faults operators meet, with real PostgreSQL and every worker, coordinator and bot a
process of its own (issue 38): the database away, bots before their league. Each league finishes
with every hand dealt once (the paused and the killed workers: test_faults_paused.py,
test_faults_killed.py)."""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.league.faults import every_hand_once, hands_played, wait_for, worker
from tests.league.test_league_e2e import FAULT_LEAGUE_LUCK_SAMPLES, ROOT, write_league
from tests.league.test_league_postgres import BOTS
from tests.league.test_workers import Cluster, free_port, with_token_files
from tests.pgserver import PostgresServer, PostgresUnavailable, postgres_server
from tests.server.procs import env

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
                                               tables_at_once=2, luck_samples=FAULT_LEAGUE_LUCK_SAMPLES))
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


def test_bots_started_before_the_coordinator_wait_for_their_league(tmp_path: Path,
                                                                    postgres: PostgresServer) -> None:
    """Compose starts the bots with the workers: a worker that does not know their tokens yet
    answers UNAVAILABLE (retryable), the bots retry within their connect time, and once the
    coordinator queues the league the worker learns the tokens and deals it."""
    url = postgres.new_database()
    hands_per_match = 10
    league = with_token_files(write_league(tmp_path, BOTS, store=url, hands_per_match=hands_per_match,
                                           tables_at_once=2))
    port = free_port()
    w1 = worker(url, "w1", port, tmp_path, exit_when_done=False)  # no job yet: it would leave
    bots = [subprocess.Popen(
        [sys.executable, "-m", "arena.cli", "bot", kind, "--server", f"127.0.0.1:{port}",
         "--token", f"token-{bot}-0001", "--name", bot, "--seed", "1", "--connect-seconds", "180"],
        cwd=ROOT, env=env(), stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        for bot, kind in BOTS]
    coordinator = None
    try:
        def refused() -> bool:
            text = (tmp_path / "w1.out").read_text()
            assert w1.poll() is None, text
            for bot in bots:
                assert bot.poll() is None, f"a bot gave up before its league was queued: {bot.communicate()}"
            return text.count("UNAVAILABLE: unknown token") >= len(bots)

        wait_for(refused, "every bot to be told its token is not known yet")
        coordinator = subprocess.Popen(
            [sys.executable, "-m", "arena.cli", "league", "run", str(league), "--no-worker"],
            cwd=tmp_path, env=env(), stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        out, _ = coordinator.communicate(timeout=300)
        assert coordinator.returncode == 0, out
        assert all(bot.poll() is None for bot in bots)  # still connected: none was refused for good
    finally:
        for proc in (w1, *bots, *([coordinator] if coordinator is not None else [])):
            if proc.poll() is None:
                proc.kill()
                proc.wait()
    every_hand_once(url, hands_per_match)
