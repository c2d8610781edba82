"""The faults operators meet, with real PostgreSQL and every worker, coordinator and bot a
process of its own (issue 38). Each league finishes with every hand dealt once."""

from __future__ import annotations

import json
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.league.faults import every_hand_once, hands_played, wait_for, worker
from tests.league.test_league_e2e import ROOT, write_league
from tests.league.test_league_postgres import BOTS
from tests.league.test_workers import Cluster, free_port, query, until_worker_played, with_token_files
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
                                           tables_at_once=2))
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


def test_a_worker_killed_and_started_again_under_its_name_takes_its_job_back(
        tmp_path: Path, postgres: PostgresServer) -> None:
    """The only worker is SIGKILLed mid-match and started again with the same name and port (a
    container restarted in place); its lease is long (300 s), yet it resumes its job at once, and
    its bots, reconnecting to the same port, finish the league."""
    url = postgres.new_database()
    hands_per_match = 60
    league = with_token_files(write_league(tmp_path, BOTS, store=url, hands_per_match=hands_per_match,
                                           tables_at_once=2))
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


def test_every_copys_log_in_every_workers_folder_verifies_after_a_worker_kill(
        tmp_path: Path, postgres: PostgresServer) -> None:
    """w1 is SIGKILLed mid-match; w2 takes its job and finishes the copies; w1, started again,
    plays on. Every log in both workers' folders then replays against its seed, checked against
    the league commitment (no file UNCHECKED), and each ``.result.json`` covers its whole copy."""
    url = postgres.new_database()
    hands_per_match = 40
    league = with_token_files(write_league(tmp_path, BOTS, store=url, hands_per_match=hands_per_match,
                                           tables_at_once=2))
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
