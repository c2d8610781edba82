"""A league on workers waits for a bot that never connects (absent = "wait"): the worker notes the
postponed matches in the store and the coordinator's progress names the bot, its matches and the
worker; once the bot connects, the matches are dealt, the notes are gone and the league ends."""

from __future__ import annotations

import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from tests.league.test_league_e2e import ROOT, write_league
from tests.league.test_workers import free_port, query, with_token_files
from tests.pgserver import PostgresServer
from tests.server.procs import env

pytestmark = pytest.mark.timeout(240)

BOTS = [("alpha", "rules"), ("beta", "call"), ("gamma", "rules")]
HANDS = 2


def _bot(name: str, kind: str, port: int) -> subprocess.Popen[bytes]:
    return subprocess.Popen(
        [sys.executable, "-m", "arena.cli", "bot", kind, "--server", f"127.0.0.1:{port}",
         "--token", f"token-{name}-0001", "--name", name, "--seed", "1", "--reconnect-seconds", "60"],
        cwd=ROOT, env=env(), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def test_the_coordinator_names_the_bot_that_postponed_matches_wait_for(tmp_path: Path,
                                                                          postgres: PostgresServer) -> None:
    url = postgres.new_database()
    league = with_token_files(write_league(tmp_path, BOTS, store=url, hands_per_match=HANDS,
                                           tables_at_once=6, absent="wait", start_timeout_seconds=0.5))
    coordinator = subprocess.Popen(
        [sys.executable, "-m", "arena.cli", "league", "run", str(league), "--no-worker"],
        cwd=tmp_path, env=env(), stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    assert coordinator.stdout is not None
    lines: list[str] = []
    reader = threading.Thread(target=lambda: lines.extend(coordinator.stdout or ()), daemon=True)
    reader.start()
    deadline = time.monotonic() + 60
    while not any("jobs queued" in line for line in lines):  # a worker with nothing queued leaves
        assert coordinator.poll() is None and time.monotonic() < deadline, "".join(lines)
        time.sleep(0.05)
    port = free_port()
    worker = subprocess.Popen(
        [sys.executable, "-m", "arena.cli", "worker", "--store", url, "--name", "w1",
         "--listen", f"127.0.0.1:{port}", "--log-dir", str(tmp_path / "w1"), "--tables", "6",
         "--lease-seconds", "15", "--heartbeat-seconds", "0.5", "--exit-when-done"],
        cwd=tmp_path, env=env(), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    bots = [_bot(name, kind, port) for name, kind in BOTS if name != "gamma"]  # gamma never comes
    try:
        deadline = time.monotonic() + 90
        # Both matches with gamma (alpha-gamma, beta-gamma) are put back, by w1, at least twice
        # (each of the two duplicate copies, or one copy again): 0.5 s start timeouts. The worker
        # notes one job at a time, so a line may name one match before the next names both.
        while not any("waiting for gamma (2 matches postponed " in line for line in lines):
            assert coordinator.poll() is None and worker.poll() is None, "".join(lines)
            assert time.monotonic() < deadline, "".join(lines)
            time.sleep(0.2)
        waiting = next(line for line in lines if "waiting for gamma (2 matches postponed " in line)
        assert " s, w1)" in waiting, waiting
        assert "alpha (" not in waiting and "beta (" not in waiting
        rows = query(url, "SELECT w.worker, w.bots, w.postponements, j.status FROM job_waits w "
                          "JOIN jobs j USING (job_id) ORDER BY job_id")
        assert len(rows) == 2 and all(r[0] == "w1" and r[1] == "gamma" and r[3] == "running"
                                      for r in rows), rows
        assert query(url, "SELECT COUNT(*) FROM hands h JOIN match_seats s USING (match_id) "
                          "JOIN bots b USING (bot_id) WHERE b.name = 'gamma'") == [(0,)]
        bots.append(_bot("gamma", "rules", port))  # at last: the matches are dealt
        coordinator.wait(timeout=120)
        reader.join(timeout=10)
        worker.wait(timeout=60)
    finally:
        for proc in (coordinator, worker, *bots):
            if proc.poll() is None:
                proc.terminate()
                try:
                    proc.wait(timeout=15)
                except subprocess.TimeoutExpired:
                    proc.kill()
    output = "".join(lines)
    assert coordinator.returncode == 0, output
    final = [line for line in lines if line.startswith("hands ")][-1]
    assert final.startswith(f"hands {3 * 2 * HANDS}/{3 * 2 * HANDS}") and "waiting for" not in final, final
    assert query(url, "SELECT COUNT(*) FROM job_waits") == [(0,)]  # dealt, then done: forgotten
    assert query(url, "SELECT status, COUNT(*) FROM jobs GROUP BY status") == [("done", 3)]
