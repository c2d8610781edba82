"""Hosted bots' costs, in one run: starting a sandboxed instance against starting the same
command unsandboxed, and the dealer's CPU per decision over a Unix socket against loopback TCP.

    python -m bench.sandbox [--starts 20] [--hands 300] [--rounds 3]

1. ``starts``: ``--starts`` sandboxes (`arena.host.sandbox.prepare`, bubblewrap with its
   namespaces, prlimit and, where writable, cgroups) each running ``true`` and then a Python
   bot's start (``python3 -c "import arena_bot"``: grpc imported), against the same commands
   as plain child processes: wall ms and CPU ms (this process's children: bwrap, the command)
   per start, medians.
2. ``transport``: one heads-up fixed-limit hold'em match of two calling-station SDK bot
   processes (not sandboxed: the transport alone differs), once over the dealer's Unix socket
   and once over loopback TCP, alternating ``--rounds`` times: the dealer process's CPU per
   decision, median per transport and their ratio.
3. ``hog``: the heads-up match of 2. over TCP alone, then beside one sandboxed CPU hog
   (``while True: pass``) with ``cpu_share`` 0.5 and beside the same hog with ``cpu_share`` 8
   (no cap in effect): the match's hands/s with each hog over its hands/s alone.
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
from arena.host.sandbox import PYTHON_SDK, Instance, Prepared, kill, prepare
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


async def _timed_match(hands: int, *, unix: bool, run_dir: Path) -> tuple[float, float]:
    """The dealer's CPU per decision (us) and the match's hands per second."""
    names = ("a", "b")
    tokens = {n: secrets.token_hex(16) for n in names}
    spec = MatchSpec("bench", tuple(SeatSpec(n, n) for n in names), Rules.from_mapping(
        {"games": ["FT"]}, where="bench"), hands, 7, start_timeout_seconds=30,
        absent=AbsentPolicy.FORFEIT)
    socket_path = run_dir / "dealer.sock"
    socket_path.unlink(missing_ok=True)
    config = ServerConfig(listen="127.0.0.1:0", bots=tuple(BotEntry(n, n, tokens[n]) for n in names),
                          matches=(spec,), unix_socket=socket_path)
    ready: asyncio.Future[int] = asyncio.get_running_loop().create_future()
    task = asyncio.ensure_future(serve(config, on_ready=ready.set_result, handle_signals=False))
    port = await ready
    address = f"unix:{socket_path}" if unix else f"127.0.0.1:{port}"
    env = {**os.environ, "PYTHONPATH": str(PYTHON_SDK)}
    bots = [await asyncio.create_subprocess_exec(
        sys.executable, "-m", "arena_bot", "call", "--server", address, "--token", tokens[n],
        env=env, stdout=asyncio.subprocess.DEVNULL, stderr=asyncio.subprocess.DEVNULL)
        for n in names]
    result = await task
    for bot in bots:
        await bot.wait()
    decisions = sum(s.stats.answered for s in result.summaries)
    return result.cpu_seconds / max(decisions, 1) * 1e6, hands / result.wall_seconds


def transport(hands: int, rounds: int) -> None:
    figures: dict[bool, list[float]] = {True: [], False: []}
    with tempfile.TemporaryDirectory(prefix="arena-bench-") as directory:
        for _ in range(rounds):
            for unix in (True, False):
                figures[unix].append(asyncio.run(_match(hands, unix=unix, run_dir=Path(directory))))
    unix_us, tcp_us = statistics.median(figures[True]), statistics.median(figures[False])
    print(f"dealer CPU per decision ({hands} hands heads-up, median of {rounds}): "
          f"unix socket {unix_us:.1f} us, loopback TCP {tcp_us:.1f} us, unix/TCP {unix_us / tcp_us:.3f}")


def hog(hands: int) -> None:
    with tempfile.TemporaryDirectory(prefix="arena-bench-") as directory:
        run_dir = Path(directory)
        alone = asyncio.run(_timed_match(hands, unix=False, run_dir=run_dir))[1]
        rates: dict[float, float] = {}
        for share in (0.5, 8.0):
            package = BotPackage(directory=run_dir, name="hog", run="true", cpu_share=share)
            sandbox = prepare(Instance(package=package, command="python3 -c 'while True: pass'"))
            proc = subprocess.Popen(sandbox.argv, env=sandbox.env, start_new_session=True)
            try:
                rates[share] = asyncio.run(_timed_match(hands, unix=False, run_dir=run_dir))[1]
            finally:
                kill(proc)
                sandbox.release()
        print(f"honest match beside a CPU hog ({hands} hands): alone {alone:.0f} hands/s; hog "
              f"cpu_share 0.5: {rates[0.5]:.0f} hands/s ({rates[0.5] / alone:.2f} of alone); "
              f"hog cpu_share 8: {rates[8.0]:.0f} hands/s ({rates[8.0] / alone:.2f})")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--starts", type=int, default=20)
    parser.add_argument("--hands", type=int, default=300)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    starts(args.starts)
    transport(args.hands, args.rounds)
    hog(args.hands)


if __name__ == "__main__":
    main()
