"""Leagues on PostgreSQL with several workers, bots as separate processes over gRPC, each connected to
ONE worker (the others' seats are relayed): the same hands and leaderboard as one SQLite process,
table streams refused where the bot has no seat, and a worker killed mid-match loses and repeats
nothing (read from the database)."""

from __future__ import annotations

import json
import os
import re
import signal
import socket
import subprocess
import sys
import time
from collections import defaultdict
from pathlib import Path
from typing import IO

import grpc
import psycopg

from arena.league.config import load_league
from arena.storage.store import open_store
from tests.league.test_league_e2e import FAULT_LEAGUE_LUCK_SAMPLES, ROOT, LeagueProcess, write_league
from tests.league.test_league_postgres import BOTS, hands_of
from tests.pgserver import PostgresServer
from tests.server.procs import env


def with_token_files(league: Path) -> Path:
    """The league file with each token moved to an owner-only file (the store keeps no tokens, so
    workers read them from files, as from a mounted secret)."""
    folder = league.parent / "tokens"
    folder.mkdir(mode=0o700, exist_ok=True)

    def to_file(match: re.Match[str]) -> str:
        path = folder / match.group(1)
        path.write_text(match.group(2) + "\n")
        path.chmod(0o600)
        return f'name = "{match.group(1)}"\ntoken_file = "{path}"'

    league.write_text(re.sub(r'name = "([^"]+)"\ntoken = "([^"]+)"', to_file, league.read_text()))
    return league


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


