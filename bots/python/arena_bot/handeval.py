"""A tiny, slow-but-clear hand evaluator for example bots (the SDK installs without arena).

Cards are PHH strings ("Ah", "Td"). High values are tuples compared as tuples (bigger is
better: category first, 8 = straight flush ... 0 = high card). Low values are tuples of ranks
from the highest down with the ace as 1 (smaller is better).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
from itertools import combinations, product

RANKS = "23456789TJQKA"
HIGH_CARD, PAIR, TWO_PAIR, TRIPS, STRAIGHT, FLUSH, FULL_HOUSE, QUADS, STRAIGHT_FLUSH = range(9)


def rank(card: str) -> int:
    """2 .. 14 (ace high)."""
    return RANKS.index(card[0].upper()) + 2


def low_rank(card: str) -> int:
    """1 .. 13 (ace low)."""
    r = rank(card)
    return 1 if r == 14 else r


def suit(card: str) -> str:
    return card[1].lower()


def _groups(ranks: Iterable[int]) -> list[tuple[int, int]]:
    """(rank, count), biggest groups first, then higher ranks."""
    return sorted(Counter(ranks).items(), key=lambda rc: (rc[1], rc[0]), reverse=True)


def high5(cards: Sequence[str]) -> tuple[int, ...]:
    """The value of exactly five cards."""
    ranks = sorted((rank(c) for c in cards), reverse=True)
    groups = _groups(ranks)
    flush = len({suit(c) for c in cards}) == 1
    distinct = sorted(set(ranks), reverse=True)
    top = 0
    if len(distinct) == 5:
        if distinct[0] - distinct[4] == 4:
            top = distinct[0]
        elif distinct == [14, 5, 4, 3, 2]:
            top = 5
    if top and flush:
        return (STRAIGHT_FLUSH, top)
    if groups[0][1] == 4:
        return (QUADS, groups[0][0], groups[1][0])
    if groups[0][1] == 3 and groups[1][1] == 2:
        return (FULL_HOUSE, groups[0][0], groups[1][0])
    if flush:
        return (FLUSH, *ranks)
    if top:
        return (STRAIGHT, top)
    return partial_high(cards)


def partial_high(cards: Sequence[str]) -> tuple[int, ...]:
    """Pairs, trips and quads only (stud showing hands, fewer than five cards)."""
    groups = _groups(rank(c) for c in cards)
    if not groups:
        return (HIGH_CARD,)
    counts = [n for _, n in groups]
    ranks = [r for r, _ in groups]
    if counts[0] == 4:
        return (QUADS, *ranks)
    if counts[0] == 3:
        return (FULL_HOUSE if len(counts) > 1 and counts[1] >= 2 else TRIPS, *ranks)
    if counts[0] == 2:
        return (TWO_PAIR if len(counts) > 1 and counts[1] == 2 else PAIR, *ranks)
    return (HIGH_CARD, *ranks)


def best_high(cards: Sequence[str]) -> tuple[int, ...]:
    """Best high hand of any number of cards (partial below five)."""
    if len(cards) < 5:
        return partial_high(cards)
    return max(high5(five) for five in combinations(cards, 5))


def best_omaha_high(hole: Sequence[str], board: Sequence[str]) -> tuple[int, ...]:
    if len(board) < 3:
        return partial_high(hole)
    return max(high5(a + b) for a, b in product(combinations(hole, 2), combinations(board, 3)))


def low5(cards: Sequence[str], *, eight: bool) -> tuple[int, ...] | None:
    """Ace-to-five value of five cards; with ``eight`` None unless five distinct ranks <= 8."""
    ranks = sorted((low_rank(c) for c in cards), reverse=True)
    if eight and (len(set(ranks)) < 5 or ranks[0] > 8):
        return None
    pairs = len(ranks) - len(set(ranks))
    return (pairs, *ranks)


def best_low(cards: Sequence[str], *, eight: bool) -> tuple[int, ...] | None:
    values = [v for five in combinations(cards, 5) if (v := low5(five, eight=eight)) is not None]
    return min(values, default=None)


def best_omaha_low(hole: Sequence[str], board: Sequence[str]) -> tuple[int, ...] | None:
    if len(board) < 3:
        return None
    values = [v for a, b in product(combinations(hole, 2), combinations(board, 3))
              if (v := low5(a + b, eight=True)) is not None]
    return min(values, default=None)


def low_cards(cards: Iterable[str], *, limit: int = 8) -> list[int]:
    """The distinct ace-low ranks at most ``limit`` among the cards, lowest first."""
    return sorted({low_rank(c) for c in cards if low_rank(c) <= limit})


def flush_draw(cards: Sequence[str]) -> bool:
    """Four or more cards of one suit."""
    return max(Counter(suit(c) for c in cards).values(), default=0) >= 4
