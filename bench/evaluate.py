"""Speed of arena.engine.evaluate against eval7, phevaluator, treys and PokerKit on the same hands.

Run: ``python -m bench.evaluate [--quick] [--seed N]``; prints a markdown table.
"""

from __future__ import annotations

import argparse
import random
import time
from collections import deque
from collections.abc import Callable, Iterable
from itertools import starmap
from typing import Any

from arena.engine import evaluate as ev
from arena.engine.cards import format_card


def _consume(iterable: Iterable[Any]) -> None:
    deque(iterable, maxlen=0)


def _race(runs: dict[str, tuple[int, Callable[[], None]]], repeats: int) -> dict[str, float]:
    """Evaluations per second of each (hand count, run), best of `repeats` rounds after one
    untimed warm-up round.

    Time is this process's CPU time (waiting for a core on a shared machine is not counted),
    and the rounds interleave the evaluators, so that a noisy moment of the machine hits all
    of them alike. The warm-up fills our lazy tables and the peers' caches, as a running dealer
    would have them.
    """
    best = dict.fromkeys(runs, float("inf"))
    for _, run in runs.values():
        run()
    for _ in range(repeats):
        for name, (_, run) in runs.items():
            start = time.process_time()
            run()
            best[name] = min(best[name], time.process_time() - start)
    return {name: runs[name][0] / seconds for name, seconds in best.items()}


def _deal(rng: random.Random, count: int, size: int) -> list[list[int]]:
    return [rng.sample(range(52), size) for _ in range(count)]


def _row(workload: str, who: str, count: int, rate: float, ours: float | None) -> str:
    ratio = "" if ours is None else f"{ours / rate:,.1f}x"
    return f"| {workload} | {who} | {count:,} | {rate:,.0f} | {ratio} |"


def _high7(hands: list[list[int]], repeats: int) -> list[str]:
    import eval7  # type: ignore[import-untyped]
    import phevaluator  # type: ignore[import-untyped]
    import treys  # type: ignore[import-untyped]

    names = [[format_card(c) for c in hand] for hand in hands]
    e7_hands = [[eval7.Card(n) for n in hand] for hand in names]
    treys_hands = [
        ([treys.Card.new(n) for n in hand[2:]], [treys.Card.new(n) for n in hand[:2]])
        for hand in names
    ]
    # phevaluator's card ids are rank * 4 + suit with suits cdhs, the same ints as ours.
    ph_hands = [tuple(hand) for hand in hands]
    treys_evaluator = treys.Evaluator()
    count = len(hands)

    rates = _race(
        {
            "arena": (count, lambda: _consume(map(ev.high_value, hands))),
            "eval7": (count, lambda: _consume(map(eval7.evaluate, e7_hands))),
            "phevaluator": (
                count, lambda: _consume(starmap(phevaluator.evaluate_cards, ph_hands))
            ),
            "treys": (count, lambda: _consume(starmap(treys_evaluator.evaluate, treys_hands))),
        },
        repeats,
    )
    ours = rates.pop("arena")
    rows = [_row("7-card high", "arena", count, ours, None)]
    rows += [_row("7-card high", name, count, rate, ours) for name, rate in rates.items()]
    return rows


def _vs_pokerkit(
    workload: str,
    ours_run: Callable[[list[list[int]]], None],
    kit_run: Callable[[list[Any]], None],
    hands: list[list[int]],
    kit_count: int,
    split: int,
    repeats: int,
) -> list[str]:
    """Race ours on all hands and PokerKit on the first `kit_count`, split into hole/board."""
    import pokerkit

    kit_hands = [
        (
            tuple(pokerkit.Card.parse("".join(format_card(c) for c in hand[:split]))),
            tuple(pokerkit.Card.parse("".join(format_card(c) for c in hand[split:]))),
        )
        for hand in hands[:kit_count]
    ]
    rates = _race(
        {
            "arena": (len(hands), lambda: ours_run(hands)),
            "pokerkit": (kit_count, lambda: kit_run(kit_hands)),
        },
        repeats,
    )
    ours, kit = rates["arena"], rates["pokerkit"]
    return [
        _row(workload, "arena", len(hands), ours, None),
        _row(workload, "PokerKit 0.7.7", kit_count, kit, ours),
    ]


def main(argv: list[str] | None = None) -> None:
    import pokerkit

    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--quick", action="store_true", help="small N, a few seconds")
    parser.add_argument("--seed", type=int, default=2024)
    args = parser.parse_args(argv)
    n, n_omaha, n_kit, repeats = (
        (20_000, 5_000, 200, 1) if args.quick else (200_000, 50_000, 1_000, 5)
    )
    rng = random.Random(args.seed)
    sevens = _deal(rng, n, 7)
    omahas = _deal(rng, n_omaha, 9)  # 4 hole cards, then 5 board cards

    rows = _high7(sevens, repeats)

    high = pokerkit.StandardHighHand.from_game
    rows += _vs_pokerkit(
        "7-card high",
        lambda hs: _consume(map(ev.high_value, hs)),
        lambda hs: _consume(starmap(high, hs)),
        sevens, n_kit, 2, repeats,
    )[1:]

    omaha_high = pokerkit.OmahaHoldemHand.from_game
    omaha_low = pokerkit.OmahaEightOrBetterLowHand.from_game_or_none
    rows += _vs_pokerkit(
        "Omaha high",
        lambda hs: _consume(ev.omaha_high_value(h[:4], h[4:]) for h in hs),
        lambda hs: _consume(starmap(omaha_high, hs)),
        omahas, n_kit, 4, repeats,
    )
    rows += _vs_pokerkit(
        "Omaha hi-lo (both halves)",
        lambda hs: _consume(
            (ev.omaha_high_value(h[:4], h[4:]), ev.omaha_low8_value(h[:4], h[4:])) for h in hs
        ),
        lambda hs: _consume((omaha_high(a, b), omaha_low(a, b)) for a, b in hs),
        omahas, n_kit, 4, repeats,
    )
    razz = pokerkit.RegularLowHand.from_game
    rows += _vs_pokerkit(
        "7-card razz low",
        lambda hs: _consume(map(ev.low_value, hs)),
        lambda hs: _consume(starmap(razz, hs)),
        sevens, n_kit, 7, repeats,
    )
    low8 = pokerkit.EightOrBetterLowHand.from_game_or_none
    rows += _vs_pokerkit(
        "7-card eight-or-better low",
        lambda hs: _consume(map(ev.low8_value, hs)),
        lambda hs: _consume(starmap(low8, hs)),
        sevens, n_kit, 7, repeats,
    )

    print("| workload | evaluator | hands | evals/s | arena / evaluator |")
    print("|---|---|---:|---:|---:|")
    for row in rows:
        print(row)


if __name__ == "__main__":
    main()
