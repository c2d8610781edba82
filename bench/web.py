"""The web app's cost, both measured against a peer in the same run.

1. Live tables: the same league (16 tables at once, instant bots over gRPC, store and logs on,
   written by a child process as `arena league run` has it) with the web app off, then on with
   spectators following every table over SSE; hands/s and dealer CPU per hand, and the ratio
   on/off (target: at most 5% slower).
2. Replayer: a 2,000-hand match log opened cold (its match page, then its first hand with
   equity) through the app, beside merely parsing the file (target: under a second).

    python -m bench.web [--hands 30] [--rounds 2] [--spectators 2] [--log-hands 2000]
"""

from __future__ import annotations

import argparse
import resource
import subprocess
import sys
import time
from dataclasses import replace

from arena.engine.phh import dumps_hands
from arena.host.phhfile import load_file
from arena.league.runner import LeagueRun
from arena.match.simulate import simulate
from arena.practice import stop_processes
from bench.league import Clocks, _bots_on_ready, _config
from bench.scratch import scratch_dir

_READER = """
import sys, time, urllib.request
deadline = time.time() + 60
while time.time() < deadline:
    try:
        r = urllib.request.urlopen(sys.argv[1], timeout=60)
    except OSError:
        time.sleep(0.05)
        continue
    n = 0
    try:
        while chunk := r.read1(65536):
            n += len(chunk)
    except Exception:
        pass  # the league ended: its web server went away mid-stream
    print(n)
    break
"""


def _cpu_seconds() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def run_league(hands: int, tables: int, *, spectators: int) -> tuple[int, float, float, int]:
    """(hands, seconds, dealer CPU seconds, SSE bytes read) for one league run."""
    from arena.web.server import WebServer

    workdir = scratch_dir("arena-bench-web-")
    config = _config(workdir, hands=hands, tables_at_once=tables)
    config = replace(config, metrics_port=None)
    run = LeagueRun(config, out=open("/dev/null", "w"))  # noqa: SIM115
    procs: list[subprocess.Popen[bytes]] = []
    readers: list[subprocess.Popen[str]] = []
    clocks = Clocks()
    ready = _bots_on_ready(config, procs, clocks)
    web = WebServer(config, live=True) if spectators else None
    if web is not None:
        readers = [subprocess.Popen([sys.executable, "-c", _READER, web.url + "live/events"],
                                    stdout=subprocess.PIPE, text=True) for _ in range(spectators)]
    cpu = _cpu_seconds()
    try:
        run.run(on_ready=ready, spectator=web.spectator if web else None,
                background=web.serve if web else None)
        elapsed = clocks.stop().wall
        cpu = _cpu_seconds() - cpu
        played = sum(1 for _ in run.store.iter_results(1)) // 4
    finally:
        stop_processes(procs)
        run.close()
    read = 0
    for reader in readers:
        out, _ = reader.communicate(timeout=30)
        read += int(out.strip() or 0)
    return played, elapsed, cpu, read


def open_log(hands: int) -> tuple[float, float, float]:
    """(parse seconds, match page seconds, first hand seconds) for a ``hands``-hand log."""
    from starlette.testclient import TestClient

    from arena.league.config import league_from_mapping
    from arena.web.app import WebApp
    from arena.web.site import LeagueSite

    workdir = scratch_dir("arena-bench-web-log-")
    simulate(game="horse", players=2, hands=hands, seed=7, out_dir=str(workdir), policy="call")
    config = league_from_mapping({
        "name": "log", "hands_per_match": hands, "duplicate": False, "log_dir": "logs", "seed": 1,
        "bots": [{"name": "a", "token": "token-a-0001"}, {"name": "b", "token": "token-b-0001"}]},
        base_dir=workdir)
    site = LeagueSite(config)
    match_id = site.schedule()[0][0]
    fields = []
    for k, hand in enumerate(load_file(str(workdir / "hands.phhs"))):
        f = dict(hand.fields)
        f.update(players=["a", "b"], _match_id=match_id, _hand_id=f"{match_id}-h{k + 1}", _hand=k + 1)
        fields.append(f)
    config.log_dir.mkdir()
    path = config.log_dir / f"{match_id}.phhs"
    path.write_text(dumps_hands(fields), encoding="utf-8")
    (config.log_dir / f"{match_id}.result.json").write_text('{"results": []}', encoding="utf-8")
    started = time.perf_counter()
    load_file(str(path))
    parse = time.perf_counter() - started
    client = TestClient(WebApp(site).starlette())
    started = time.perf_counter()
    assert client.get(f"/match/{match_id}").status_code == 200
    page = time.perf_counter() - started
    started = time.perf_counter()
    assert client.get(f"/hand/{match_id}-h1").status_code == 200
    first = time.perf_counter() - started
    return parse, page, first


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--hands", type=int, default=30)
    parser.add_argument("--tables-at-once", type=int, default=16)
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--spectators", type=int, default=2)
    parser.add_argument("--log-hands", type=int, default=2000)
    args = parser.parse_args(argv)
    best: dict[str, tuple[float, float]] = {}
    print("| round | web | hands | seconds | hands/s | dealer CPU ms/hand | SSE bytes |")
    print("|---|---|---|---|---|---|---|")
    for round_index in range(args.rounds):
        for spectators in (0, args.spectators):
            hands, seconds, cpu, read = run_league(args.hands, args.tables_at_once, spectators=spectators)
            mode = f"on, {spectators} spectators" if spectators else "off"
            rate, cpu_ms = hands / seconds, 1000 * cpu / max(1, hands)
            print(f"| {round_index + 1} | {mode} | {hands} | {seconds:.1f} | {rate:,.1f} | {cpu_ms:.2f} | "
                  f"{read:,} |", flush=True)
            if rate > best.get(mode, (0.0, 0.0))[0]:
                best[mode] = (rate, cpu_ms)
    (off_rate, off_cpu), (on_rate, on_cpu) = best["off"], best[f"on, {args.spectators} spectators"]
    print(f"\nbest of {args.rounds}: web on / off = {on_rate / off_rate:.1%} hands/s, "
          f"{on_cpu / off_cpu:.1%} dealer CPU per hand (target: at least 95% hands/s)")
    parse, page, first = open_log(args.log_hands)
    print(f"\n{args.log_hands}-hand log: parse alone {parse:.2f} s; match page (cold) {page:.2f} s; "
          f"first hand with equity {first:.2f} s; page + hand = {page + first:.2f} s "
          f"({(page + first) / parse:.1f}x parsing; target: under 1 s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
