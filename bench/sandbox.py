"""Hosted bots' costs, in one run: starting a sandboxed instance against starting the same
command unsandboxed, and the dealer's CPU per decision over a Unix socket against loopback TCP.

    python -m bench.sandbox [--starts 20] [--hands 300] [--rounds 3] [--only starts|transport|hog]

1. ``starts``: ``--starts`` sandboxes (`arena.host.sandbox.prepare`, bubblewrap with its
   namespaces, prlimit and, where writable, cgroups) each running ``true`` and then a Python
   bot's start (``python3 -c "import arena_bot"``: grpc imported), against the same commands
   as plain child processes: wall ms and CPU ms (this process's children: bwrap, the command)
   per start, medians.
2. ``transport``: one heads-up fixed-limit hold'em match of two calling-station SDK bot
   processes (not sandboxed: the transport alone differs), once over the dealer's Unix socket
   and once over loopback TCP, alternating ``--rounds`` times: the dealer process's CPU per
   decision, median per transport and their ratio.
3. ``hog``: ``--tables`` heads-up matches at once whose bots are sandboxed instances (calling
   stations of the Python SDK over the dealer's Unix socket, as a league's hosted bots), alone
   and beside ``--hogs`` sandboxed CPU hogs (``while True: pass``) of each ``--hog-shares``
   ``cpu_share``, alternated (which goes first alternates too) ``--hog-rounds`` times: the
   tables' hands/s beside the hog over alone, per round and the median, and the CPU the hog
   got (its cgroup's). The machine's load is printed first: compare only figures of one run.

    python -m bench.sandbox --only hog [--tables 2] [--hog-rounds 5] [--hog-shares 1,0.5] [--hogs 1]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import secrets
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from arena.engine.rules import Rules
from arena.host.botpackage import BotPackage
from arena.host.sandbox import PYTHON_SDK, TOKEN_ENV, Instance, Prepared, kill, prepare
from arena.match.spec import AbsentPolicy, MatchSpec, SeatSpec
from arena.server.app import serve
from arena.server.config import BotEntry, ServerConfig


def _children_cpu() -> float:
    times = os.times()
    return times.children_user + times.children_system


def _timed(argv: list[str], env: dict[str, str], sandbox: Prepared | None = None
           ) -> tuple[float, float]:
    """Wall and CPU ms of one run: CPU from the sandbox's cgroup when it has one (bwrap's
    PID namespace is not reaped into this process's children's times), else the children's."""
    cpu, wall = _children_cpu(), time.perf_counter()
    subprocess.run(argv, env=env, check=True, stdout=subprocess.DEVNULL)
    wall_ms = (time.perf_counter() - wall) * 1000
    accounted = sandbox.cpu_seconds() if sandbox is not None else None
    own = _children_cpu() - cpu
    return wall_ms, ((accounted or 0.0) + own) * 1000


def starts(count: int) -> None:
    with tempfile.TemporaryDirectory() as directory:
        package = BotPackage(directory=Path(directory), name="bench", run="true")
        plain_env = {**os.environ, "PYTHONPATH": str(PYTHON_SDK)}
        for label, command in (("true", "true"),
                               ("python bot start", "python3 -c 'import arena_bot'")):
            sandboxed: list[tuple[float, float]] = []
            plain: list[tuple[float, float]] = []
            for _ in range(count):
                sandbox = prepare(Instance(package=package, command=command))
                try:
                    sandboxed.append(_timed(sandbox.argv, sandbox.env, sandbox))
                finally:
                    sandbox.release()
                plain.append(_timed(["/bin/sh", "-c", command.replace("python3", sys.executable)],
                                    plain_env))
            s_wall, s_cpu = (statistics.median(x[k] for x in sandboxed) for k in (0, 1))
            p_wall, p_cpu = (statistics.median(x[k] for x in plain) for k in (0, 1))
            cgroups = "cgroup CPU" if sandbox.group is not None else "no cgroups: CPU not seen"
            print(f"start {label:<17} sandboxed ({cgroups}): {s_wall:7.1f} ms wall {s_cpu:7.1f} ms "
                  f"CPU | plain: {p_wall:7.1f} ms wall {p_cpu:7.1f} ms CPU | extra per instance: "
                  f"{s_wall - p_wall:+.1f} ms wall {s_cpu - p_cpu:+.1f} ms CPU")


async def _match(hands: int, *, unix: bool, run_dir: Path) -> float:
    """The dealer's CPU per decision (us) of one match."""
    cpu_us, _ = await _timed_match(hands, unix=unix, run_dir=run_dir)
    return cpu_us


