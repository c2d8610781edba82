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


def _process_cpu(pid: int) -> float:
    """CPU seconds of a living process (all its threads), 0 when it has ended."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


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

    def sample(self) -> dict[str, float]:
        cpu = {name: sum(_process_cpu(pid) for pid in pids) for name, pids in self.groups.items()}
        cpu["db"] = _server_cpu(self.server)
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
                if done >= expected:
                    self.last = self.sample()
                    self.hands, self.seconds = done - first_hands, time.monotonic() - first_at
                    return True
                time.sleep(0.05)
        finally:
            completed.close()
        return False

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
                  window.cpu("db"), stalled=not complete, folder=str(folder))


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
                  stalled=not complete, folder=str(folder))


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
          "ms/hand | PostgreSQL CPU ms/hand | all CPU ms/hand | cores busy |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for k, results in enumerate(rounds):
        for r in results.values():
            print(f"| {k + 1} | {r.mode}{' (stalled)' if r.stalled else ''} | {r.hands} | {r.seconds:.1f} "
                  f"| {r.rate:,.1f} | {r.per_hand_ms(r.dealer_cpu_seconds):.2f} "
                  f"| {r.per_hand_ms(r.others_cpu_seconds):.2f} | {r.per_hand_ms(r.db_cpu_seconds):.2f} "
                  f"| {r.per_hand_ms(r.cpu_seconds):.2f} | {r.cpu_seconds / r.seconds:.2f} |")
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
    print("all CPU per hand, 2 workers / 1 worker: "
          f"{ratios(two, one, lambda a, b: per_hand(a) / per_hand(b))}")
    print(f"the most 2 workers could reach with all {cores} cores busy, / 1 worker's hands/s: "
          f"{ratios(two, one, lambda a, b: cores / per_hand(a) / b.rate)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
