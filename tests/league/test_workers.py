"""Leagues on PostgreSQL with several workers, bots as separate processes over gRPC: the same hands
and leaderboard as one SQLite process, and a worker killed mid-match loses and repeats nothing
(read from the database)."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
from collections import defaultdict
from pathlib import Path

import psycopg

from arena.league.config import load_league
from arena.storage.store import open_store
from tests.league.test_league_e2e import ROOT, LeagueProcess, write_league
from tests.league.test_league_postgres import BOTS, hands_of
from tests.pgserver import PostgresServer
from tests.server.procs import env


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


class Cluster:
    """A coordinator (`arena league run --no-worker`), workers, and every bot connected to each worker."""

    def __init__(self, league: Path, workers: int, *, lease_seconds: float = 3.0) -> None:
        self.folder = league.parent
        self.url = str(load_league(league).store)
        self.coordinator = subprocess.Popen(
            [sys.executable, "-m", "arena.cli", "league", "run", str(league), "--no-worker"],
            cwd=self.folder, env=env(), stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        assert self.coordinator.stdout is not None
        first = self.coordinator.stdout.readline()
        assert "jobs queued" in first, first + self.coordinator.stdout.read()
        self.workers: dict[str, subprocess.Popen[str]] = {}
        self.bots: list[subprocess.Popen[bytes]] = []
        for k in range(workers):
            port = free_port()
            name = f"w{k + 1}"
            self.workers[name] = subprocess.Popen(
                [sys.executable, "-m", "arena.cli", "worker", "--store", self.url, "--name", name,
                 "--listen", f"127.0.0.1:{port}", "--log-dir", str(self.folder / name),
                 "--lease-seconds", str(lease_seconds), "--heartbeat-seconds", "0.5", "--exit-when-done"],
                cwd=self.folder, env=env(), stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
            for bot, kind in BOTS:
                self.bots.append(subprocess.Popen(
                    [sys.executable, "-m", "arena.cli", "bot", kind, "--server", f"127.0.0.1:{port}",
                     "--token", f"token-{bot}-0001", "--name", bot, "--seed", "1",
                     "--reconnect-seconds", "60"],
                    cwd=ROOT, env=env(), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL))

    def wait(self, timeout: float = 240) -> str:
        try:
            out, _ = self.coordinator.communicate(timeout=timeout)
        finally:
            self.stop()
        assert self.coordinator.returncode == 0, out
        return out

    def stop(self) -> None:
        for proc in [*self.workers.values(), *self.bots, self.coordinator]:
            if proc.poll() is None:
                proc.terminate()
        for proc in [*self.workers.values(), *self.bots, self.coordinator]:
            try:
                proc.wait(timeout=15)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()


def query(url: str, sql: str, params: tuple[object, ...] = ()) -> list[tuple[object, ...]]:
    with psycopg.connect(url) as db:
        return list(db.execute(sql, params).fetchall())  # type: ignore[arg-type]


def test_two_workers_play_the_league_as_one_sqlite_process_would(tmp_path: Path,
                                                                   postgres: PostgresServer) -> None:
    reference = tmp_path / "sqlite"
    reference.mkdir()
    league = write_league(reference, BOTS, hands_per_match=6, tables_at_once=2)
    code, output = LeagueProcess(league, BOTS).wait()
    assert code == 0, output
    store = open_store(reference / "league.sqlite")
    expected = hands_of(store)
    store.close()
    distributed = tmp_path / "postgresql"
    distributed.mkdir()
    url = postgres.new_database()
    league = write_league(distributed, BOTS, store=url, hands_per_match=6, tables_at_once=2)
    output = Cluster(league, workers=2).wait()
    assert "w1" in output and "w2" in output  # the progress names both workers
    store = open_store(url)
    assert hands_of(store) == expected  # same matches, same hands, same results
    store.close()
    boards = [json.loads((folder / "logs" / "leaderboard.json").read_text())
              for folder in (reference, distributed)]
    assert boards[0] == boards[1]
    jobs = query(url, "SELECT status, worker, claims FROM jobs ORDER BY job_id")
    assert len(jobs) == 3 and all(status == "done" and claims == 1 for status, _, claims in jobs)
    assert {worker for _, worker, _ in jobs} == {"w1", "w2"}  # both workers played
    assert query(url, "SELECT COUNT(*) FROM hands WHERE status = 'void'") == [(0,)]


def test_a_worker_killed_mid_match_loses_and_repeats_nothing(tmp_path: Path,
                                                             postgres: PostgresServer) -> None:
    url = postgres.new_database()
    hands_per_match = 40
    league = write_league(tmp_path, BOTS, store=url, hands_per_match=hands_per_match, tables_at_once=2)
    cluster = Cluster(league, workers=2)
    try:
        deadline = time.monotonic() + 120
        while True:  # until w1 has recorded a few hands of its job
            played = query(url, "SELECT COUNT(*) FROM hands h JOIN jobs j USING (match_id) "
                                "WHERE j.worker = 'w1' AND j.status = 'running'")[0][0]
            if isinstance(played, int) and played >= 4:
                break
            assert time.monotonic() < deadline, "w1 never played"
            time.sleep(0.1)
        killed = query(url, "SELECT match_id FROM jobs WHERE worker = 'w1' AND status = 'running'")
        os.kill(cluster.workers["w1"].pid, signal.SIGKILL)
        cluster.workers["w1"].wait()
        cluster.wait(timeout=300)
    finally:
        cluster.stop()
    assert killed
    jobs = query(url, "SELECT match_id, status, worker, claims FROM jobs ORDER BY job_id")
    assert all(status == "done" for _, status, _, _ in jobs)
    for match_id, _, worker, claims in jobs:
        if (match_id,) in killed:
            assert (worker, claims) == ("w2", 2)  # re-claimed by the survivor
    assert query(url, "SELECT COUNT(*) FROM matches WHERE status <> 'finished'") == [(0,)]
    rows = query(url, "SELECT match_id, copy_index, hand_number, status FROM hands")
    numbers: dict[tuple[object, object], list[object]] = defaultdict(list)
    for match_id, copy_index, number, _ in rows:
        numbers[(match_id, copy_index)].append(number)
    assert len(numbers) == 3 * 2
    for key, seen in numbers.items():  # every hand number once: completed or void, never twice
        assert sorted(seen) == list(range(1, hands_per_match + 1)), key  # type: ignore[type-var]
    voids = [(m, c) for m, c, _, status in rows if status == "void"]
    # The hand in flight on each of the killed worker's tables (if one was) is void, no other.
    assert len(voids) <= 2 and all((m,) in killed for m, _ in voids)
    assert query(url, "SELECT COUNT(*) FROM (SELECT hand_id FROM hand_seats GROUP BY hand_id "
                      "HAVING SUM(net_chips) <> 0) AS unbalanced") == [(0,)]  # chips conserved
    assert query(url, "SELECT COUNT(*) FROM hands h WHERE status = 'completed' AND NOT EXISTS "
                      "(SELECT 1 FROM hand_seats s WHERE s.hand_id = h.hand_id)") == [(0,)]
