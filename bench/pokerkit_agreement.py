"""Issue check: a 10,000-hand H.O.R.S.E. simulation loads in PokerKit and, with the three
PokerKit-compatible rules keys, replays there to the same final stacks, hand by hand.

    python -m bench.pokerkit_agreement [--hands 10000] [--players 6] [--seed 1]
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
import tomllib
import warnings

import pokerkit

from arena.engine.rules import Rules
from arena.match.simulate import simulate

POKERKIT_COMPATIBLE = ["uncapped_heads_up=false", "stud_open_pair_big_bet=false", "stud_tie_break=seat"]


class FixedLimitOmahaHiLo(pokerkit.FixedLimitPokerMixin,
                          pokerkit.FixedLimitOmahaHoldemHighLowSplitEightOrBetter):
    """docs/testing.md, PokerKit: PokerKit's own FO/8 class plays pot-limit."""


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--hands", type=int, default=10_000)
    parser.add_argument("--players", type=int, default=6)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--policy", default="random")
    args = parser.parse_args(argv)
    out = tempfile.mkdtemp(prefix="arena-pk-")
    rules = Rules().with_overrides(POKERKIT_COMPATIBLE)
    summary = simulate(game="horse", players=args.players, hands=args.hands, seed=args.seed,
                       out_dir=out, policy=args.policy, rules=rules)
    print(f"arena: {summary.hands} hands in {summary.seconds:.1f} s -> {out}/hands.phhs")
    with open(f"{out}/hands.phhs", encoding="utf-8") as fh:
        text = fh.read()
    ours = [h["finishing_stacks"] for h in tomllib.loads(text).values()]
    pokerkit.HandHistory.game_types["FO/8"] = FixedLimitOmahaHiLo
    started = time.perf_counter()
    mismatches = 0
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for index, hh in enumerate(pokerkit.HandHistory.loads_all(text)):
            *_, final = hh
            if list(final.stacks) != ours[index]:
                mismatches += 1
                print(f"hand {index + 1}: PokerKit {list(final.stacks)} arena {ours[index]}")
    print(f"PokerKit loaded and replayed {len(ours)} hands in {time.perf_counter() - started:.1f} s: "
          f"{len(ours) - mismatches} agree, {mismatches} differ")
    return 1 if mismatches else 0


if __name__ == "__main__":
    sys.exit(main())
