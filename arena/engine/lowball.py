"""Lowball values in which straights and flushes count against a hand: deuce-to-seven (2-7
triple draw, docs/house-rules.md §21) and ace-to-six (London Lowball, docs/house-rules.md §22).

A lowball value is an int, bigger is better (the lowest hand), equal is a tie, like every value
of :mod:`arena.engine.evaluate`. The hand is ranked as a high hand over ranks in the game's
order (deuce-to-seven: the ace is high only, so A-2-3-4-5 is no straight; ace-to-six: the ace
is low only, so A-2-3-4-5 is a straight and T-J-Q-K-A is not), and the lowest high hand wins.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from functools import cache
from itertools import combinations, combinations_with_replacement
from typing import Final

from arena.engine.evaluate import FLUSH_BITS, KEY, RANK_SHIFT, SUIT_OFFSET, LazyTable, ranks_of
from arena.engine.handvalue import CLASS_SHIFT
from arena.engine.wild import FIVE_OF_A_KIND, five_high_value

LOWBALL_BASE: Final = FIVE_OF_A_KIND << CLASS_SHIFT
"""A lowball value is this minus the high value (:func:`arena.engine.wild.five_high_value`,
no wheel) of its five cards' ranks in the game's order: positive, as no five of a kind exists."""


@cache
def _deuce_to_seven_five(ranks: tuple[int, ...], flush: bool) -> int:
    return LOWBALL_BASE - five_high_value(ranks, flush, wheel=False)


@cache
def _ace_to_six_five(ranks: tuple[int, ...], flush: bool) -> int:
    # Ace-low order: the ace 0, the deuce 1, ..., the king 12.
    return LOWBALL_BASE - five_high_value(tuple((r + 1) % 13 for r in ranks), flush, wheel=False)


def _best(cards: Sequence[int], value_of: Callable[[tuple[int, ...], bool], int]) -> int:
    if not 5 <= len(cards) <= 8:
        raise ValueError(f"expected 5 to 8 cards, got {len(cards)}")
    best = -1
    for five in combinations(cards, 5):
        flush = len({c & 3 for c in five}) == 1
        value = value_of(tuple(sorted(c >> 2 for c in five)), flush)
        if value > best:
            best = value
    return best


def _by_rank_key(five: Callable[[tuple[int, ...], bool], int], *, flush: bool) -> LazyTable[int]:
    """Best value of cards by their rank key (``evaluate.KEY`` sums: the rank multiset),
    computed on first use from the ranks alone: of cards holding no five of one suit, or
    (``flush``) of exactly five cards of one suit."""
    def best(rank_key: int) -> int:
        ranks = ranks_of(rank_key)
        if flush and (len(ranks) != 5 or len(set(ranks)) != 5):
            raise KeyError(rank_key)
        return max(five(ranks_five, flush) for ranks_five in combinations(ranks, 5))
    return LazyTable[int](best)


_D27: Final = _by_rank_key(_deuce_to_seven_five, flush=False)
_D27_FLUSH: Final = _by_rank_key(_deuce_to_seven_five, flush=True)  # five cards of one suit
_A6: Final = _by_rank_key(_ace_to_six_five, flush=False)
_A6_FLUSH: Final = _by_rank_key(_ace_to_six_five, flush=True)
_KEY_AT: Final = KEY.__getitem__


def deuce_to_seven_value(cards: Sequence[int]) -> int:
    """Best deuce-to-seven low of 5 to 8 distinct cards (7-5-4-3-2 unsuited is the best)."""
    return _value(cards, _D27, _D27_FLUSH, _deuce_to_seven_five)


def ace_to_six_value(cards: Sequence[int]) -> int:
    """Best ace-to-six low of 5 to 8 distinct cards (6-4-3-2-A unsuited is the best)."""
    return _value(cards, _A6, _A6_FLUSH, _ace_to_six_five)


def _value(cards: Sequence[int], no_flush: LazyTable[int], flush: LazyTable[int],
           five: Callable[[tuple[int, ...], bool], int]) -> int:
    """A table read by the cards' rank key: of cards with no five of a suit, or of exactly
    five cards of one suit; more cards with five of a suit among them search every five."""
    t = sum(map(_KEY_AT, cards), SUIT_OFFSET)
    if not 5 <= len(cards) <= 8:
        return _best(cards, five)  # raises ValueError
    if not t & FLUSH_BITS:
        return no_flush[t >> RANK_SHIFT]
    if len(cards) == 5:
        return flush[t >> RANK_SHIFT]
    return _best(cards, five)  # a flush may count (against) here


def fill_tables() -> None:
    """Compute now every entry the five-card deuce-to-seven tables and the five-to-seven-card
    ace-to-six table can hold (they fill on first use otherwise; about a second): for
    benchmarks and long runs, like :func:`arena.engine.evaluate.fill_tables`."""
    for size in (5, 6, 7):
        for ranks in combinations_with_replacement(range(13), size):
            if max(map(ranks.count, ranks)) > 4:
                continue
            rank_key = sum(5 ** r for r in ranks)
            _ = _A6[rank_key]
            if size == 5:
                _ = _D27[rank_key]
                if len(set(ranks)) == 5:
                    _ = _D27_FLUSH[rank_key], _A6_FLUSH[rank_key]