class Cluster:
    """A coordinator (`arena league run --no-worker`), workers, and each bot connected to one worker."""

    def __init__(self, league: Path, workers: int, connect: dict[str, str], *,
                 lease_seconds: float = 3.0, first_holds_a_job: bool = False,
                 worker_args: tuple[str, ...] = ()) -> None:
        """``first_holds_a_job``: the other workers start once w1 has claimed a job (on a loaded
        machine w1 may start so late that the others have taken every job)."""
        self.folder = league.parent
        self.url = str(load_league(league).store)
        self.logs: list[IO[str]] = []  # each worker's log, FOLDER/NAME.log, for a failure's reader
        self.coordinator = subprocess.Popen(
            [sys.executable, "-m", "arena.cli", "league", "run", str(league), "--no-worker"],
            cwd=self.folder, env=env(), stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        assert self.coordinator.stdout is not None
        first = self.coordinator.stdout.readline()
        assert "jobs queued" in first, first + self.coordinator.stdout.read()
        self.workers: dict[str, subprocess.Popen[str]] = {}
        self.bots: list[subprocess.Popen[bytes]] = []
        self.ports: dict[str, int] = {}
        for k in range(workers):
            if k == 1 and first_holds_a_job:
                deadline = time.monotonic() + 120
                while not query(self.url, "SELECT job_id FROM jobs WHERE worker = 'w1'"):
                    assert time.monotonic() < deadline, "w1 claimed no job"
                    time.sleep(0.1)
            port = free_port()
            name = f"w{k + 1}"
            self.ports[name] = port
            self.workers[name] = subprocess.Popen(
                [sys.executable, "-m", "arena.cli", "worker", "--store", self.url, "--name", name,
                 "--listen", f"127.0.0.1:{port}", "--log-dir", str(self.folder / name),
                 "--lease-seconds", str(lease_seconds), "--heartbeat-seconds", "0.5", "--exit-when-done",
                 *worker_args],
                cwd=self.folder, env=env(), stdout=subprocess.DEVNULL, text=True,
                stderr=self._log(name))
        self.connect = connect
        for bot, kind in BOTS:
            self.bots.append(self._bot(bot, kind))

    def _bot(self, bot: str, kind: str) -> subprocess.Popen[bytes]:
        port = self.ports[self.connect[bot]]
        return subprocess.Popen(
            [sys.executable, "-m", "arena.cli", "bot", kind, "--server", f"127.0.0.1:{port}",
             "--token", f"token-{bot}-0001", "--name", bot, "--seed", "1", "--reconnect-seconds", "60"],
            cwd=ROOT, env=env(), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)

    def revive_bots(self) -> None:
        """Start again the bots that left (a bot leaves when the dealer ends its stream after its
        last table there ended)."""
        for k, (bot, kind) in enumerate(BOTS):
            if self.bots[k].poll() is not None:
                self.bots[k] = self._bot(bot, kind)

    def wait(self, timeout: float = 240) -> str:
        try:
            out, _ = self.coordinator.communicate(timeout=timeout)
        finally:
            self.stop()
        assert self.coordinator.returncode == 0, out
        return out

    def _log(self, name: str) -> IO[str]:
        self.logs.append((self.folder / f"{name}.log").open("w"))
        return self.logs[-1]

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
        for log in self.logs:
            log.close()


def until_worker_played(url: str, worker: str, hands: int = 4) -> None:
    """Wait until ``worker`` has recorded ``hands`` hands of the jobs it is running."""
    deadline = time.monotonic() + 120
    while True:
        played = query(url, "SELECT COUNT(*) FROM hands h JOIN jobs j USING (match_id) "
                            "WHERE j.worker = %s AND j.status = 'running'", (worker,))[0][0]
        if isinstance(played, int) and played >= hands:
            return
        assert time.monotonic() < deadline, f"{worker} never played"
        time.sleep(0.1)


def query(url: str, sql: str, params: tuple[object, ...] = ()) -> list[tuple[object, ...]]:
    with psycopg.connect(url) as db:
        return list(db.execute(sql, params).fetchall())  # type: ignore[arg-type]


def refused_table_streams(url: str, cluster: Cluster) -> None:
    """A table stream for a table where the bot sits nowhere here ends PERMISSION_DENIED."""
    deadline = time.monotonic() + 60
    while True:
        rows = query(url, "SELECT j.worker, j.tables, j.match_id FROM jobs j "
                          "WHERE j.status = 'running' AND j.tables IS NOT NULL")
        if rows:
            break
        assert time.monotonic() < deadline, "no job was announced"
        time.sleep(0.1)
    worker, tables, match_id = rows[0]
    seated = {name for (name,) in query(url, "SELECT b.name FROM match_seats s JOIN bots b USING (bot_id) "
                                             "WHERE s.match_id = %s", (match_id,))}
    outsider = next(bot for bot, _ in BOTS if bot not in seated)
    address = f"127.0.0.1:{cluster.ports[str(worker)]}"
    table = str(tables).split(",")[0]
    for bot, asked in ((outsider, table), (sorted(seated)[0], "no-such-table")):
        code, details = play_table_stream(address, f"token-{bot}-0001", asked)
        assert code == grpc.StatusCode.PERMISSION_DENIED, (bot, asked, code, details)
        assert "no seat" in details


def play_table_stream(address: str, token: str, table: str) -> tuple[grpc.StatusCode, str]:
    from arena.v1 import arena_pb2 as pb
    from arena.v1 import arena_pb2_grpc as pb_grpc

    with grpc.insecure_channel(address) as channel:
        call = pb_grpc.DealerStub(channel).Play(
            iter([pb.BotMessage(hello=pb.Hello(bot_name="x", protocol_version=1))]),
            metadata=(("authorization", f"Bearer {token}"), ("arena-tables", table)), timeout=10)
        try:
            for _ in call:
                pass
        except grpc.RpcError as exc:
            return exc.code(), exc.details() or ""
    return grpc.StatusCode.OK, ""


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
    league = with_token_files(write_league(distributed, BOTS, store=url, hands_per_match=6,
                                           tables_at_once=2))
    # No worker dies here: a loaded machine must not look dead. Two tables (one job) at once each:
    # a worker that starts late still finds a job left.
    cluster = Cluster(league, workers=2, connect={"alpha": "w1", "beta": "w2", "gamma": "w1"},
                      lease_seconds=15.0, worker_args=("--tables", "2"))
    try:
        refused_table_streams(url, cluster)
    finally:
        output = cluster.wait()
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
    workers_of: dict[str, set[str]] = {}
    for bot, worker in query(url, "SELECT DISTINCT b.name, j.worker FROM jobs j JOIN match_seats s "
                                  "USING (match_id) JOIN bots b USING (bot_id)"):
        workers_of.setdefault(str(bot), set()).add(str(worker))
    # Any two of the three jobs share a bot, and both workers played: that bot's one process,
    # connected to one worker, sat at tables on both (which jobs each worker claims is timing).
    assert any(workers == {"w1", "w2"} for workers in workers_of.values()), workers_of
    assert query(url, "SELECT COUNT(*) FROM hands WHERE status = 'void'") == [(0,)]


def test_a_worker_killed_mid_match_loses_and_repeats_nothing(tmp_path: Path,
                                                             postgres: PostgresServer) -> None:
    url = postgres.new_database()
    hands_per_match = 40
    league = with_token_files(write_league(tmp_path, BOTS, store=url, hands_per_match=hands_per_match,
                                           tables_at_once=2,
                                           luck_samples=FAULT_LEAGUE_LUCK_SAMPLES))
    cluster = Cluster(league, workers=2, connect={bot: "w2" for bot, _ in BOTS},  # w1's seats relayed
                      lease_seconds=5.0, first_holds_a_job=True)
    try:
        until_worker_played(url, "w1")
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
            assert worker == "w2" and claims >= 2  # re-claimed by the survivor
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
    assert len(voids) <= 2 * len(killed) and all((m,) in killed for m, _ in voids)  # 2 copies a match
    assert query(url, "SELECT COUNT(*) FROM (SELECT hand_id FROM hand_seats GROUP BY hand_id "
                      "HAVING SUM(net_chips) <> 0) AS unbalanced") == [(0,)]  # chips conserved
    assert query(url, "SELECT COUNT(*) FROM hands h WHERE status = 'completed' AND NOT EXISTS "
                      "(SELECT 1 FROM hand_seats s WHERE s.hand_id = h.hand_id)") == [(0,)]


def test_a_worker_that_lost_its_lease_stops_dealing_that_job(tmp_path: Path,
                                                             postgres: PostgresServer) -> None:
    """Another worker takes the job (here: the database says so): the worker that held it deals
    no further hand of it and writes nothing more to its match; given back, the job is finished
    with every hand number once."""
    url = postgres.new_database()
    hands_per_match = 40  # enough left after the steal (at 4) to see a worker deal on
    league = with_token_files(write_league(tmp_path, BOTS, store=url, hands_per_match=hands_per_match,
                                           tables_at_once=2,
                                           luck_samples=FAULT_LEAGUE_LUCK_SAMPLES))
    cluster = Cluster(league, workers=1, connect={bot: "w1" for bot, _ in BOTS}, lease_seconds=15.0)

    def hands(match_id: object) -> int:
        count = query(url, "SELECT COUNT(*) FROM hands WHERE match_id = %s", (match_id,))[0][0]
        assert isinstance(count, int)
        return count

    try:
        deadline = time.monotonic() + 120
        while True:  # until w1 has recorded a few hands of a job
            rows = query(url, "SELECT j.job_id, j.match_id, COUNT(h.hand_id) FROM jobs j JOIN hands h "
                              "USING (match_id) WHERE j.worker = 'w1' AND j.status = 'running' "
                              "GROUP BY j.job_id, j.match_id ORDER BY j.job_id")
            if rows and isinstance(rows[0][2], int) and rows[0][2] >= 4:
                break
            assert time.monotonic() < deadline, "w1 never played"
            time.sleep(0.1)
        job_id, match_id, _ = rows[0]
        query(url, "UPDATE jobs SET worker = 'thief', claims = claims + 1 WHERE job_id = %s "
                   "RETURNING job_id", (job_id,))
        stolen_at = hands(match_id)
        deadline = time.monotonic() + 30
        last = -1
        while (now := hands(match_id)) != last:  # at most the hands in flight then end
            assert time.monotonic() < deadline, "w1 went on dealing the job it lost"
            last = now
            time.sleep(1.5)
        assert last <= stolen_at + 2 and last < 2 * hands_per_match  # one hand in flight per table
        time.sleep(1.5)
        assert hands(match_id) == last
        query(url, "UPDATE jobs SET status = 'queued', worker = NULL WHERE job_id = %s RETURNING job_id",
              (job_id,))
        cluster.revive_bots()
        cluster.wait(timeout=300)
    finally:
        cluster.stop()
    rows = query(url, "SELECT copy_index, hand_number FROM hands WHERE match_id = %s", (match_id,))
    for copy_index in (0, 1):
        numbers = sorted(n for c, n in rows if c == copy_index)
        assert numbers == list(range(1, hands_per_match + 1))  # type: ignore[comparison-overlap]
    assert query(url, "SELECT status, claims FROM jobs WHERE job_id = %s", (job_id,)) == [("done", 3)]
