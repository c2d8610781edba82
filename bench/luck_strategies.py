"""Issue 40: the luck adjustment with bots that play mixed strategies, declared to the dealer
(which draws the action; the adjustment has action terms) or sampled privately (it cannot).

    python -m bench.luck strategies [--deals 400] [--games FT NT]

Heads-up duplicate: every deal is played twice with the seats swapped (`arena.match.
strategy_sim.play`, copies 0 and 1, each with its own draw key). The hero is a card-dependent
mixed strategy of aggression 0.9, its opponent one of 0.3 (`strategy_sim.mixed`). Reported per
pair: the hero's standard deviation per hand, raw, duplicate (deal means scaled to one hand),
luck-adjusted and duplicate + luck-adjusted, the hands a ±50 mbb/hand 95% interval needs, the
ratio duplicate + luck-adjusted to raw, and the cost per hand of the chance terms and of the
action terms on top of them (process time, same run).
"""

from __future__ import annotations

import math
import statistics
import time

from arena.engine.cards import derive_seed
from arena.engine.luck import LuckSettings, ValueFunction, hand_luck
from arena.engine.rules import Rules
from arena.match.simulate import rules_for_game
from arena.match.strategy_sim import SimBot, mixed, play

Z = 1.959963984540054
TARGET_MBB = 50.0


def _hands_for(sd: float) -> int:
    return math.ceil((Z * sd / TARGET_MBB) ** 2)


def measure(game: str, *, declares: bool, deals: int, seed: int,
            settings: LuckSettings) -> dict[str, float]:
    rules = rules_for_game(game, Rules())
    bots = [SimBot(strategy=mixed(0.9), declares=declares), SimBot(strategy=mixed(0.3), declares=declares)]
    raw: list[float] = []
    adjusted: list[float] = []
    deal_raw: dict[int, list[float]] = {}
    deal_adj: dict[int, list[float]] = {}
    chance_seconds = action_seconds = 0.0
    decisions = strategy_decisions = 0
    for copy in (0, 1):
        for hand in play(bots, rules=rules, game=game, hands=deals, seed=seed, copy_index=copy):
            state = hand.state
            assert state.result is not None
            seat = hand.order.index(0)
            small = state.stakes.small_bet
            hand_seed = derive_seed(seed, "hand", hand.hand_number - 1)
            # Chance terms first (their equities computed); then with the action terms, and
            # chance-only again, both with those equities cached: the difference is the
            # action terms' own cost.
            started = time.process_time()
            hand_luck(state.variant, state.events, 2, hand_seed=hand_seed, settings=settings,
                      small_bet_chips=small, big_bet_chips=state.stakes.big_bet)
            first = time.process_time()
            luck = hand_luck(state.variant, state.events, 2, hand_seed=hand_seed, settings=settings,
                             small_bet_chips=small, big_bet_chips=state.stakes.big_bet,
                             decisions=hand.decisions).luck_chips[seat]
            second = time.process_time()
            hand_luck(state.variant, state.events, 2, hand_seed=hand_seed, settings=settings,
                      small_bet_chips=small, big_bet_chips=state.stakes.big_bet)
            third = time.process_time()
            chance_seconds += first - started
            action_seconds += max(0.0, (second - first) - (third - second))
            net = state.result.net_chips[seat]
            raw.append(1000 * net / small)
            adjusted.append(1000 * (net - luck) / small)
            deal_raw.setdefault(hand.hand_number, []).append(raw[-1])
            deal_adj.setdefault(hand.hand_number, []).append(adjusted[-1])
            decisions += sum(1 for e in state.events if type(e).__name__ == "ActionTaken")
            strategy_decisions += len(hand.decisions)

    def dup_sd(groups: dict[int, list[float]]) -> float:
        return statistics.stdev([statistics.fmean(v) for v in groups.values()]) * math.sqrt(2)

    hands = len(raw)
    return {"hands": hands, "mean_raw": statistics.fmean(raw), "mean_luck": statistics.fmean(adjusted),
            "raw": statistics.stdev(raw), "dup": dup_sd(deal_raw), "luck": statistics.stdev(adjusted),
            "dup_luck": dup_sd(deal_adj), "chance_ms": 1000 * chance_seconds / hands,
            "action_ms": 1000 * action_seconds / hands,
            "strategy_share": strategy_decisions / decisions if decisions else 0.0}


def run(deals: int, games: list[str], seed: int) -> None:
    settings = LuckSettings(value=ValueFunction.PROJECTED_POT_EQUITY)
    print(f"value function {settings.name}; hero mixed(0.9) vs mixed(0.3), heads-up duplicate; "
          f"sd per hand in mbb/hand; hands for ±{TARGET_MBB:g} mbb/hand\n")
    print("| game | bots | hands | strategy replies | mean raw / luck-adj | sd raw | sd dup | sd luck "
          "| sd dup+luck | hands needed raw / dup+luck | dup+luck vs raw | chance / action terms ms/hand |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|")
    for game in games:
        for declares in (True, False):
            # Other deals for each pair: the equity cache would otherwise serve the second.
            r = measure(game, declares=declares, deals=deals, seed=seed + (0 if declares else 1),
                        settings=settings)
            ratio = _hands_for(r["dup_luck"]) / _hands_for(r["raw"])
            print(f"| {game} | {'declared' if declares else 'sampled privately'} | {r['hands']:.0f} "
                  f"| {100 * r['strategy_share']:.0f}% "
                  f"| {r['mean_raw']:+.0f} / {r['mean_luck']:+.0f} | {r['raw']:.0f} | {r['dup']:.0f} "
                  f"| {r['luck']:.0f} | {r['dup_luck']:.0f} "
                  f"| {_hands_for(r['raw'])} / {_hands_for(r['dup_luck'])} | {ratio:.2f} "
                  f"| {r['chance_ms']:.2f} / {r['action_ms']:.3f} |", flush=True)
