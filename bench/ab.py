"""Two checkouts (or one with two environments) of the dealer or the engine, alternated.

    python -m bench.ab --a DIR[:VAR=VALUE,...] --b DIR[:VAR=VALUE,...] \
        [--scenario instant|headsup|league|pgworker|pgstore|sqlstore|engine|draw] [--pairs 5]

Each pair runs A then B (B then A on odd pairs), each in a fresh process started in its
checkout (its own ``bench.dealer`` / ``bench.engine`` and its own ``arena``), with that
variant's environment variables; the load of a shared machine drifts, and both sides see it.
Printed: each pair's figures and the median of the B/A ratios (instant and heads-up: the
dealer's CPU per decision, and hands/s for heads-up; league: ``bench.league``'s league with the
SQLite store and logs on, hands/s; pgworker: ``bench.scale``'s league of 6 bots on one
PostgreSQL worker (a cluster of its own, fsync on), hands/s and CPU per hand (all, the worker,
the PostgreSQL server); pgstore, sqlstore: ``bench.group_commit``, the store alone on PostgreSQL (a
worker's group commits) or SQLite (hands/s and the store's CPU per hand); engine: hands per CPU second of
fixed-limit hold'em, 6 players, calling bots; draw: the same for 2-7 triple draw or
``--game``, ``bench.new_games``'s bots standing pat and drawing). Used for docs/performance.md's
"Fast paths and the compiled build".
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys

CHILD = {
    "instant": "import bench.dealer as d; r = d.run_dealer({tables}, {hands})\n"
               "print(json.dumps({{'cpu_per_decision': r['cpu_per_decision']}}))",
    "headsup": "import bench.dealer as d; r = d.run_headsup({hands})\n"
               "print(json.dumps({{'cpu_per_decision': r['cpu_per_decision'], "
               "'hands_per_second': r['hands_per_second']}}))",
    "league": "import bench.league as L; from bench.scratch import scratch_dir\n"
              "config = L._config(scratch_dir('arena-bench-ab-'), hands={hands}, "
              "tables_at_once={tables})\n"
              "hands, used = L.run_with_store(config)\n"
              "print(json.dumps({{'hands_per_second': hands / used.wall, "
              "'dealer_thread_cpu_ms_per_hand': 1000 * used.thread_cpu / hands, "
              "'process_cpu_ms_per_hand': 1000 * used.process_cpu / hands}}))",
    "pgworker": "import argparse, bench.scale as s; from tests.pgserver import postgres_server\n"
                "with postgres_server(fsync=True) as server:\n"
                "    args = argparse.Namespace(bots=6, hands={hands}, tables={tables})\n"
                "    r = s.run_workers(args, server, 1)\n"
                "assert not r.stalled, open(r.folder + '/w1.log').read()[-3000:]\n"
                "print(json.dumps({{'hands_per_second': r.rate, "
                "'all_cpu_ms_per_hand': r.per_hand_ms(r.cpu_seconds), "
                "'worker_cpu_ms_per_hand': r.per_hand_ms(r.dealer_cpu_seconds), "
                "'db_cpu_ms_per_hand': r.per_hand_ms(r.db_cpu_seconds)}}))",
    # this checkout's bench/group_commit.py run on the other checkout's arena
    "pgstore": "import runpy\n"
               "print(json.dumps(runpy.run_path({here!r})['run']({hands})))",
    "sqlstore": "import runpy\n"
                "print(json.dumps(runpy.run_path({here!r})['run']({hands}, sqlite=True)))",
    "engine": "import bench.engine as e; from arena.engine.evaluate import fill_tables\n"
              "fill_tables(); e.our_hands_per_second('FT', 6, 'call', 0.3)\n"
              "print(json.dumps({{'hands_per_second': "
              "max(e.our_hands_per_second('FT', 6, 'call', {seconds}) for _ in range(3))}}))",
    "draw": "import bench.new_games as n; from arena.engine.evaluate import fill_tables\n"
            "fill_tables(); n.ours('{game}', 6, 'draw', 0.3)\n"
            "print(json.dumps({{policy + '_hands_per_second': "
            "max(n.ours('{game}', 6, policy, {seconds}) for _ in range(3)) "
            "for policy in ('call', 'draw')}}))",
}


def variant(text: str) -> tuple[str, dict[str, str]]:
    """``DIR`` or ``DIR:VAR=VALUE,VAR=VALUE`` (an empty value sets the variable empty)."""
    folder, _, assignments = text.partition(":")
    env = dict(item.split("=", 1) for item in assignments.split(",") if item)
    return folder, env


class RunFailed(RuntimeError):
    """A run ended in an error (a league that stalled): its pair is left out, saying why."""


def run(folder: str, env: dict[str, str], code: str) -> dict[str, float]:
    python = os.path.join(folder, ".venv", "bin", "python")
    python = python if os.path.exists(python) else sys.executable
    done = subprocess.run([python, "-c", "import json\n" + code], cwd=folder,
                          env={**os.environ, "PYTHONPATH": folder, **env},
                          capture_output=True, text=True, timeout=900)
    if done.returncode:
        raise RunFailed(f"{folder}: the run failed (exit {done.returncode}):\n{done.stderr[-4000:]}")
    data: dict[str, float] = json.loads(done.stdout.strip().splitlines()[-1])
    return data


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--a", required=True, type=variant)
    parser.add_argument("--b", required=True, type=variant)
    parser.add_argument("--scenario", choices=sorted(CHILD), default="instant")
    parser.add_argument("--pairs", type=int, default=5)
    parser.add_argument("--tables", type=int, default=8)
    parser.add_argument("--hands", type=int, default=30)
    parser.add_argument("--seconds", type=float, default=1.0)
    parser.add_argument("--game", default="F2L3D", help="draw: the game (bench.new_games)")
    args = parser.parse_args(argv)
    here = os.path.join(os.path.dirname(os.path.abspath(__file__)), "group_commit.py")
    code = CHILD[args.scenario].format(tables=args.tables, hands=args.hands, here=here,
                                       seconds=args.seconds, game=args.game)
    ratios: dict[str, list[float]] = {}
    for pair in range(args.pairs):
        order = ((0, args.a), (1, args.b)) if pair % 2 == 0 else ((1, args.b), (0, args.a))
        got: list[dict[str, float]] = [{}, {}]
        try:
            for index, (folder, env) in order:
                got[index] = run(folder, env, code)
        except RunFailed as exc:
            print(f"pair {pair + 1}: left out: {exc}", flush=True)
            continue
        for key in got[0]:
            ratios.setdefault(key, []).append(got[1][key] / got[0][key])
        print(f"pair {pair + 1}: " + "; ".join(
            f"{key} A {got[0][key]:.6g} B {got[1][key]:.6g} B/A {got[1][key] / got[0][key]:.3f}"
            for key in got[0]), flush=True)
    for key, values in ratios.items():
        print(f"{args.scenario} {key}: median B/A {statistics.median(values):.3f} "
              f"over {len(values)} pairs ({', '.join(f'{v:.3f}' for v in values)})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
