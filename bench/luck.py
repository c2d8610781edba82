"""Luck adjustment: variance of raw, duplicate, luck-adjusted and duplicate + luck-adjusted
results of the example bots, and the cost of the adjustment against playing the hands.

    python -m bench.luck variance [--deals 300] [--seats 2 6] [--games FT FO/8 FR F7S F7S/8]
    python -m bench.luck cost [--hands 2000]
    python -m bench.luck strategies [--deals 400] [--games FT NT]   (bench/luck_strategies.py)
    python -m bench.luck games [--hands 30] [--seats 2 6]   (bench/luck_games.py: cost per game)

``variance`` plays the SDK's example bots in-process (`bench.selfplay`), every deal once per
rotation of the seats, and reports the first rules bot's standard deviation per hand (for the
duplicate columns: of the deal means, scaled to one hand) and the hands a ±50 mbb/hand 95%
interval needs. ``cost`` plays a heads-up duplicate match of two instant (never-fold) bots over
gRPC through the league runner, then computes the luck of every hand from the store, and
reports both times in the same run.
"""

from __future__ import annotations

import argparse
import math
import resource
import statistics
import subprocess
import sys
import time

from arena.engine.luck import LuckSettings, hand_luck
from bench import luck_games, luck_strategies
from bench.scratch import scratch_dir
from bench.selfplay import iter_duplicate

HORSE = ("FT", "FO/8", "FR", "F7S", "F7S/8")
Z = 1.959963984540054
TARGET_MBB = 50.0


def _hands_for(sd: float) -> int:
    return math.ceil((Z * sd / TARGET_MBB) ** 2)


def variance(kinds: list[str], deals: int, seed: int, settings: LuckSettings,
             games: tuple[str, ...] = HORSE) -> dict[str, float]:
    hero = f"{kinds[0]}0"
    raw: list[float] = []
    adjusted: list[float] = []
    deal_raw: dict[int, list[float]] = {}
    deal_adj: dict[int, list[float]] = {}
    play_seconds = luck_seconds = 0.0
    started = time.process_time()
    for played in iter_duplicate(kinds, games=games, deals=deals, seed=seed):
        play_seconds += time.process_time() - started
        state = played.state
        assert state.result is not None
        seat = played.bots.index(hero)
        small_bet = state.stakes.small_bet
        started = time.process_time()
        luck = hand_luck(state.variant, state.events, state.seat_count, hand_seed=played.hand_seed,
                         settings=settings, small_bet_chips=small_bet,
                         big_bet_chips=state.stakes.big_bet, rules=state.rules).luck_chips[seat]
        luck_seconds += time.process_time() - started
        net = state.result.net_chips[seat]
        raw.append(1000 * net / small_bet)
        adjusted.append(1000 * (net - luck) / small_bet)
        deal_raw.setdefault(played.deal, []).append(raw[-1])
        deal_adj.setdefault(played.deal, []).append(adjusted[-1])
        started = time.process_time()
    copies = len(kinds)

    def dup_sd(groups: dict[int, list[float]]) -> float:
        return statistics.stdev([statistics.fmean(v) for v in groups.values()]) * math.sqrt(copies)

    return {"hands": len(raw), "mean_raw": statistics.fmean(raw), "mean_luck": statistics.fmean(adjusted),
            "raw": statistics.stdev(raw), "dup": dup_sd(deal_raw), "luck": statistics.stdev(adjusted),
            "dup_luck": dup_sd(deal_adj), "play_ms": 1000 * play_seconds / len(raw),
            "luck_ms": 1000 * luck_seconds / len(raw)}


