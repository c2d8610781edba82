"""Engine throughput: hands/s per game, 2 and 6 players, random and never-fold policies,
our engine and PokerKit 0.7.7 side by side in one run, reported as ratios. The games are the
five H.O.R.S.E. games and no-limit hold'em (NT); the random policies of both engines pick a
kind uniformly, then the minimum or the maximum "raise to" amount uniformly.

    python -m bench.engine [--seconds 2.0] [--rounds 3] [--games FT,FO/8,...]

Machines are shared and noisy, so time is this process's CPU time (not wall time: waiting
for a core is not counted), and each cell warms both engines up, then alternates them for
``--rounds`` rounds of ``seconds / rounds`` CPU seconds each and keeps each engine's best
round: a burst of load elsewhere then hurts one round, not the ratio. Rates are hands per CPU
second; the table also gives our CPU microseconds per hand. Our evaluator's tables are
filled before the first cell (``evaluate.fill_tables``, about 2 s), as they are in a dealer
that has played a few thousand hands and as PokerKit's are from import: the cells measure
the steady state, not the first uses of each table.
"""

from __future__ import annotations

import argparse
import random
import sys
import time
import tracemalloc
import warnings
from collections.abc import Callable

from arena.engine.evaluate import fill_tables
from arena.engine.games import HORSE, GameCode, variant_for
from arena.engine.rules import Rules
from arena.engine.state import HandState
from arena.match.policies import call_policy, random_policy

RULES = Rules()


def our_hands_per_second(game: str, players: int, policy_name: str, seconds: float) -> float:
    variant = variant_for(GameCode(game))
    stacks = [RULES.starting_stack] * players
    rng = random.Random(1)
    policy = call_policy if policy_name == "call" else random_policy(rng)
    hands = 0
    started = time.process_time()
    deadline = started + seconds
    while True:
        for _ in range(20):
            # A distinct seed per hand, so every hand seeds its own deck. (A match derives
            # seeds with derive_seed; that hashing is match bookkeeping, not engine work, and
            # PokerKit's side has no counterpart.)
            state = HandState(variant, stacks, rules=RULES, seed=hands)
            while not state.is_over:
                action = policy(state.legal_actions())
                state.act(state.actor, action.kind, action.raise_to_chips)  # type: ignore[arg-type]
            hands += 1
        now = time.process_time()
        if now >= deadline:
            return hands / (now - started)


def _pokerkit_game(game: str) -> Callable[[], object]:
    import pokerkit as pk

    automations = tuple(pk.Automation)
    mode = pk.Mode.CASH_GAME
    if game == "FT":
        g = pk.FixedLimitTexasHoldem(automations, False, 0, (10, 20), 20, 40, mode=mode)
    elif game == "NT":
        g = pk.NoLimitTexasHoldem(automations, False, 0, (10, 20), 20, mode=mode)
    elif game == "FO/8":
        class FO8(pk.FixedLimitPokerMixin, pk.FixedLimitOmahaHoldemHighLowSplitEightOrBetter):
            pass

        g = FO8(automations, False, 0, (10, 20), 20, 40, mode=mode)
    else:
        cls = {"FR": pk.FixedLimitRazz, "F7S": pk.FixedLimitSevenCardStud,
               "F7S/8": pk.FixedLimitSevenCardStudHighLowSplitEightOrBetter}[game]
        g = cls(automations, False, 3, 5, 20, 40, mode=mode)
    return g  # type: ignore[no-any-return]


