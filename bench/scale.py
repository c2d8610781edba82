"""Leagues on many workers: the same league (instant `call` bots over gRPC) played by one SQLite
process, by one PostgreSQL worker and by two PostgreSQL workers, in one run.

    python -m bench.scale [--hands 40] [--bots 6] [--tables 8] [--rounds 3]

Bots connect to ONE worker each (the relay carries their other seats). Prints total hands/s, the
ratios (2 workers / 1 worker, PostgreSQL / SQLite at 1 worker: medians over the rounds of each
round's ratio, the modes interleaved) and the CPU per hand of the dealers, the bots, the
coordinator and the PostgreSQL server, with the cores each mode kept busy: on a machine of
``os.cpu_count()`` cores that gives the most 2 workers could gain over 1.
"""

from __future__ import annotations

import argparse
import math
import os
import socket
import sqlite3
import statistics
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import psycopg

from arena.practice import stop_processes
from bench.scratch import scratch_dir
from tests.pgserver import PostgresServer, postgres_server

ROOT = Path(__file__).resolve().parents[1]
STALL_SECONDS = 180.0  # a league of workers not done by then has stalled


@dataclass(frozen=True)
class Result:
    mode: str
    hands: int
    seconds: float
    dealer_cpu_seconds: float  # the SQLite process, or the workers (not the coordinator, not the bots)
    others_cpu_seconds: float = 0.0  # the bots and the workers' coordinator
    db_cpu_seconds: float = 0.0  # the PostgreSQL server's processes
    db_commits: float = 0.0  # transactions the PostgreSQL server committed (the bench's own left out)
    stalled: bool = False  # not every hand was played in time (left out of the medians)
    folder: str = ""  # the run's files

    @property
    def rate(self) -> float:
        return self.hands / self.seconds if self.seconds > 0 else 0.0

    @property
    def cpu_seconds(self) -> float:
        return self.dealer_cpu_seconds + self.others_cpu_seconds + self.db_cpu_seconds

    def per_hand_ms(self, seconds: float) -> float:
        return 1000 * seconds / max(self.hands, 1)


def _server_cpu(server: PostgresServer) -> float:
    """CPU seconds of the PostgreSQL server: the postmaster, its ended children and the living."""
    postmaster = int((server.root / "data" / "postmaster.pid").read_text().split()[0])
    tick = os.sysconf("SC_CLK_TCK")
    total = 0
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue  # ended meanwhile: counted by the postmaster
        pid, ppid = int(stat.parent.name), int(fields[1])
        if pid == postmaster:
            total += sum(int(f) for f in fields[11:15])  # utime, stime, cutime, cstime
        elif ppid == postmaster:
            total += int(fields[11]) + int(fields[12])
    return total / tick


def _commits(server: PostgresServer) -> int:
    """Transactions committed on the server so far, over every database (the statistics the
    server keeps; they lag by up to a second, which a window of several seconds absorbs)."""
    with psycopg.connect(server.url(), autocommit=True) as db:
        db.execute("SELECT pg_stat_clear_snapshot()")
        row = db.execute("SELECT SUM(xact_commit) FROM pg_stat_database").fetchone()
    return int(str(row[0])) if row else 0


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _league(folder: Path, *, bots: int, hands: int, tables: int, store: str, port: int) -> Path:
    lines = ['name = "bench"', 'format = "round_robin"', f"hands_per_match = {hands}", "duplicate = true",
             f"tables_at_once = {tables}", "seed = 11", f'listen = "127.0.0.1:{port}"', f'store = "{store}"',
             'log_dir = "logs"', "start_timeout_seconds = 60", "[rules]", "decision_seconds = 5.0"]
    tokens = folder / "tokens"  # the store keeps no tokens: workers read them from files
    tokens.mkdir(mode=0o700, exist_ok=True)
    for k in range(bots):
        path = tokens / f"bot{k}"
        path.write_text(f"bench-token-{k:04d}\n")
        path.chmod(0o600)
        lines += ["[[bots]]", f'name = "bot{k}"', f'token_file = "{path}"']
    path = folder / "league.toml"
    path.write_text("\n".join(lines) + "\n")
    return path


def _python(*args: str, cwd: Path, out: int | None = subprocess.DEVNULL,
            log: Path | None = None) -> subprocess.Popen[bytes]:
    """``log``: where its standard error goes (a dealer's warnings, to tell why a run stalled)."""
    with open(log if log is not None else os.devnull, "ab") as err:
        return subprocess.Popen([sys.executable, *args], cwd=cwd, stdout=out, stderr=err,
                                env={**os.environ, "PYTHONPATH": str(ROOT)})


def _arena(*args: str, cwd: Path, out: int | None = subprocess.DEVNULL,
           log: Path | None = None) -> subprocess.Popen[bytes]:
    return _python("-m", "arena.cli", *args, cwd=cwd, out=out, log=log)


