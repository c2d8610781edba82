"""The luck adjustment's cost per hand in each game, against seven-card stud's in the same run.

    python -m bench.luck games [--hands 30] [--seats 2 6] [--games F2L3D FES F7SW ...]

Hands are dealt in process (`arena simulate`'s built-in policies: ``random`` bets, folds and
exchanges at random), then each hand's luck is computed from its events with the default
settings (`LuckSettings()`: pot-equity, 400 Monte Carlo runouts, exact up to 1000). CPU time
per hand; the ratio is to ``F7S`` at the same table size in the same run (docs/house-rules.md
§29 for the equities of the games beyond H.O.R.S.E.).
"""

from __future__ import annotations

import time

from arena.engine.games import variant_for
from arena.engine.luck import LuckSettings, hand_luck
from arena.engine.rules import Rules
from arena.match.simulate import iter_hands, rules_for_game

GAMES = ("F7S", "FT", "NT", "PO", "F2L3D", "FLL", "F7SW", "F7SWL", "F7SW/8", "FLH", "FLH/8", "FES")


def luck_ms_per_hand(game: str, seats: int, hands: int, seed: int) -> float:
    rules = rules_for_game(game, Rules())
    played = [(state, index) for state, _order, index in
              iter_hands(rules=rules, players=seats, hands=hands, seed=seed, policy="random")]
    settings = LuckSettings()
    started = time.process_time()
    for state, index in played:
        hand_luck(state.variant, state.events, state.seat_count, hand_seed=index,
                  settings=settings, small_bet_chips=state.stakes.small_bet,
                  big_bet_chips=state.stakes.big_bet, rules=state.rules)
    return 1000 * (time.process_time() - started) / len(played)


def run(hands: int, seats: list[int], games: list[str], seed: int) -> None:
    print(f"luck CPU ms/hand, {hands} hands per game and table size, policy random, "
          f"{LuckSettings().name}\n")
    print("| game | " + " | ".join(f"{n} seats: ms/hand | vs F7S" for n in seats) + " |")
    print("|---|" + "---|---|" * len(seats))
    peer = {n: luck_ms_per_hand("F7S", n, hands, seed) for n in seats}
    for game in games:
        cells = []
        for n in seats:
            if n > variant_for(game).max_seats:
                cells.append("- | -")
                continue
            ms = peer[n] if game == "F7S" else luck_ms_per_hand(game, n, hands, seed)
            cells.append(f"{ms:.0f} | {ms / peer[n]:.2f}")
        print(f"| {game} | " + " | ".join(cells) + " |", flush=True)