def run_variance(args: argparse.Namespace) -> None:
    settings = LuckSettings()
    games = tuple(args.games)
    print(f"games {' '.join(games)}; value function {settings.name}; sd per hand in mbb/hand; "
          f"hands for ±{TARGET_MBB:g} mbb/hand\n")
    print("| bots | seats | hands | mean raw / luck-adj | sd raw | sd dup | sd luck | sd dup+luck "
          "| hands needed raw / dup / luck / dup+luck | dup+luck vs raw |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for opponent in ("call", "random"):
        for seats in args.seats:
            kinds = ["rules" if k % 2 == 0 else opponent for k in range(seats)]
            deals = args.deals if seats == 2 else max(10, args.deals // seats)
            r = variance(kinds, deals, args.seed, settings, games)
            needed = [_hands_for(r[k]) for k in ("raw", "dup", "luck", "dup_luck")]
            print(f"| rules vs {opponent} | {seats} | {r['hands']:.0f} | {r['mean_raw']:+.0f} / "
                  f"{r['mean_luck']:+.0f} | {r['raw']:.0f} | {r['dup']:.0f} | {r['luck']:.0f} | "
                  f"{r['dup_luck']:.0f} | {' / '.join(f'{n:,}' for n in needed)} | "
                  f"{needed[3] / needed[0]:.2f} |", flush=True)


def run_cost(args: argparse.Namespace) -> None:
    from arena.league.config import LeagueBot, LeagueConfig
    from arena.league.luck import update_luck
    from arena.league.runner import LeagueRun

    workdir = scratch_dir("bench-luck-")
    per_match = 10
    config = LeagueConfig(
        name="cost", bots=(LeagueBot("a", "bench-token-a-001"), LeagueBot("b", "bench-token-b-001")),
        format="round_robin", rounds=max(1, args.hands // (2 * per_match)), hands_per_match=per_match,
        duplicate=True, tables_at_once=1, seed=4, listen="127.0.0.1:0",
        store=workdir / "cost.sqlite", log_dir=workdir / "logs", start_timeout_seconds=30)
    procs: list[subprocess.Popen[bytes]] = []

    def ready(port: int) -> None:
        for bot in config.bots:
            procs.append(subprocess.Popen(
                [sys.executable, "-m", "arena.cli", "bot", "call", "--server", f"127.0.0.1:{port}",
                 "--token", bot.token, "--name", bot.name],
                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL))

    import io

    run = LeagueRun(config, out=io.StringIO())
    try:
        started, cpu = time.perf_counter(), time.process_time()
        run.run(on_ready=ready)
        play_seconds, dealer_cpu = time.perf_counter() - started, time.process_time() - cpu
        league = run.store.find_league(config.name)
        assert league is not None
        started, cpu = time.perf_counter(), time.process_time()
        hands = update_luck(run.store, league.league_id, rules=config.rules, settings=config.luck)
        luck_seconds, luck_cpu = time.perf_counter() - started, time.process_time() - cpu
    finally:
        for proc in procs:
            proc.terminate()
            proc.wait(timeout=10)
        run.close()
    bots_cpu = resource.getrusage(resource.RUSAGE_CHILDREN)
    play_cpu = dealer_cpu + bots_cpu.ru_utime + bots_cpu.ru_stime
    print(f"{hands} hands, heads-up H.O.R.S.E., one table, two instant (never-fold) bots over gRPC")
    print(f"play:  {play_seconds:.1f} s wall, {play_cpu:.1f} s CPU (dealer {dealer_cpu:.1f} s + bots) "
          f"({1000 * play_seconds / hands:.2f} ms/hand)")
    print(f"luck:  {luck_seconds:.1f} s wall, {luck_cpu:.1f} s CPU "
          f"({1000 * luck_seconds / hands:.2f} ms/hand)")
    print(f"luck / play = {luck_seconds / play_seconds:.2f} (wall), {luck_cpu / play_cpu:.2f} (CPU)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="what", required=True)
    var = sub.add_parser("variance")
    var.add_argument("--deals", type=int, default=300)
    var.add_argument("--seats", type=int, nargs="+", default=[2, 6])
    var.add_argument("--seed", type=int, default=1)
    var.add_argument("--games", nargs="+", default=list(HORSE),
                     help="the rotation, e.g. F2L3D or FES (the luck of §29's games)")
    var.set_defaults(func=run_variance)
    cost = sub.add_parser("cost")
    cost.add_argument("--hands", type=int, default=2000)
    cost.set_defaults(func=run_cost)
    strategies = sub.add_parser("strategies", help="mixed-strategy bots, declared or not (issue 40)")
    strategies.add_argument("--deals", type=int, default=400)
    strategies.add_argument("--games", nargs="+", default=["FT", "NT"])
    strategies.add_argument("--seed", type=int, default=1)
    strategies.set_defaults(func=lambda a: luck_strategies.run(a.deals, a.games, a.seed))
    games = sub.add_parser("games", help="the luck's cost per hand in each game, vs F7S")
    games.add_argument("--hands", type=int, default=30)
    games.add_argument("--seats", type=int, nargs="+", default=[2, 6])
    games.add_argument("--games", nargs="+", default=list(luck_games.GAMES))
    games.add_argument("--seed", type=int, default=1)
    games.set_defaults(func=lambda a: luck_games.run(a.hands, a.seats, a.games, a.seed))
    args = parser.parse_args()
    args.func(args)


if __name__ == "__main__":
    main()
