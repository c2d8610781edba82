"""Value all 133,784,560 seven-card hands and check the class counts of seed 000 exactly.

Run: ``python -m bench.enumerate [--workers N]``; exits 1 on any mismatch.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections import Counter
from itertools import combinations
from multiprocessing import Pool

from arena.engine.evaluate import (
    RANK_KEY,
    RANK_SHIFT,
    SUIT_OFFSET,
    HandClass,
    hand_class,
    high_value,
    high_value_from_keys,
)

# The seven-card table of seed 000 (Texas Hold'em section); its royal flushes (4,324) and
# other straight flushes (37,260) make one class here.
EXPECTED = {
    HandClass.STRAIGHT_FLUSH: 4_324 + 37_260,
    HandClass.FOUR_OF_A_KIND: 224_848,
    HandClass.FULL_HOUSE: 3_473_184,
    HandClass.FLUSH: 4_047_644,
    HandClass.STRAIGHT: 6_180_020,
    HandClass.THREE_OF_A_KIND: 6_461_620,
    HandClass.TWO_PAIR: 31_433_400,
    HandClass.ONE_PAIR: 58_627_800,
    HandClass.HIGH_CARD: 23_294_460,
}
TOTAL = 133_784_560

_SUIT = tuple(1 << (4 * (card & 3)) for card in range(52))
_BIT = tuple(1 << (card >> 2) for card in range(52))

# For the two last cards, all pairs (x < y) with x >= start: their rank-key sums, and the
# same split by suit s and by how many of the two are of suit s, with those cards' rank bits.
_PAIR_RANKS: list[list[int]] = []
_PAIR_SPLIT: list[list[list[tuple[list[int], list[int]]]]] = []


def _build_pairs() -> None:
    for start in range(52):
        pairs = list(combinations(range(start, 52), 2))
        _PAIR_RANKS.append([RANK_KEY[x] + RANK_KEY[y] for x, y in pairs])
        by_suit: list[list[tuple[list[int], list[int]]]] = []
        for suit in range(4):
            split: list[tuple[list[int], list[int]]] = [([], []) for _ in range(3)]
            for x, y in pairs:
                in_suit = [c for c in (x, y) if c & 3 == suit]
                ranks, masks = split[len(in_suit)]
                ranks.append(RANK_KEY[x] + RANK_KEY[y])
                masks.append(sum(_BIT[c] for c in in_suit))
            by_suit.append(split)
        _PAIR_SPLIT.append(by_suit)


def _count_from(first: int) -> tuple[Counter[int], Counter[int]]:
    """Hands whose lowest card is `first`: counts by rank key (no flush) and by flush mask.

    Five nested loops add the first five cards' keys; the last two cards come from the pair
    tables and are added and counted in C (map over int.__add__ / __or__ into Counter.update).
    In seven cards a flush rules out quads and full houses, so a flush hand's value is fixed
    by its suit's rank mask and every other hand's value by its rank key.
    """
    if not _PAIR_RANKS:
        _build_pairs()
    by_rank: Counter[int] = Counter()
    by_flush: Counter[int] = Counter()
    update_rank = by_rank.update
    update_flush = by_flush.update
    a = first
    ra, sa = RANK_KEY[a], _SUIT[a]
    for b in range(a + 1, 47):
        rb, sb = ra + RANK_KEY[b], sa + _SUIT[b]
        for c in range(b + 1, 48):
            rc, sc = rb + RANK_KEY[c], sb + _SUIT[c]
            for d in range(c + 1, 49):
                rd, sd = rc + RANK_KEY[d], sc + _SUIT[d]
                for e in range(d + 1, 50):
                    re, se = rd + RANK_KEY[e], sd + _SUIT[e]
                    # +5 sets a nibble's top bit when its suit has 3 of the 5: a flush chance.
                    chance = (se + 0x5555) & 0x8888
                    if not chance:
                        update_rank(map(re.__add__, _PAIR_RANKS[e + 1]))
                        continue
                    suit = (chance.bit_length() >> 2) - 1
                    have = se >> (4 * suit) & 15
                    mask = sum(_BIT[x] for x in (a, b, c, d, e) if x & 3 == suit)
                    for k, (ranks, masks) in enumerate(_PAIR_SPLIT[e + 1][suit]):
                        if have + k >= 5:
                            update_flush(map(mask.__or__, masks))
                        else:
                            update_rank(map(re.__add__, ranks))
    return by_rank, by_flush


def _classify(by_rank: Counter[int], by_flush: Counter[int]) -> Counter[HandClass]:
    classes: Counter[HandClass] = Counter()
    for rank_key, count in by_rank.items():
        classes[hand_class(high_value_from_keys(rank_key << RANK_SHIFT | SUIT_OFFSET, ()))] += count
    for mask, count in by_flush.items():
        clubs = [rank * 4 for rank in range(13) if mask >> rank & 1]
        classes[hand_class(high_value(clubs))] += count
    return classes


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--workers", type=int, default=2)
    args = parser.parse_args(argv)
    start = time.perf_counter()
    by_rank: Counter[int] = Counter()
    by_flush: Counter[int] = Counter()
    # The first card 0 starts the most hands; biggest jobs first keeps both cores busy.
    with Pool(args.workers) as pool:
        for ranks, flushes in pool.imap_unordered(_count_from, range(46)):
            by_rank.update(ranks)
            by_flush.update(flushes)
    classes = _classify(by_rank, by_flush)
    seconds = time.perf_counter() - start
    total = sum(classes.values())
    print(f"{total:,} seven-card hands valued in {seconds:.1f} s "
          f"({total / seconds:,.0f} hands/s, {args.workers} workers)")
    print("| class | counted | seed 000 | |")
    print("|---|---:|---:|---|")
    ok = total == TOTAL
    for hand_class_, expected in EXPECTED.items():
        got = classes[hand_class_]
        ok &= got == expected
        verdict = "ok" if got == expected else "MISMATCH"
        print(f"| {hand_class_} | {got:,} | {expected:,} | {verdict} |")
    print(f"| total | {total:,} | {TOTAL:,} | {'ok' if total == TOTAL else 'MISMATCH'} |")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
