"""League throughput: instant bots over gRPC, 16 tables at once, with the SQLite store and hand
logs on, and the same schedule with them off, in one run.

    python -m bench.league [--hands 30] [--tables-at-once 16] [--rounds 2]
"""

from __future__ import annotations

import argparse
import asyncio
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from arena.league.config import LeagueBot, LeagueConfig
from arena.league.runner import LeagueRun
from arena.server.app import serve
from arena.server.config import BotEntry, ServerConfig

BOT_COUNT = 8


def _config(workdir: Path, *, hands: int, tables_at_once: int) -> LeagueConfig:
    return LeagueConfig(
        name="bench", bots=tuple(LeagueBot(f"bot{k}", f"bench-token-{k:04d}") for k in range(BOT_COUNT)),
        format="multiway", seats_per_table=4, tables=tables_at_once // 4, duplicate=True,
        hands_per_match=hands, tables_at_once=tables_at_once, seed=3, listen="127.0.0.1:0",
        store=workdir / "league.sqlite", log_dir=workdir / "logs", start_timeout_seconds=30)


def _start_bots(address: str, config: LeagueConfig) -> list[subprocess.Popen[bytes]]:
    return [subprocess.Popen([sys.executable, "-m", "arena.cli", "bot", "call", "--server", address,
                              "--token", bot.token, "--name", bot.name],
                             stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            for bot in config.bots]


def _stop(procs: list[subprocess.Popen[bytes]]) -> None:
    for proc in procs:
        proc.terminate()
    for proc in procs:
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()


def _bots_on_ready(config: LeagueConfig, procs: list[subprocess.Popen[bytes]],
                   started: list[float]) -> Callable[[int], None]:
    """When the server listens: start the bots and the clock."""

    def ready(port: int) -> None:
        procs.extend(_start_bots(f"127.0.0.1:{port}", config))
        started.append(time.perf_counter())

    return ready


def run_with_store(config: LeagueConfig) -> tuple[int, float]:
    run = LeagueRun(config, out=open("/dev/null", "w"))  # noqa: SIM115
    procs: list[subprocess.Popen[bytes]] = []
    started: list[float] = []
    ready = _bots_on_ready(config, procs, started)

    try:
        run.run(on_ready=ready)
        elapsed = time.perf_counter() - started[0]
        hands = sum(1 for _ in run.store.iter_results(1)) // 4
    finally:
        _stop(procs)
        run.close()
    return hands, elapsed


def run_without_store(config: LeagueConfig) -> tuple[int, float]:
    run = LeagueRun(config, out=open("/dev/null", "w"))  # noqa: SIM115
    try:
        specs = run.prepare().specs
    finally:
        run.close()
    server_config = ServerConfig(listen=config.listen,
                                 bots=tuple(BotEntry(b.name, b.name, b.token) for b in config.bots),
                                 matches=tuple(specs))
    procs: list[subprocess.Popen[bytes]] = []
    started: list[float] = []
    ready = _bots_on_ready(config, procs, started)

    try:
        result = asyncio.run(serve(server_config, on_ready=ready, sink_factory=lambda spec: None,
                                   max_tables_at_once=config.tables_at_once))
    finally:
        _stop(procs)
    return sum(s.hands_played for s in result.summaries), time.perf_counter() - started[0]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--hands", type=int, default=30)
    parser.add_argument("--tables-at-once", type=int, default=16)
    parser.add_argument("--rounds", type=int, default=2)
    args = parser.parse_args(argv)
    rows = []
    for round_index in range(args.rounds):
        for mode in ("store and logs on", "store and logs off"):
            workdir = Path(tempfile.mkdtemp(prefix="arena-bench-league-"))
            config = _config(workdir, hands=args.hands, tables_at_once=args.tables_at_once)
            runner = run_with_store if mode.endswith("on") else run_without_store
            hands, seconds = runner(config)
            rows.append((round_index, mode, hands, seconds))
            print(f"round {round_index + 1} {mode}: {hands} hands in {seconds:.1f} s", flush=True)
    print("\n| mode | hands | seconds | hands/s total | hands/s per table |")
    print("|---|---|---|---|---|")
    best: dict[str, float] = {}
    for _, mode, hands, seconds in rows:
        rate = hands / seconds
        best[mode] = max(best.get(mode, 0.0), rate)
        print(f"| {mode} | {hands} | {seconds:.1f} | {rate:,.1f} | {rate / args.tables_at_once:,.1f} |")
    on, off = best["store and logs on"], best["store and logs off"]
    print(f"\nbest of {args.rounds}: on {on:,.1f} hands/s, off {off:,.1f} hands/s: "
          f"on/off = {on / off:.0%} (target: within 10%)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
