"""Honest tables under attack, and what the protections cost, as markdown tables.

    python -m bench.trust [--tables 4] [--seconds 4] [--rounds 3]

Part 1: a dealer (its own process) plays ``--tables`` heads-up tables of instant SDK bots (one
process); we measure their hands per second, the dealer's CPU per honest decision and its
resident memory in phases of ``--seconds``: each attacker of issue 7 runs alone in a phase
between two phases without an attacker, ``--rounds`` times over, and its ratio is the median
over the rounds of its hands/s against the mean of the two phases around it (this machine's
other load drifts; interleaving cancels most of it). The attackers:

- ``never-reads``: sends replies with 60 KB decision ids and never reads its stream;
- ``byte-flood``: 60 KB messages as fast as it can, reconnecting whenever it is cut;
- ``message-flood``: pings as fast as it can, reconnecting whenever it is cut;
- ``token-guessing``: 32 connections at a time with random tokens;
- ``garbage``: streams of bytes that are not a ``BotMessage``.

Part 2: ``bench.dealer``'s instant-bot load (decisions per second), once as shipped and once
with the rate guards switched off in the dealer process (every ``TokenBucket.take`` allowed,
no think-time clamp), alternating, in the same run.

The attackers run in this (the measuring) process at the lowest CPU priority, standing in for
an attacker on its own machine; the dealer and the honest bots keep normal priority.
"""

from __future__ import annotations

import argparse
import asyncio
import concurrent.futures
import contextlib
import json
import os
import secrets
import signal
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

import grpc

from bench.dealer import _read_json_line, _rss_kib, _token

ATTACKS = ("never-reads", "byte-flood", "message-flood", "token-guessing", "garbage")
PLAY = "/arena.v1.Dealer/Play"


# ============================================================================ part 1: the dealer

def _config(tables: int) -> dict[str, Any]:
    seats = [{"name": f"h{t}-{s}", "token": _token(f"h{t}-{s}")} for t in range(tables)
             for s in range(2)]
    seats += [{"name": n, "token": _token(n)} for n in ("attacker", "absent")]
    table_list: list[dict[str, Any]] = [{"id": f"honest-{t}", "seats": [f"h{t}-0", f"h{t}-1"]}
                                        for t in range(tables)]
    # The attacker's own table never deals (its partner never comes): it only holds the seat.
    table_list.append({"id": "attack", "seats": ["attacker", "absent"]})
    return {"listen": "127.0.0.1:0", "seed": 1, "hands": 10_000_000, "start_timeout_seconds": 3600,
            "seats": seats, "tables": table_list,
            "rules": {"decision_seconds": 2.0, "time_bank_seconds": 0.0}}


def role_dealer(config_path: str, unprotected: bool) -> int:
    """The dealer; ``unprotected``: every rate guard allows everything (for part 2)."""
    if unprotected:
        from arena.server import convert, guard

        guard.TokenBucket.take = lambda self, amount=1.0: True  # type: ignore[method-assign]
        convert.think_seconds = lambda reported, wire: reported or None  # type: ignore[assignment]
    from bench import dealer

    return dealer.role_dealer(config_path)


def role_honest(address: str, tables: int) -> int:
    """Instant calling stations at every honest seat; prints the decisions so far every 0.25 s."""
    from arena_bot import play
    from arena_bot.examples import calling_station

    async def main() -> None:
        count = [0, 0]  # decisions, hands (seen by both seats of a table)

        def watch(message: Any) -> None:
            kind = message.WhichOneof("payload")
            if kind == "decision_request":
                count[0] += 1
            elif kind == "event" and message.event.WhichOneof("payload") == "hand_ended":
                count[1] += 1

        tasks = [asyncio.ensure_future(play(calling_station, server=address,
                                            token=_token(f"h{t}-{s}"), name=f"h{t}-{s}",
                                            reconnect_seconds=0.0, on_message=watch))
                 for t in range(tables) for s in range(2)]
        while not all(t.done() for t in tasks):
            print(json.dumps({"decisions": count[0], "hands": count[1] / 2,
                              "at": time.monotonic()}), flush=True)
            await asyncio.sleep(0.1)

    asyncio.run(main())
    return 0


