"""Leagues on many workers: the same league (instant `call` bots over gRPC) played by one SQLite
process, by one PostgreSQL worker and by two PostgreSQL workers, in one run.

    python -m bench.scale [--hands 40] [--bots 6] [--tables 8] [--rounds 1]

Bots connect to ONE worker each (the relay carries their other seats). Prints total hands/s, the
ratios (2 workers / 1 worker, PostgreSQL / SQLite at 1 worker) and the dealer's CPU per hand.
"""

from __future__ import annotations

import argparse
import os
import socket
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from arena.practice import stop_processes
from tests.pgserver import PostgresServer, postgres_server

ROOT = Path(__file__).resolve().parents[1]


@dataclass(frozen=True)
class Result:
    mode: str
    hands: int
    seconds: float
    dealer_cpu_seconds: float  # the SQLite process, or the workers (not the coordinator, not the bots)

    @property
    def rate(self) -> float:
        return self.hands / self.seconds


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


def _arena(*args: str, cwd: Path, out: int | None = subprocess.DEVNULL) -> subprocess.Popen[bytes]:
    return subprocess.Popen([sys.executable, "-m", "arena.cli", *args], cwd=cwd, stdout=out,
                            stderr=subprocess.DEVNULL, env={**os.environ, "PYTHONPATH": str(ROOT)})


def _bots(count: int, ports: list[int], folder: Path) -> list[subprocess.Popen[bytes]]:
    return [_arena("bot", "call", "--server", f"127.0.0.1:{ports[k % len(ports)]}", "--token",
                   f"bench-token-{k:04d}", "--name", f"bot{k}", "--reconnect-seconds", "120", cwd=folder)
            for k in range(count)]


def _reap(proc: subprocess.Popen[bytes]) -> float:
    """Wait for a process that is ending by itself; its CPU seconds."""
    _, _, usage = os.wait4(proc.pid, 0)
    proc.returncode = 0
    return float(usage.ru_utime + usage.ru_stime)


def _hands(url: str) -> int:
    import psycopg

    with psycopg.connect(url) as db:
        row = db.execute("SELECT COUNT(*) FROM hands WHERE status = 'completed'").fetchone()
    return int(row[0]) if row else 0


def run_sqlite(args: argparse.Namespace) -> Result:
    folder = Path(tempfile.mkdtemp(prefix="arena-bench-scale-"))
    port = _free_port()
    league = _league(folder, bots=args.bots, hands=args.hands, tables=args.tables, store="league.sqlite",
                     port=port)
    dealer = _arena("league", "run", str(league), cwd=folder)
    time.sleep(1.0)  # the server binds; bots retry until it does
    started = time.perf_counter()
    bots = _bots(args.bots, [port], folder)
    try:
        cpu = _reap(dealer)
        seconds = time.perf_counter() - started
    finally:
        stop_processes(bots, timeout_seconds=15)
    from arena.storage.store import open_store

    store = open_store(folder / "league.sqlite")
    hands = sum(len(store.completed_hands(m.match_id)) for m in store.list_matches(1))
    store.close()
    return Result("SQLite, 1 process", hands, seconds, cpu)


def run_workers(args: argparse.Namespace, server: PostgresServer, workers: int) -> Result:
    folder = Path(tempfile.mkdtemp(prefix="arena-bench-scale-"))
    url = server.new_database()
    league = _league(folder, bots=args.bots, hands=args.hands, tables=args.tables, store=url, port=0)
    coordinator = _arena("league", "run", str(league), "--no-worker", cwd=folder, out=subprocess.PIPE)
    assert coordinator.stdout is not None
    coordinator.stdout.readline()  # "... jobs queued": the queue is full before any worker starts
    ports = [_free_port() for _ in range(workers)]
    procs = [_arena("worker", "--store", url, "--name", f"w{k + 1}", "--listen", f"127.0.0.1:{port}",
                    "--tables", str(args.tables), "--log-dir", str(folder / f"w{k + 1}"),
                    "--exit-when-done", cwd=folder) for k, port in enumerate(ports)]
    time.sleep(1.0)
    started = time.perf_counter()
    bots = _bots(args.bots, ports, folder)
    try:
        cpu = sum(_reap(proc) for proc in procs)
        seconds = time.perf_counter() - started
        coordinator.wait(timeout=60)
    finally:
        stop_processes([*bots, coordinator], timeout_seconds=15)
    return Result(f"PostgreSQL, {workers} worker{'s' if workers > 1 else ''}", _hands(url), seconds, cpu)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--hands", type=int, default=40)
    parser.add_argument("--bots", type=int, default=6)
    parser.add_argument("--tables", type=int, default=8, help="tables at once per worker")
    parser.add_argument("--rounds", type=int, default=1)
    args = parser.parse_args(argv)
    results: list[Result] = []
    with postgres_server(fsync=True) as server:  # durable commits, as SQLite's synchronous=FULL
        for round_index in range(args.rounds):
            for runner in (lambda: run_sqlite(args), lambda: run_workers(args, server, 1),
                           lambda: run_workers(args, server, 2)):
                result = runner()
                results.append(result)
                print(f"round {round_index + 1} {result.mode}: {result.hands} hands in "
                      f"{result.seconds:.1f} s", flush=True)
    print("\n| mode | hands | seconds | hands/s | dealer CPU ms/hand |")
    print("|---|---|---|---|---|")
    best: dict[str, float] = {}
    for r in results:
        best[r.mode] = max(best.get(r.mode, 0.0), r.rate)
        print(f"| {r.mode} | {r.hands} | {r.seconds:.1f} | {r.rate:,.1f} | "
              f"{1000 * r.dealer_cpu_seconds / max(r.hands, 1):.2f} |")
    one, two, lite = best["PostgreSQL, 1 worker"], best["PostgreSQL, 2 workers"], best["SQLite, 1 process"]
    print(f"\n2 workers / 1 worker: {two / one:.2f}x (goal >= 1.7x); "
          f"PostgreSQL / SQLite at 1 worker: {one / lite:.0%} (goal: within 10%)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