def _bots(count: int, ports: list[int], folder: Path) -> list[subprocess.Popen[bytes]]:
    return [_arena("bot", "call", "--server", f"127.0.0.1:{ports[k % len(ports)]}", "--token",
                   f"bench-token-{k:04d}", "--name", f"bot{k}", "--reconnect-seconds", "120", cwd=folder)
            for k in range(count)]


def _stats() -> dict[int, list[str]]:
    """/proc/<pid>/stat of every living process, the fields after the command's name."""
    found = {}
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            found[int(stat.parent.name)] = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue  # ended meanwhile
    return found


def _tree_cpu(pid: int, stats: dict[int, list[str]]) -> float:
    """CPU seconds of a process tree: the process (all its threads), its children that ended and
    were waited for (cutime, cstime), and every living descendant alike: an SQLite league's
    writer process, a worker's helpers. 0 when it has ended."""
    children: dict[int, list[int]] = {}
    for child, fields in stats.items():
        children.setdefault(int(fields[1]), []).append(child)
    ticks, todo = 0, [pid]
    while todo:
        at = todo.pop()
        fields = stats.get(at)
        if fields is None:
            continue
        ticks += sum(int(f) for f in fields[11:15])  # utime, stime, cutime, cstime
        todo += children.get(at, [])
    return ticks / os.sysconf("SC_CLK_TCK")


class _Counter:
    """Counts a league's completed hands on one connection (not opened as a store: no migration;
    a connection per count would fork a PostgreSQL backend each time)."""

    def __init__(self, store_at: str | Path) -> None:
        self.store_at = store_at
        self._db: sqlite3.Connection | psycopg.Connection[tuple[object, ...]] | None = None

    def __call__(self) -> int:
        query = "SELECT COUNT(*) FROM hands WHERE status = 'completed'"
        try:
            if self._db is None:
                self._db = sqlite3.connect(f"file:{self.store_at}?mode=ro", uri=True, timeout=1) \
                    if isinstance(self.store_at, Path) else psycopg.connect(self.store_at, autocommit=True)
            row = self._db.execute(query).fetchone()
        except (sqlite3.Error, psycopg.Error):
            self.close()
            return 0  # not created yet
        return int(str(row[0])) if row else 0

    def close(self) -> None:
        if self._db is not None:
            self._db.close()
            self._db = None


@dataclass
class Window:
    """The CPU of each group of processes and of the PostgreSQL server between the first hand
    committed and the last one (polled every 50 ms): the processes' start (imports, bots
    connecting: about 1 s of CPU a process) and the league's leaderboard after its last hand are
    left out, in every mode alike."""

    groups: dict[str, list[int]]  # name -> pids
    server: PostgresServer
    first: dict[str, float] | None = None
    last: dict[str, float] | None = None
    hands: int = 0  # hands committed in the window
    seconds: float = 0.0
    polls: int = 0  # the bench's own queries in the window (each a transaction on PostgreSQL)

    def sample(self) -> dict[str, float]:
        stats = _stats()
        cpu = {name: sum(_tree_cpu(pid, stats) for pid in pids) for name, pids in self.groups.items()}
        cpu["db"] = _server_cpu(self.server)
        cpu["commits"] = float(_commits(self.server))
        return cpu

    def watch(self, store_at: str | Path, expected: int, timeout_seconds: float) -> bool:
        """Wait for the first and the last hand; False when the league stalled."""
        deadline = time.monotonic() + timeout_seconds
        first_hands, first_at = 0, 0.0
        completed = _Counter(store_at)
        try:
            while time.monotonic() < deadline:
                done = completed()
                if self.first is None and done > 0:
                    self.first, first_hands, first_at = self.sample(), done, time.monotonic()
                elif self.first is not None:
                    self.polls += 1
                if done >= expected:
                    self.last = self.sample()
                    self.hands, self.seconds = done - first_hands, time.monotonic() - first_at
                    return True
                time.sleep(0.05)
        finally:
            completed.close()
        return False

    def commits(self) -> float:
        """Transactions the league's processes committed on the PostgreSQL server in the window
        (every database; the bench's own counting queries and samples left out)."""
        return max(0.0, self.cpu("commits") - self.polls - 1)

    def cpu(self, group: str) -> float:
        if self.first is None or self.last is None:
            return 0.0
        return self.last[group] - self.first[group]


