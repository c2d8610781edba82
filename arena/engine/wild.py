"""Hand values with wild cards (docs/house-rules.md §23 seven-card stud with wild cards, §24 Low Hole).

docs/house-rules.md §23 Practice: a wild card stands for any card of any rank and
suit, also one the hand already holds, so five of a kind exists and ranks above a straight
flush; a hand made with wild cards ties the same natural hand. For low (ace-to-five) a wild
card is the lowest rank the hand does not hold yet.

Every value here is on one scale for all hands of a wild-card game, natural or not (bigger is
better); a natural high hand's value is :func:`arena.engine.evaluate.high_value`'s.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from functools import cache
from itertools import combinations, combinations_with_replacement
from typing import Final

from arena.engine import handvalue as hv
from arena.engine.evaluate import RANK_KEY, LazyTable, high_value, ranks_of

_ACE = 12
FIVE_OF_A_KIND: Final = 9  # the class of five of a kind, above a straight flush
_WHEEL: Final = frozenset((_ACE, 0, 1, 2, 3))


def five_high_value(ranks: Sequence[int], flush: bool, *, wheel: bool = True) -> int:
    """The high value of five cards given their ranks (deuce 0 .. ace 12, repeats allowed up to
    five of a kind) and whether they are of one suit: for natural hands the very value of
    :func:`arena.engine.evaluate.high_value`, five of a kind a class above. ``wheel=False``:
    A-2-3-4-5 is no straight (the lowball orders of :mod:`arena.engine.lowball`)."""
    counts: dict[int, int] = {}
    for rank in ranks:
        counts[rank] = counts.get(rank, 0) + 1
    groups = sorted(((c, r) for r, c in counts.items()), reverse=True)
    order = [r for _, r in groups]  # each rank once, by group: as evaluate.high_value packs
    sizes = [c for c, _ in groups]
    distinct = len(counts) == 5
    straight_top = -1
    if distinct:
        if max(ranks) - min(ranks) == 4:
            straight_top = max(ranks)
        elif wheel and set(ranks) == _WHEEL:
            straight_top = 3
    if sizes[0] == 5:
        category = FIVE_OF_A_KIND
    elif straight_top >= 0 and flush:
        category, order = hv.STRAIGHT_FLUSH, [straight_top]
    elif sizes[0] == 4:
        category = hv.QUADS
    elif sizes[:2] == [3, 2]:
        category = hv.FULL_HOUSE
    elif flush:
        category = hv.FLUSH
    elif straight_top >= 0:
        category, order = hv.STRAIGHT, [straight_top]
    elif sizes[0] == 3:
        category = hv.TRIPS
    elif sizes[:2] == [2, 2]:
        category = hv.TWO_PAIR
    elif sizes[0] == 2:
        category = hv.ONE_PAIR
    else:
        category = hv.HIGH_CARD
    return hv.pack(category, order)


@cache
def _best_completion(natural_ranks: tuple[int, ...], flush: bool, wilds: int) -> int:
    """The best high value of ``natural_ranks`` (sorted) and ``wilds`` wild cards (five in
    all); ``flush``: the natural cards are of one suit (or none), so the wild cards can be too.
    Every rank for every wild card is tried (suits matter only for a flush)."""
    best = -1
    for extra in combinations_with_replacement(range(13), wilds):
        value = five_high_value((*natural_ranks, *extra), flush)
        if value > best:
            best = value
    return best


def _best_of_ranks(key: int) -> int:
    """The best high value, flushes aside, of the natural ranks of a rank key and some wild
    cards (``key``: ``rank_key << 4 | wilds``): the best of every ``5 - wilds`` naturals
    completed by the wild cards."""
    wilds = key & 15
    return max(_best_completion(five, False, wilds)
               for five in combinations(ranks_of(key >> 4), 5 - wilds))


def _best_of_suit(key: int) -> int:
    """The best high value of ``5 - wilds`` naturals of one suit completed by ``wilds`` wild
    cards of that suit (``key``: ``rank_mask << 4 | wilds``, a 13-bit mask): a flush at least."""
    wilds = key & 15
    ranks = [r for r in range(13) if key >> (r + 4) & 1]
    return max(_best_completion(five, True, wilds) for five in combinations(ranks, 5 - wilds))


# By natural ranks (rank key) and by one suit's natural ranks (13-bit mask), each with the
# number of wild cards: a hand's value is the better of the two (a flush only counts better).
_BY_RANKS: Final = LazyTable[int](_best_of_ranks)
_BY_SUIT: Final = LazyTable[int](_best_of_suit)
_RANK_KEY: Final = RANK_KEY
_RANK_BIT: Final = tuple(1 << (card >> 2) for card in range(52))


def wild_high_value(cards: Sequence[int], wild_ranks: Collection[int]) -> int:
    """Best five-card high hand of 5 to 8 distinct cards, every card of ``wild_ranks`` wild."""
    naturals = [c for c in cards if c >> 2 not in wild_ranks]
    wilds = min(len(cards) - len(naturals), 5)
    if not wilds and len(cards) <= 7:
        return high_value(cards)  # no wild card: the natural value, on the same scale
    need = 5 - wilds
    if len(naturals) < need:
        return -1  # fewer than five cards: no hand
    rank_key = 0
    for card in naturals:
        rank_key += _RANK_KEY[card]
    best = _BY_RANKS[rank_key << 4 | wilds]
    if wilds < 5:
        # A flush: ``need`` naturals of one suit, completed by the wild cards.
        masks = [0, 0, 0, 0]
        for card in naturals:
            masks[card & 3] |= _RANK_BIT[card]
        for mask in masks:
            if mask.bit_count() >= need:
                value = _BY_SUIT[mask << 4 | wilds]
                if value > best:
                    best = value
    return best


# Ace-to-five low with wild cards: badness of the best five, smaller is better, as a value
# that is bigger for better hands (like every low value of the engine).
_LOW_BASE: Final = 1 << 24


def _low_five_badness(low_ranks: Sequence[int]) -> int:
    """Ace-to-five badness of five ranks (ace 0 .. king 12): pairs and worse first, then from
    the highest card down (straights and flushes do not count)."""
    counts: dict[int, int] = {}
    for rank in low_ranks:
        counts[rank] = counts.get(rank, 0) + 1
    groups = sorted(((c, r) for r, c in counts.items()), reverse=True)
    sizes = tuple(c for c, _ in groups)
    # No pair < one pair < two pair < trips < full house < quads < five of a kind.
    category = {(1, 1, 1, 1, 1): 0, (2, 1, 1, 1): 1, (2, 2, 1): 2, (3, 1, 1): 3, (3, 2): 4,
                (4, 1): 5, (5,): 6}[sizes]
    return hv.pack(category, [rank for _, rank in groups])


def wild_low_value(cards: Sequence[int], wild_ranks: Collection[int], *,
                   eight_or_better: bool = False) -> int | None:
    """Best ace-to-five low of 5 to 8 distinct cards with ``wild_ranks`` wild: each wild card
    becomes the lowest rank the hand does not hold yet. ``eight_or_better``: None unless the
    low has five distinct ranks of eight or lower."""
    rank_key = 0
    wilds = 0
    for card in cards:
        if card >> 2 in wild_ranks:
            wilds += 1
        else:
            rank_key += _RANK_KEY[card]
    table = _LOW8_BY_RANKS if eight_or_better else _LOW_BY_RANKS
    value = table[rank_key << 4 | wilds]
    return None if value < 0 else value


def _low_of_ranks(key: int, eight_or_better: bool) -> int:
    """`wild_low_value` of natural ranks and wild cards (``key``: ``rank_key << 4 | wilds``);
    -1: none."""
    wilds = key & 15
    natural = [r + 1 if r != _ACE else 0 for r in ranks_of(key >> 4)]  # ace-to-five ranks
    ranks = set(natural)
    for _ in range(wilds):
        ranks.add(next(r for r in range(13) if r not in ranks))  # the lowest rank not held
        if len(ranks) == 13:
            break
    # Fewer than five distinct ranks even with the wild cards: some pair is needed.
    best = sorted(ranks)[:5] if len(ranks) >= 5 else _paired_low(natural, wilds)
    if eight_or_better and (len(set(best)) < 5 or max(best) > 7):
        return -1
    return _LOW_BASE - _low_five_badness(sorted(best, reverse=True))


_LOW_BY_RANKS: Final = LazyTable[int](lambda key: _low_of_ranks(key, False))
_LOW8_BY_RANKS: Final = LazyTable[int](lambda key: _low_of_ranks(key, True))


def _paired_low(natural: Sequence[int], wilds: int) -> list[int]:
    """The best low of a hand too short of ranks for five distinct ones (brute force over
    the wild cards' ranks; at most a few such hands); ``natural``: ace-to-five ranks."""
    best: tuple[int, list[int]] | None = None
    for extra in combinations_with_replacement(range(13), wilds):
        for five in combinations((*natural, *extra), 5):
            badness = _low_five_badness(sorted(five, reverse=True))
            if best is None or badness < best[0]:
                best = (badness, list(five))
    assert best is not None
    return best[1]


def fill_tables() -> None:
    """Compute now every entry the tables above can hold for five to seven cards (they fill on
    first use otherwise; a few seconds): for benchmarks and long runs, like
    :func:`arena.engine.evaluate.fill_tables`."""
    for naturals in range(8):
        for ranks in combinations_with_replacement(range(13), naturals):
            if naturals and max(map(ranks.count, ranks)) > 4:
                continue
            rank_key = sum(5 ** r for r in ranks)
            for wilds in range(max(0, 5 - naturals), 8 - naturals):
                _ = _LOW_BY_RANKS[rank_key << 4 | wilds], _LOW8_BY_RANKS[rank_key << 4 | wilds]
                if 1 <= wilds <= 5:
                    _ = _BY_RANKS[rank_key << 4 | wilds]
    for mask in range(1, 1 << 13):
        bits = mask.bit_count()
        for wilds in range(max(1, 5 - bits), min(5, 8 - bits)):
            _ = _BY_SUIT[mask << 4 | wilds]


def low_hole_wild_ranks(cards: Sequence[int], is_up: Sequence[bool], *,
                        ace_high: bool = True) -> frozenset[int]:
    """docs/house-rules.md §24 Low Hole: the rank of the seat's lowest down card is wild for it;
    the seventh card, dealt down, changes it when it is lower. ``ace_high`` (the key
    `low_hole_ace_high`): an ace is the highest rank, else the lowest."""
    down = [c >> 2 for c, up in zip(cards, is_up, strict=True) if not up]
    if not down:
        return frozenset()
    if not ace_high and _ACE in down:
        return frozenset((_ACE,))
    return frozenset((min(down),))


def low_hole_low_wild_ranks(cards: Sequence[int], is_up: Sequence[bool]) -> frozenset[int]:
    """docs/house-rules.md §24 Low Hole as a high-low game, the low half: with an ace among the seat's
    down cards the aces are wild (for low only); otherwise the same rank as for high."""
    down = [c >> 2 for c, up in zip(cards, is_up, strict=True) if not up]
    if _ACE in down:
        return frozenset((_ACE,))
    return frozenset((min(down),)) if down else frozenset()