async def _attack(kind: str, address: str, seconds: float) -> dict[str, int]:
    """Run one attacker for ``seconds``; returns what it managed to do."""
    from arena.v1 import arena_pb2 as pb

    stop = time.monotonic() + seconds
    done = {"streams": 0, "messages": 0}
    hello = pb.BotMessage(hello=pb.Hello(bot_name="attacker")).SerializeToString()
    big = pb.BotMessage(hello=pb.Hello(bot_name="x" * 60_000)).SerializeToString()
    ping = pb.BotMessage(ping=pb.Ping(nonce=1)).SerializeToString()
    huge_id = pb.BotMessage(action_reply=pb.ActionReply(
        decision_id="d" * 60_000, seat=0, action=pb.Action(kind=pb.ACTION_KIND_CALL))
    ).SerializeToString()

    async def stream(token: str, frames: list[bytes], repeat: bytes | None,
                     read: bool = True, options: list[tuple[str, Any]] | None = None) -> None:
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(_stream(token, frames, repeat, read, options),
                                   max(0.05, stop - time.monotonic()))

    async def _stream(token: str, frames: list[bytes], repeat: bytes | None,
                      read: bool, options: list[tuple[str, Any]] | None) -> None:
        async with grpc.aio.insecure_channel(address, options=options or []) as channel:
            call = channel.stream_stream(PLAY, request_serializer=lambda b: b,
                                         response_deserializer=lambda b: b)(
                metadata=(("authorization", f"Bearer {token}"),))
            done["streams"] += 1
            reader = asyncio.ensure_future(_drain(call)) if read else None
            with contextlib.suppress(grpc.aio.AioRpcError, asyncio.InvalidStateError):
                for frame in frames:
                    await call.write(frame)
                    done["messages"] += 1
                while repeat is not None and time.monotonic() < stop:
                    await call.write(repeat)
                    done["messages"] += 1
            if reader is not None:
                with contextlib.suppress(Exception):
                    await asyncio.wait_for(reader, max(0.01, stop - time.monotonic()))
            call.cancel()

    attacker = _token("attacker")
    while time.monotonic() < stop:
        if kind == "never-reads":
            window = [("grpc.http2.lookahead_bytes", 1024), ("grpc.http2.bdp_probe", 0)]
            await stream(attacker, [hello], huge_id, read=False, options=window)
        elif kind == "byte-flood":
            await stream(attacker, [hello], big)
        elif kind == "message-flood":
            await stream(attacker, [hello], ping)
        elif kind == "token-guessing":
            await asyncio.gather(*(stream(secrets.token_hex(16), [hello], None)
                                   for _ in range(32)), return_exceptions=True)
        elif kind == "garbage":
            await stream(attacker, [b"\xff\xff\xff\xff\x0fnot a message"], None)
        await asyncio.sleep(0.01)
    return done


async def _drain(call: Any) -> None:
    with contextlib.suppress(grpc.aio.AioRpcError):
        async for _ in call:
            pass


def _honest_now(honest: Any) -> dict[str, float]:
    """The honest bots' latest counts (older lines still in the pipe are skipped)."""
    while True:
        line: dict[str, float] = _read_json_line(honest, "decisions")
        if line["at"] >= time.monotonic() - 0.15:
            return line


def _phase(kind: str, address: str, honest: Any, pid: int, seconds: float) -> dict[str, Any]:
    """One measured phase: the honest tables' hands and decisions per second over ``seconds``,
    the dealer's CPU over the same window (share of a core, and per honest decision) and its
    peak memory growth, while attacker ``kind`` runs (``none``: nobody attacks)."""
    settle = 0.5  # an attacker ramps up (and the previous one's streams end) before we measure
    stop = threading.Event()
    rss_before = _rss_kib(pid)
    peak = [rss_before]

    def sample() -> None:
        while not stop.wait(0.1):
            peak[0] = max(peak[0], _rss_kib(pid))

    sampler = threading.Thread(target=sample)
    sampler.start()
    with concurrent.futures.ThreadPoolExecutor(1) as pool:
        attack = (None if kind == "none" else
                  pool.submit(lambda: asyncio.run(_attack(kind, address, settle + seconds + 0.2))))
        time.sleep(settle)
        first, cpu_first = _honest_now(honest), _cpu_seconds(pid)
        last, cpu_last = first, cpu_first
        while last["at"] < first["at"] + seconds:
            last, cpu_last = _read_json_line(honest, "decisions"), _cpu_seconds(pid)
        done: dict[str, int] = attack.result() if attack is not None else {}
    stop.set()
    sampler.join()
    wall = last["at"] - first["at"]
    decisions = last["decisions"] - first["decisions"]
    return {"attack": kind, "hands_per_second": (last["hands"] - first["hands"]) / wall,
            "decisions_per_second": decisions / wall, "dealer_cpu": (cpu_last - cpu_first) / wall,
            "cpu_per_decision_us": 1e6 * (cpu_last - cpu_first) / max(1, decisions),
            "rss_growth_mib": (max(peak) - rss_before) / 1024, **done}