def run_one_process(args: argparse.Namespace, server: PostgresServer, *, postgres: bool) -> Result:
    """`arena league run` (SQLite), or the same league in one process on PostgreSQL without the job
    queue (``python -m bench.scale --one-process``): the cost of the store alone."""
    folder = scratch_dir("arena-bench-scale-")
    port = _free_port()
    store: str | Path = server.new_database() if postgres else folder / "league.sqlite"
    league = _league(folder, bots=args.bots, hands=args.hands, tables=args.tables, store=str(store),
                     port=port)
    command = ("-m", "bench.scale", "--one-process", str(league)) if postgres else \
        ("-m", "arena.cli", "league", "run", str(league))
    dealer = _python(*command, cwd=folder, log=folder / "dealer.log")
    time.sleep(1.0)  # the server binds; bots retry until it does
    bots = _bots(args.bots, [port], folder)
    window = Window({"dealer": [dealer.pid], "bots": [b.pid for b in bots]}, server)
    try:
        complete = window.watch(store, _expected(args), STALL_SECONDS)
    finally:
        stop_processes([*bots, dealer], timeout_seconds=15)
    mode = "PostgreSQL, 1 process, no job queue" if postgres else "SQLite, 1 process"
    return Result(mode, window.hands, window.seconds, window.cpu("dealer"), window.cpu("bots"),
                  window.cpu("db"), db_commits=window.commits() if postgres else 0.0,
                  stalled=not complete, folder=str(folder))


def _expected(args: argparse.Namespace) -> int:
    """Hands of the league: a round robin, two copies of each match."""
    return int(args.bots * (args.bots - 1) * args.hands)


def one_process(league: str) -> int:
    """Play a league file in this process (its store may be PostgreSQL): `LeagueRun` as `arena
    league run` uses it for SQLite."""
    from arena.league.config import load_league
    from arena.league.runner import LeagueRun

    run = LeagueRun(load_league(league), out=open(os.devnull, "w"))  # noqa: SIM115
    try:
        return 0 if run.run() else 1
    finally:
        run.close()


def run_workers(args: argparse.Namespace, server: PostgresServer, workers: int) -> Result:
    folder = scratch_dir("arena-bench-scale-")
    url = server.new_database()
    league = _league(folder, bots=args.bots, hands=args.hands, tables=args.tables, store=url, port=0)
    coordinator = _arena("league", "run", str(league), "--no-worker", cwd=folder, out=subprocess.PIPE)
    assert coordinator.stdout is not None
    coordinator.stdout.readline()  # "... jobs queued": the queue is full before any worker starts
    ports = [_free_port() for _ in range(workers)]
    # Not --exit-when-done: a worker with no job left still relays its bots' seats to the others.
    procs = [_arena("worker", "--store", url, "--name", f"w{k + 1}", "--listen", f"127.0.0.1:{port}",
                    "--tables", str(args.tables), "--log-dir", str(folder / f"w{k + 1}"), cwd=folder,
                    log=folder / f"w{k + 1}.log")
             for k, port in enumerate(ports)]
    drain = threading.Thread(target=coordinator.stdout.read, daemon=True)  # its progress lines
    drain.start()
    time.sleep(1.0)
    bots = _bots(args.bots, ports, folder)
    window = Window({"dealer": [p.pid for p in procs], "bots": [b.pid for b in bots],
                     "coordinator": [coordinator.pid]}, server)
    try:
        complete = window.watch(url, _expected(args), STALL_SECONDS)
    finally:
        stop_processes([*bots, *procs, coordinator], timeout_seconds=15)
    return Result(f"PostgreSQL, {workers} worker{'s' if workers > 1 else ''}", window.hands, window.seconds,
                  window.cpu("dealer"), window.cpu("bots") + window.cpu("coordinator"), window.cpu("db"),
                  db_commits=window.commits(), stalled=not complete, folder=str(folder))


