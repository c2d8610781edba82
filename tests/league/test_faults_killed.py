"""Issue 38's faults, continued: a worker SIGKILLed mid-match, started again under its name or
replaced by another. Each league finishes with every hand dealt once."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from tests.league.faults import every_hand_once, wait_for, worker
from tests.league.test_league_e2e import FAULT_LEAGUE_LUCK_SAMPLES, write_league
from tests.league.test_league_postgres import BOTS
from tests.league.test_workers import Cluster, query, until_worker_played, with_token_files
from tests.pgserver import PostgresServer
from tests.server.procs import env

pytestmark = pytest.mark.timeout(400)


def test_a_worker_killed_and_started_again_under_its_name_takes_its_job_back(
        tmp_path: Path, postgres: PostgresServer) -> None:
    """The only worker is SIGKILLed mid-match and started again with the same name and port (a
    container restarted in place); its lease is long (300 s), yet it resumes its job at once, and
    its bots, reconnecting to the same port, finish the league."""
    url = postgres.new_database()
    hands_per_match = 60
    league = with_token_files(write_league(tmp_path, BOTS, store=url, hands_per_match=hands_per_match,
                                           tables_at_once=2,
                                           luck_samples=FAULT_LEAGUE_LUCK_SAMPLES))
    cluster = Cluster(league, workers=1, connect={bot: "w1" for bot, _ in BOTS}, lease_seconds=300.0)
    try:
        until_worker_played(url, "w1")
        held = query(url, "SELECT job_id FROM jobs WHERE worker = 'w1' AND status = 'running'")
        cluster.workers["w1"].send_signal(signal.SIGKILL)
        cluster.workers["w1"].wait()
        cluster.workers["w1"] = worker(url, "w1", cluster.ports["w1"], tmp_path, lease_seconds=300.0)
        # Its jobs come back within a time far shorter than the lease: taken back, not expired.
        wait_for(lambda: all(query(url, "SELECT claims FROM jobs WHERE job_id = %s", (job,))[0][0] == 2
                             for (job,) in held), "w1 to take its jobs back", timeout_seconds=200)
        cluster.wait(timeout=300)
        assert cluster.workers["w1"].wait(timeout=60) == 0
    finally:
        cluster.stop()
    assert held
    every_hand_once(url, hands_per_match)


def test_every_copys_log_in_every_workers_folder_verifies_after_a_worker_kill(
        tmp_path: Path, postgres: PostgresServer) -> None:
    """w1 is SIGKILLed mid-match; w2 takes its job and finishes the copies; w1, started again,
    plays on. Every log in both workers' folders then replays against its seed, checked against
    the league commitment (no file UNCHECKED), and each ``.result.json`` covers its whole copy."""
    url = postgres.new_database()
    hands_per_match = 40
    league = with_token_files(write_league(tmp_path, BOTS, store=url, hands_per_match=hands_per_match,
                                           tables_at_once=2,
                                           luck_samples=FAULT_LEAGUE_LUCK_SAMPLES))
    cluster = Cluster(league, workers=2, connect={bot: "w2" for bot, _ in BOTS},  # w1's seats relayed
                      lease_seconds=4.0, first_holds_a_job=True, worker_args=("--tables", "2"))
    try:
        until_worker_played(url, "w1")
        # (Its log lines follow its commits: wait for some, so that its folder holds a cut copy,
        # while it still runs a job; on a loaded machine it may end one first and take the next.)
        running: list[tuple[object, ...]] = []

        def mid_job() -> bool:
            running[:] = query(url, "SELECT job_id FROM jobs WHERE worker = 'w1' "
                                    "AND status = 'running'")
            return bool(running) and any(p.stat().st_size
                                         for p in (tmp_path / "w1").rglob("*.phhs"))
        wait_for(mid_job, "w1's first logged hands while it runs a job")
        job = running[0][0]  # (its first job when it holds two)
        cluster.workers["w1"].send_signal(signal.SIGKILL)
        cluster.workers["w1"].wait()
        wait_for(lambda: query(url, "SELECT worker FROM jobs WHERE job_id = %s", (job,)) == [("w2",)],
                 "w2 to take w1's job")
        cluster.workers["w1"] = worker(url, "w1", cluster.ports["w1"], tmp_path, extra=("--tables", "2"))
        output = cluster.wait(timeout=300)
        for name in ("w1", "w2"):
            assert cluster.workers[name].wait(timeout=60) == 0, name
    finally:
        cluster.stop()
    every_hand_once(url, hands_per_match)
    assert "league secret revealed" in output
    logs = sorted(str(p) for name in ("w1", "w2") for p in (tmp_path / name).rglob("*.phhs"))
    assert any("/w1/" in p for p in logs) and any("/w2/" in p for p in logs)
    replay = subprocess.run([sys.executable, "-m", "arena.cli", "replay", *logs], cwd=tmp_path, env=env(),
                            capture_output=True, text=True, timeout=300)
    assert replay.returncode == 0, replay.stdout[-3000:] + replay.stderr[-3000:]
    assert "UNCHECKED" not in replay.stdout, replay.stdout
    assert replay.stdout.count("verifying ") == len(logs)
    assert replay.stdout.count("against the league commitment") + \
        replay.stdout.count("derived from the league secret") == len(logs)
    completed: dict[tuple[str, int], int] = {}
    for deal_set, copy_index, count in query(
            url, "SELECT j.deal_set, h.copy_index, COUNT(*) FROM hands h JOIN jobs j USING (match_id) "
                 "WHERE h.status = 'completed' GROUP BY j.deal_set, h.copy_index"):
        assert isinstance(copy_index, int) and isinstance(count, int)
        completed[(str(deal_set), copy_index)] = count
    results = [json.loads(p.read_text()) for name in ("w1", "w2")
               for p in (tmp_path / name).rglob("*.result.json")]
    assert len(results) >= len(completed)  # every copy ended somewhere (once more where it was cut)
    ended = [r for r in results if not r["aborted"]]
    for result in ended:
        copy_index = next(c for (d, c) in completed if d == result["deal_set"]
                          and result["match_id"].endswith(f"c{c + 1}"))
        assert result["hands_played"] == completed[(result["deal_set"], copy_index)], result
        assert isinstance(result["match_seed"], int)
        assert sum(seat["net_chips"] for seat in result["results"]) == 0