async def _timed_match(hands: int, *, unix: bool, run_dir: Path, tables: int = 1,
                       sandboxed: Path | None = None) -> tuple[float, float]:
    """The dealer's CPU per decision (us) and the hands per second of ``tables`` heads-up
    matches dealt at once; ``sandboxed``: a package directory, each bot then a sandboxed
    instance of it reaching the dealer through its socket (as a league's hosted bots do)."""
    names = [f"{seat}{table}" for table in range(tables) for seat in "ab"]
    tokens = {n: secrets.token_hex(16) for n in names}
    specs = tuple(MatchSpec(f"bench{t}", tuple(SeatSpec(n, n) for n in names[2 * t:2 * t + 2]),
                            Rules.from_mapping({"games": ["FT"]}, where="bench"), hands, 7 + t,
                            start_timeout_seconds=30, absent=AbsentPolicy.FORFEIT)
                  for t in range(tables))
    socket_path = run_dir / "dealer.sock"
    socket_path.unlink(missing_ok=True)
    config = ServerConfig(listen="127.0.0.1:0", bots=tuple(BotEntry(n, n, tokens[n]) for n in names),
                          matches=specs, unix_socket=socket_path)
    ready: asyncio.Future[int] = asyncio.get_running_loop().create_future()
    task = asyncio.ensure_future(serve(config, on_ready=ready.set_result, handle_signals=False))
    port = await ready
    address = f"unix:{socket_path}" if unix else f"127.0.0.1:{port}"
    env = {**os.environ, "PYTHONPATH": str(PYTHON_SDK)}
    bots: list[subprocess.Popen[bytes]] = []
    sandboxes: list[Prepared] = []
    try:
        for name in names:
            if sandboxed is None:
                bots.append(subprocess.Popen(
                    [sys.executable, "-m", "arena_bot", "call", "--server", address, "--token",
                     tokens[name]], env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL))
                continue
            package = BotPackage(directory=sandboxed, name="honest", run="true")
            sandboxes.append(prepare(Instance(
                package=package, command="python3 -m arena_bot call", socket=socket_path,
                env={TOKEN_ENV: tokens[name]})))
            bots.append(subprocess.Popen(sandboxes[-1].argv, env=sandboxes[-1].env,
                                         stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                                         start_new_session=True))
        result = await task
    finally:
        for bot in bots:
            kill(bot)
        for sandbox in sandboxes:
            sandbox.release()
    decisions = sum(s.stats.answered for s in result.summaries)
    return result.cpu_seconds / max(decisions, 1) * 1e6, tables * hands / result.wall_seconds


def transport(hands: int, rounds: int) -> None:
    figures: dict[bool, list[float]] = {True: [], False: []}
    with tempfile.TemporaryDirectory(prefix="arena-bench-") as directory:
        for _ in range(rounds):
            for unix in (True, False):
                figures[unix].append(asyncio.run(_match(hands, unix=unix, run_dir=Path(directory))))
    unix_us, tcp_us = statistics.median(figures[True]), statistics.median(figures[False])
    print(f"dealer CPU per decision ({hands} hands heads-up, median of {rounds}): "
          f"unix socket {unix_us:.1f} us, loopback TCP {tcp_us:.1f} us, unix/TCP {unix_us / tcp_us:.3f}")


def tables(hands: int, rounds: int, count: int, share: float, hogs: int = 1) -> None:
    """Honest hosted tables alone and beside ``hogs`` sandboxed CPU hogs of ``cpu_share``
    ``share``, alternated (which goes first alternates too), ``rounds`` times: the median of the
    rounds' ratios."""
    with tempfile.TemporaryDirectory(prefix="arena-bench-") as directory:
        run_dir = Path(directory)
        package_dir = run_dir / "package"
        package_dir.mkdir()
        ratios: list[float] = []
        alone_rates: list[float] = []
        hog_cpu: list[float] = []

        def honest() -> float:
            return asyncio.run(_timed_match(hands, unix=True, run_dir=run_dir, tables=count,
                                            sandboxed=package_dir))[1]

        for round_ in range(rounds):
            rates: dict[bool, float] = {}
            for with_hog in ((False, True) if round_ % 2 == 0 else (True, False)):
                if not with_hog:
                    rates[False] = honest()
                    continue
                package = BotPackage(directory=package_dir, name="hog", run="true", cpu_share=share)
                sandboxes = [prepare(Instance(package=package,
                                              command="python3 -c 'while True: pass'"))
                             for _ in range(hogs)]
                procs = [subprocess.Popen(s.argv, env=s.env, start_new_session=True)
                         for s in sandboxes]
                try:
                    started = time.perf_counter()
                    used = sum(s.cpu_seconds() or 0.0 for s in sandboxes)
                    rates[True] = honest()
                    wall = time.perf_counter() - started
                    hog_cpu.append((sum(s.cpu_seconds() or 0.0 for s in sandboxes) - used) / wall)
                finally:
                    for proc in procs:
                        kill(proc)
                    for sandbox in sandboxes:
                        sandbox.release()
            ratios.append(rates[True] / rates[False])
            alone_rates.append(rates[False])
            print(f"  round {round_ + 1}: alone {rates[False]:.0f} hands/s, beside the hog(s) "
                  f"{rates[True]:.0f} ({ratios[-1]:.2f}), hogs used {hog_cpu[-1]:.2f} cores",
                  flush=True)
    print(f"{count} honest hosted table(s) ({hands} hands each) beside {hogs} sandboxed CPU "
          f"hog(s) of cpu_share {share:g}: median alone {statistics.median(alone_rates):.0f} "
          f"hands/s, median ratio {statistics.median(ratios):.2f} over {rounds} rounds "
          f"(min {min(ratios):.2f}, max {max(ratios):.2f}); hogs' median CPU "
          f"{statistics.median(hog_cpu):.2f} cores", flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--starts", type=int, default=20)
    parser.add_argument("--hands", type=int, default=300)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--tables", type=int, default=2, help="honest tables beside the hog")
    parser.add_argument("--hog-rounds", type=int, default=5)
    parser.add_argument("--hog-shares", default="1,0.5",
                        help="the hog's cpu_share, one measurement each (comma-separated)")
    parser.add_argument("--hogs", type=int, default=1, help="hog instances at once")
    parser.add_argument("--only", choices=("starts", "transport", "hog"), default=None)
    args = parser.parse_args()
    if args.only in (None, "starts"):
        starts(args.starts)
    if args.only in (None, "transport"):
        transport(args.hands, args.rounds)
    if args.only in (None, "hog"):
        print(f"load: {os.getloadavg()[0]:.2f} (1 min) on {os.cpu_count()} cores", flush=True)
        for share in (float(x) for x in args.hog_shares.split(",")):
            tables(args.hands, args.hog_rounds, args.tables, share, args.hogs)


if __name__ == "__main__":
    main()