def paper_estimate(single: list[Result], cores: int) -> None:
    """Hands/s against workers on paper, from the 1-worker runs' medians: a worker machine of
    ``cores`` cores (its worker and its bots) gives ``cores / (its CPU per hand)`` hands/s; the
    database needs its CPU and commits per hand, so a database of ``cores`` cores saturates at
    ``cores / (its CPU per hand)`` hands/s: the league's hands/s is the smaller of N machines' and
    that limit."""
    if not single:
        print("paper estimate: no 1-worker round without a stall")
        return
    worker_ms = statistics.median(r.per_hand_ms(r.dealer_cpu_seconds + r.others_cpu_seconds) for r in single)
    db_ms = statistics.median(r.per_hand_ms(r.db_cpu_seconds) for r in single)
    commits = statistics.median(r.db_commits / max(r.hands, 1) for r in single)
    per_machine = cores * 1000 / worker_ms
    limit = cores * 1000 / db_ms if db_ms > 0 else math.inf
    print(f"\npaper estimate (medians of the 1-worker runs): a worker machine's CPU {worker_ms:.2f} ms/hand "
          f"(worker, coordinator, bots), PostgreSQL {db_ms:.2f} ms/hand and {commits:.2f} commits/hand; "
          f"machines of {cores} cores: {per_machine:,.0f} hands/s per worker machine, the database "
          f"saturates at {limit:,.0f} hands/s ({limit * commits:,.0f} commits/s)")
    print("| worker machines | hands/s | database CPU busy | commits/s |")
    print("|---|---|---|---|")
    for machines in (1, 2, 4, 8, 16, 32, 64):
        rate = min(machines * per_machine, limit)
        print(f"| {machines} | {rate:,.0f} | {rate * db_ms / 1000 / cores:.0%} | {rate * commits:,.0f} |")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--hands", type=int, default=40)
    parser.add_argument("--bots", type=int, default=6)
    parser.add_argument("--tables", type=int, default=8, help="tables at once per worker")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--no-fsync", action="store_true",
                        help="PostgreSQL without fsync: what the commits' flushes cost")
    parser.add_argument("--one-process", metavar="LEAGUE_TOML", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.one_process:
        return one_process(args.one_process)
    lite, pg, one, two = ("SQLite, 1 process", "PostgreSQL, 1 process, no job queue",
                          "PostgreSQL, 1 worker", "PostgreSQL, 2 workers")
    rounds: list[dict[str, Result]] = []
    with postgres_server(fsync=not args.no_fsync) as server:  # durable commits, as SQLite's synchronous=FULL
        for round_index in range(args.rounds):
            results: dict[str, Result] = {}
            for runner in (lambda: run_one_process(args, server, postgres=False),
                           lambda: run_one_process(args, server, postgres=True),
                           lambda: run_workers(args, server, 1), lambda: run_workers(args, server, 2)):
                result = runner()
                results[result.mode] = result
                print(f"round {round_index + 1} {result.mode}: {result.hands} hands in "
                      f"{result.seconds:.1f} s (load average {os.getloadavg()[0]:.1f})"
                      f"{' STALLED (the dealers: logs in ' + result.folder + ')' if result.stalled else ''}",
                      flush=True)
            rounds.append(results)
    print("\n| round | mode | hands | seconds | hands/s | dealer CPU ms/hand | bots and coordinator CPU "
          "ms/hand | PostgreSQL CPU ms/hand | all CPU ms/hand | cores busy | commits/hand |")
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    for k, results in enumerate(rounds):
        for r in results.values():
            print(f"| {k + 1} | {r.mode}{' (stalled)' if r.stalled else ''} | {r.hands} | {r.seconds:.1f} "
                  f"| {r.rate:,.1f} | {r.per_hand_ms(r.dealer_cpu_seconds):.2f} "
                  f"| {r.per_hand_ms(r.others_cpu_seconds):.2f} | {r.per_hand_ms(r.db_cpu_seconds):.2f} "
                  f"| {r.per_hand_ms(r.cpu_seconds):.2f} | {r.cpu_seconds / r.seconds:.2f} "
                  f"| {r.db_commits / max(r.hands, 1):.2f} |")
    cores = os.cpu_count() or 1

    def ratios(top: str, bottom: str, value: Callable[[Result, Result], float]) -> str:
        found = [value(r[top], r[bottom]) for r in rounds if not (r[top].stalled or r[bottom].stalled)]
        if not found:
            return "no round without a stall"
        return (f"{statistics.median(found):.2f} median of {len(found)} rounds "
                f"({', '.join(format(v, '.2f') for v in found)})")

    def rate(a: Result, b: Result) -> float:
        return a.rate / b.rate

    def per_hand(r: Result) -> float:
        return r.cpu_seconds / r.hands

    print(f"\n2 workers / 1 worker, hands/s: {ratios(two, one, rate)} (goal >= 1.7)")
    print(f"PostgreSQL 1 worker / SQLite, hands/s: {ratios(one, lite, rate)} (goal >= 0.90)")
    print(f"PostgreSQL / SQLite in one process (the store alone), hands/s: {ratios(pg, lite, rate)}")
    print("all CPU per hand (every process: workers, coordinator, PostgreSQL, bots), 2 workers / 1 "
          f"worker: {ratios(two, one, lambda a, b: per_hand(a) / per_hand(b))} (goal <= 1.05)")
    print("all CPU per hand, PostgreSQL 1 worker / SQLite 1 process: "
          f"{ratios(one, lite, lambda a, b: per_hand(a) / per_hand(b))} (goal <= 1.15)")
    print("all CPU per hand, PostgreSQL / SQLite in one process: "
          f"{ratios(pg, lite, lambda a, b: per_hand(a) / per_hand(b))}")
    paper_estimate([r[one] for r in rounds if not r[one].stalled], cores)
    print(f"the most 2 workers could reach with all {cores} cores busy, / 1 worker's hands/s: "
          f"{ratios(two, one, lambda a, b: cores / per_hand(a) / b.rate)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
