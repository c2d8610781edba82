"""Issue 38's faults, continued: a worker paused (SIGSTOP) inside a commit or while its tables
wait loses its job to another worker and leaves. Each league finishes with every hand dealt once."""

from __future__ import annotations

import random
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.league.faults import every_hand_once, hands_played, wait_for, worker
from tests.league.test_league_e2e import FAULT_LEAGUE_LUCK_SAMPLES, ROOT, write_league
from tests.league.test_league_postgres import BOTS
from tests.league.test_workers import Cluster, free_port, query, until_worker_played, with_token_files
from tests.pgserver import PostgresServer
from tests.server.procs import env

pytestmark = pytest.mark.timeout(400)


def _stuck_in_a_commit(url: str, worker: str) -> bool:
    """Whether a connection of ``worker`` sits inside a transaction that holds a lock on the jobs
    table (its writer's batch, the lease's ``FOR SHARE`` taken, the COMMIT not sent)."""
    return bool(query(url, "SELECT a.pid FROM pg_stat_activity a JOIN pg_locks l ON l.pid = a.pid "
                           "WHERE a.application_name = %s AND a.state = 'idle in transaction' "
                           "AND l.relation = 'jobs'::regclass", (f"arena worker {worker}",)))


def test_a_worker_paused_inside_a_commit_loses_its_job_at_the_lease_and_stops_when_continued(
        tmp_path: Path, postgres: PostgresServer) -> None:
    """SIGSTOP while w1's batch holds its job's row (``FOR SHARE``): the server ends the idle
    transaction (the worker's sessions are bounded below its lease), so w2 claims the job when
    the lease runs out; continued, w1 writes nothing more to it, and the league finishes."""
    url = postgres.new_database()
    hands_per_match = 200
    league = with_token_files(write_league(tmp_path, BOTS, store=url, hands_per_match=hands_per_match,
                                           tables_at_once=2,
                                           luck_samples=FAULT_LEAGUE_LUCK_SAMPLES))
    cluster = Cluster(league, workers=2, connect={bot: "w2" for bot, _ in BOTS},  # w1's seats relayed
                      lease_seconds=4.0, first_holds_a_job=True, worker_args=("--tables", "2"))
    w1 = cluster.workers["w1"]
    try:
        until_worker_played(url, "w1")
        deadline = time.monotonic() + 120
        while True:  # pause w1 until once it is paused inside a commit (a few ms in each hand)
            assert time.monotonic() < deadline, "w1 was never paused inside a commit"
            w1.send_signal(signal.SIGSTOP)
            if _stuck_in_a_commit(url, "w1"):
                break
            w1.send_signal(signal.SIGCONT)
            time.sleep(random.uniform(0.0, 0.03))
        # (Read while w1 is stopped: the job whose row its open commit holds, one at a time.)
        [(job,)] = query(url, "SELECT job_id FROM jobs WHERE worker = 'w1' AND status = 'running'")
        wait_for(lambda: query(url, "SELECT worker FROM jobs WHERE job_id = %s", (job,)) == [("w2",)],
                 "w2 to claim the job of the paused w1", timeout_seconds=90)
        held_back = hands_played(url)
        w1.send_signal(signal.SIGCONT)
        cluster.wait(timeout=300)
        assert w1.wait(timeout=60) == 0
    finally:
        w1.send_signal(signal.SIGCONT)
        cluster.stop()
    assert held_back < 3 * 2 * hands_per_match
    every_hand_once(url, hands_per_match)
    claims = query(url, "SELECT claims FROM jobs WHERE job_id = %s", (job,))
    assert claims[0][0] >= 2


def test_a_worker_whose_waiting_job_was_claimed_ends_its_tables_and_leaves(
        tmp_path: Path, postgres: PostgresServer) -> None:
    """w1 claims a job whose bots are not there (absent = "wait": its tables wait), is paused past
    its lease, and w2, with the bots, takes the job. Continued, w1 learns from its heartbeat that
    the job is gone, ends its tables, and leaves with the league (``--exit-when-done``)."""
    url = postgres.new_database()
    hands_per_match = 10
    league = with_token_files(write_league(tmp_path, BOTS, store=url, hands_per_match=hands_per_match,
                                           tables_at_once=2, absent="wait", start_timeout_seconds=1))
    coordinator = subprocess.Popen(
        [sys.executable, "-m", "arena.cli", "league", "run", str(league), "--no-worker"],
        cwd=tmp_path, env=env(), stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    assert coordinator.stdout is not None
    first = coordinator.stdout.readline()
    assert "jobs queued" in first, first + coordinator.stdout.read()
    w1 = worker(url, "w1", free_port(), tmp_path, extra=("--tables", "2"))
    procs = [coordinator, w1]
    try:
        # Its tables made and waiting: it noted a postponement of the job (its bots are absent).
        wait_for(lambda: bool(query(url, "SELECT 1 FROM job_waits WHERE worker = 'w1'")),
                 "w1's tables to wait for their bots")
        job = query(url, "SELECT job_id FROM job_waits WHERE worker = 'w1'")[0][0]
        w1.send_signal(signal.SIGSTOP)
        wait_for(lambda: query(url, "SELECT heartbeat_at < EXTRACT(EPOCH FROM clock_timestamp()) - 4 "
                                    "FROM jobs WHERE job_id = %s", (job,)) == [(True,)],
                 "w1's lease to run out")
        port = free_port()
        procs.append(worker(url, "w2", port, tmp_path))
        procs += [subprocess.Popen(
            [sys.executable, "-m", "arena.cli", "bot", kind, "--server", f"127.0.0.1:{port}",
             "--token", f"token-{bot}-0001", "--name", bot, "--seed", "1", "--connect-seconds", "120",
             "--reconnect-seconds", "60"],
            cwd=ROOT, env=env(), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL) for bot, kind in BOTS]
        wait_for(lambda: query(url, "SELECT worker FROM jobs WHERE job_id = %s", (job,)) == [("w2",)],
                 "w2 to claim w1's job")
        w1.send_signal(signal.SIGCONT)
        out, _ = coordinator.communicate(timeout=300)
        assert coordinator.returncode == 0, out
        assert w1.wait(timeout=120) == 0, (tmp_path / "w1.out").read_text()
    finally:
        w1.send_signal(signal.SIGCONT)
        for proc in procs:
            if proc.poll() is None:
                proc.kill()
                proc.wait()
    assert "was claimed by another worker: its tables end here" in (tmp_path / "w1.out").read_text()
    every_hand_once(url, hands_per_match)