def run_attacks(tables: int, seconds: float, attacks: tuple[str, ...] = ATTACKS,
                rounds: int = 3) -> list[dict[str, Any]]:
    """Phases of ``seconds`` each: each attacker in turn with a phase of no attacker before
    and after it, ``rounds`` times over; returns every phase in order."""
    phases: list[dict[str, Any]] = []
    with tempfile.TemporaryDirectory(prefix="bench-trust-") as tmp:
        path = Path(tmp) / "config.json"
        path.write_text(json.dumps(_config(tables)))
        server = _spawn_trust("--role", "dealer", "--config", str(path))
        try:
            ready = _read_json_line(server, "port")
            address = f"127.0.0.1:{ready['port']}"
            honest = _spawn_trust("--role", "honest", "--address", address,
                                  "--tables", str(tables))
            # The attackers run in this process at the lowest priority: a real attacker's CPU
            # is on its own machine, and this machine has only two cores for everything.
            os.nice(19)
            _phase("none", address, honest, ready["pid"], 2.0)  # warm up
            for round_ in range(rounds):
                for kind in attacks:
                    for phase in ("none", kind):
                        print(f"bench.trust: round {round_ + 1}/{rounds}: {phase} ...",
                              file=sys.stderr, flush=True)
                        phases.append(_phase(phase, address, honest, ready["pid"], seconds))
            phases.append(_phase("none", address, honest, ready["pid"], seconds))
            honest.kill()
        finally:
            server.send_signal(signal.SIGTERM)
            with contextlib.suppress(Exception):
                server.communicate(timeout=30)
            server.kill()
    return phases