def pokerkit_hands_per_second(game: str, players: int, policy_name: str, seconds: float) -> float:
    g = _pokerkit_game(game)
    rng = random.Random(1)
    hands = 0
    started = time.process_time()
    deadline = started + seconds
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        while time.process_time() < deadline or hands == 0:
            state = g([RULES.starting_stack] * players, players)  # type: ignore[operator]
            while state.status:
                if state.can_post_bring_in():
                    state.post_bring_in()
                    continue
                choices = []
                if policy_name == "random":
                    if state.can_fold():
                        choices.append("f")
                    if state.can_complete_bet_or_raise_to():
                        choices.append("r")
                if state.can_check_or_call():
                    choices.append("c")
                pick = choices[int(rng.random() * len(choices))]
                if pick == "f":
                    state.fold()
                elif pick == "r":
                    low = state.min_completion_betting_or_raising_to_amount
                    high = state.max_completion_betting_or_raising_to_amount
                    amounts = (low,) if low == high else (low, high)
                    state.complete_bet_or_raise_to(amounts[int(rng.random() * len(amounts))])
                else:
                    state.check_or_call()
            hands += 1
    return hands / (time.process_time() - started)


def hand_memory_bytes(game: str, players: int) -> int:
    """Bytes allocated by one hand in flight (measured mid-hand, after the first street)."""
    variant = variant_for(GameCode(game))
    tracemalloc.start()
    before = tracemalloc.get_traced_memory()[0]
    state = HandState(variant, [RULES.starting_stack] * players, rules=RULES, seed=3)
    for _ in range(players + 1):
        if state.is_over:
            break
        state.act(state.actor, *_call(state))  # type: ignore[arg-type]
    used = tracemalloc.get_traced_memory()[0] - before
    tracemalloc.stop()
    del state
    return used


def _call(state: HandState) -> tuple[object, None]:
    action = call_policy(state.legal_actions())
    return action.kind, None


WARM_UP_SECONDS = 0.1


def best_rates(game: str, players: int, policy: str, seconds: float,
               rounds: int) -> tuple[float, float]:
    """(ours, PokerKit) hands/s: the best of ``rounds`` alternating rounds, after a warm-up."""
    our_hands_per_second(game, players, policy, WARM_UP_SECONDS)
    pokerkit_hands_per_second(game, players, policy, WARM_UP_SECONDS)
    ours = theirs = 0.0
    for _ in range(rounds):
        ours = max(ours, our_hands_per_second(game, players, policy, seconds / rounds))
        theirs = max(theirs, pokerkit_hands_per_second(game, players, policy, seconds / rounds))
    return ours, theirs


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--seconds", type=float, default=2.0, help="time per cell and engine")
    parser.add_argument("--rounds", type=int, default=3,
                        help="alternating rounds per cell; each engine's best round counts")
    parser.add_argument("--games", default=",".join((*HORSE, GameCode.NO_LIMIT_HOLDEM)))
    args = parser.parse_args(argv)
    fill_tables()
    print("| game | players | policy | arena hands/s | arena µs/hand | PokerKit hands/s | ratio |")
    print("|---|---|---|---|---|---|---|")
    worst = worst_never_fold = float("inf")
    for game in args.games.split(","):
        for players in (2, 6):
            for policy in ("random", "call"):
                ours, theirs = best_rates(game, players, policy, args.seconds, args.rounds)
                ratio = ours / theirs
                worst = min(worst, ratio)
                if policy == "call" and (players == 6 or game == GameCode.NO_LIMIT_HOLDEM):
                    worst_never_fold = min(worst_never_fold, ratio)
                print(f"| {game} | {players} | {policy} | {ours:,.0f} | {1e6 / ours:,.0f} | "
                      f"{theirs:,.1f} | {ratio:,.0f}x |", flush=True)
    print(f"\nworst never-fold ratio, 6-handed and NT heads-up: {worst_never_fold:,.0f}x "
          "(goal: at least 50x)")
    print(f"worst ratio of any cell: {worst:,.0f}x")
    mem = {g: hand_memory_bytes(g, 6) for g in args.games.split(",")}
    print("memory of one 6-handed hand in flight: "
          + ", ".join(f"{g} {b / 1024:.1f} KB" for g, b in mem.items()))
    return 0


if __name__ == "__main__":
    sys.exit(main())