def summarize(phases: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Per attacker: each of its phases against the mean of the no-attacker phases just before
    and after it (slow drifts of a shared machine cancel out), as medians over the rounds."""
    rows: list[dict[str, Any]] = []
    kinds = list(dict.fromkeys(p["attack"] for p in phases))
    for kind in kinds:
        ratios: list[float] = []
        base_cpu: list[float] = []
        attacker_cpu: list[float] = []
        mine = [p for p in phases if p["attack"] == kind]
        for k, phase in enumerate(phases):
            if phase["attack"] != kind:
                continue
            around = [phases[j] for j in (k - 1, k + 1) if 0 <= j < len(phases)
                      and phases[j]["attack"] == "none"] if kind != "none" else [phase]
            ratios.append(phase["hands_per_second"]
                          / statistics.fmean(p["hands_per_second"] for p in around))
            base_cpu.append(statistics.fmean(p["cpu_per_decision_us"] for p in around))
            # The dealer's CPU beyond what the honest decisions cost at the neighbours' rate.
            attacker_cpu.append(phase["dealer_cpu"]
                                - phase["decisions_per_second"] * base_cpu[-1] / 1e6)
        rows.append({
            "attack": kind, "ratios": ratios, "median_ratio": statistics.median(ratios),
            "hands_per_second": statistics.median(p["hands_per_second"] for p in mine),
            "cpu_per_decision_us": statistics.median(p["cpu_per_decision_us"] for p in mine),
            "base_cpu_per_decision_us": statistics.median(base_cpu),
            "dealer_cpu": statistics.median(p["dealer_cpu"] for p in mine),
            "attacker_cpu": statistics.median(attacker_cpu),
            "hands_range": (min(p["hands_per_second"] for p in mine),
                            max(p["hands_per_second"] for p in mine)),
            "rss_growth_mib": max(p["rss_growth_mib"] for p in mine),
            "streams": statistics.median(p.get("streams", 0) for p in mine),
            "messages": statistics.median(p.get("messages", 0) for p in mine)})
    return rows


def _cpu_seconds(pid: int) -> float:
    """User + system CPU seconds of a process so far."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _spawn_trust(*args: str) -> Any:
    import subprocess

    from bench.dealer import ROOT, _env

    return subprocess.Popen([sys.executable, "-m", "bench.trust", *args], cwd=ROOT, env=_env(),
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


# ============================================================================ part 2: the cost

def run_cost(tables: int, hands: int, rounds: int) -> dict[str, list[dict[str, float]]]:
    """bench.dealer's instant-bot load with and without the guards, alternating."""
    from bench import dealer

    out: dict[str, list[dict[str, float]]] = {"protected": [], "unprotected": []}
    original = dealer._spawn

    def spawn(*args: str) -> Any:
        if "--role" in args and args[args.index("--role") + 1] == "dealer" and unprotected[0]:
            return _spawn_trust("--role", "dealer", "--unprotected", *args[2:])
        return original(*args)

    unprotected = [False]
    dealer._spawn = spawn  # type: ignore[assignment]
    try:
        for _ in range(rounds):
            for mode in ("protected", "unprotected"):
                unprotected[0] = mode == "unprotected"
                out[mode].append(dealer.run_dealer(tables, hands))
    finally:
        dealer._spawn = original  # type: ignore[assignment]
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--role", default=None)
    parser.add_argument("--config", default=None)
    parser.add_argument("--address", default=None)
    parser.add_argument("--unprotected", action="store_true")
    parser.add_argument("--tables", type=int, default=4)
    parser.add_argument("--seconds", type=float, default=4.0)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--json", default=None, help="also write every phase to this file")
    parser.add_argument("--cost-tables", type=int, default=16)
    parser.add_argument("--cost-hands", type=int, default=60)
    parser.add_argument("--cost-rounds", type=int, default=2)
    parser.add_argument("--skip-cost", action="store_true")
    parser.add_argument("--attacks", default=",".join(ATTACKS))
    args = parser.parse_args(argv)
    if args.role == "dealer":
        return role_dealer(args.config, args.unprotected)
    if args.role == "honest":
        return role_honest(args.address, args.tables)
    phases = run_attacks(args.tables, args.seconds, tuple(args.attacks.split(",")), args.rounds)
    if args.json:
        Path(args.json).write_text(json.dumps(phases, indent=1))
    print(f"### Honest tables under attack ({args.tables} heads-up tables of instant bots; "
          f"{args.rounds} rounds of {args.seconds:g} s phases, each attacker between two "
          "phases without one)\n")
    print("| attacker | honest hands/s vs no attacker: median (each round) | honest hands/s "
          "(median) | dealer CPU per honest decision (no attacker around it) | dealer CPU | "
          "of which on the attacker | dealer memory growth | attacker streams / messages "
          "per phase |")
    print("|---|---|---|---|---|---|---|---|")
    for row in summarize(phases):
        if row["attack"] == "none":
            low, high = row["hands_range"]
            ratio = f"100% (its phases: {low:,.0f} to {high:,.0f} hands/s)"
            attacker = "-"
        else:
            each = ", ".join(f"{r:.0%}" for r in row["ratios"])
            ratio = f"**{row['median_ratio']:.0%}** ({each})"
            attacker = f"{row['attacker_cpu']:+.0%}"
        print(f"| {row['attack']} | {ratio} | {row['hands_per_second']:,.0f} | "
              f"{row['cpu_per_decision_us']:,.0f} µs ({row['base_cpu_per_decision_us']:,.0f} µs) "
              f"| {row['dealer_cpu']:.0%} | {attacker} | {row['rss_growth_mib']:.1f} MiB | "
              f"{row['streams']:,.0f} / {row['messages']:,.0f} |")
    if not args.skip_cost:
        cost = run_cost(args.cost_tables, args.cost_hands, args.cost_rounds)
        print(f"\n### What the guards cost (bench.dealer load, {args.cost_tables} tables, "
              f"alternating, {args.cost_rounds} runs each)\n")
        print("| dealer | decisions/s (each run) | best | dealer CPU per decision (each run) | "
              "best |")
        print("|---|---|---|---|---|")
        best: dict[str, tuple[float, float]] = {}
        for mode, runs in cost.items():
            rates = [r["decisions_per_second"] for r in runs]
            cpus = [r["cpu_per_decision"] * 1e6 for r in runs]
            best[mode] = (max(rates), min(cpus))
            print(f"| {mode} | {', '.join(f'{v:,.0f}' for v in rates)} | {max(rates):,.0f} | "
                  f"{', '.join(f'{v:,.0f} µs' for v in cpus)} | {min(cpus):,.0f} µs |")
        print(f"\nprotected / unprotected: decisions/s {best['protected'][0] / best['unprotected'][0]:.1%}"
              f", CPU per decision {best['protected'][1] / best['unprotected'][1]:.1%}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
