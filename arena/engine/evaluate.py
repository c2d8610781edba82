"""Hand values for high, ace-to-five low, eight-or-better low, Omaha and stud showing hands.

What a value means (its class, its words) is `arena.engine.handvalue`.

Each value is an int, bigger is better, equal is a tie; cards (distinct) are not validated here.
"""

from __future__ import annotations

import operator
from collections.abc import Callable, Iterable, Mapping, Sequence
from itertools import combinations, combinations_with_replacement, product, starmap
from operator import add
from typing import Final, TypeVar

from arena.engine import handvalue as hv

# The words and classes of values live in arena.engine.handvalue; named here too, as before.
from arena.engine.handvalue import HandClass as HandClass
from arena.engine.handvalue import describe_high as describe_high
from arena.engine.handvalue import describe_low as describe_low
from arena.engine.handvalue import hand_class as hand_class
from arena.engine.handvalue import high_rank_key as high_rank_key
from arena.engine.handvalue import is_flush_value as is_flush_value
from arena.engine.handvalue import low_rank_key as low_rank_key

__all__ = [
    "FLUSH_BITS",
    "KEY",
    "RANK_KEY",
    "RANK_SHIFT",
    "SHOWING_HIGH_BY_RANK_KEY",
    "SHOWING_LOW_BY_RANK_KEY",
    "SUIT_OFFSET",
    "HandClass",
    "LazyTable",
    "describe_high",
    "describe_low",
    "fill_tables",
    "hand_class",
    "high_rank_key",
    "high_value",
    "high_value_from_keys",
    "is_flush_value",
    "low8_value",
    "low_rank_key",
    "low_value",
    "omaha_high_value",
    "omaha_low8_value",
    "ranks_of",
    "showing_high_value",
    "showing_low_value",
]

# A card key packs two counters that one builtin sum() can add for a whole hand:
# bits 16.. hold the ranks as a base-5 number (a rank occurs at most 4 times, so the sum
# identifies the rank multiset), bits 0..15 hold one 4-bit counter per suit.
RANK_SHIFT: Final = 16
RANK_KEY: Final[tuple[int, ...]] = tuple(hv.RANK_WEIGHTS[card >> 2] for card in range(52))
KEY: Final[tuple[int, ...]] = tuple(
    hv.RANK_WEIGHTS[card >> 2] << RANK_SHIFT | 1 << (4 * (card & 3)) for card in range(52)
)
# Starting each suit counter at 3 makes its top bit the flag "five or more of this suit".
SUIT_OFFSET: Final = 0x3333
FLUSH_BITS: Final = 0x8888

_ACE = 12
# Short private names for the hot paths (a module global lookup is as cheap as any).
_R = RANK_KEY
_KEY_AT = KEY.__getitem__
_RANK_KEY_AT = RANK_KEY.__getitem__
_S: Final[tuple[int, ...]] = tuple(1 << (4 * (card & 3)) for card in range(52))
_SUIT_KEY_AT = _S.__getitem__
_RANK_BIT: Final[tuple[int, ...]] = tuple(1 << (card >> 2) for card in range(52))
# Ace-to-five order ranks the ace 0, the deuce 1, ..., the eight 7: a bit per low rank.
_LOW8_BIT: Final[tuple[int, ...]] = tuple(
    1 << ((card >> 2) + 1) % 13 if (card >> 2) in (*range(7), _ACE) else 0
    for card in range(52)
)

_V = TypeVar("_V")


class LazyTable(dict[int, _V]):
    """A dict that computes a missing value on first use, so that import stays instant."""

    __slots__ = ("_compute",)

    def __init__(self, compute: Callable[[int], _V]) -> None:
        super().__init__()
        self._compute = compute

    def __missing__(self, key: int) -> _V:
        value = self._compute(key)
        self[key] = value
        return value


def _rank_counts(rank_key: int) -> list[int]:
    counts = []
    for _ in range(13):
        rank_key, count = divmod(rank_key, 5)
        counts.append(count)
    if rank_key:
        raise ValueError("not a rank key of 13 ranks")
    return counts


def ranks_of(rank_key: int) -> list[int]:
    """The ranks (deuce 0 .. ace 12, each as often as it occurs, lowest first) of a rank key."""
    ranks: list[int] = []
    for rank in range(13):
        rank_key, count = divmod(rank_key, 5)
        ranks += [rank] * count
    return ranks


def _checked_counts(rank_key: int, low: int, high: int) -> list[int]:
    counts = _rank_counts(rank_key)
    if not low <= sum(counts) <= high:
        raise ValueError(f"expected {low} to {high} cards, got {sum(counts)}")
    return counts


# Straights best first as (top rank, rank mask); the wheel A-2-3-4-5 is the lowest, five high.
_STRAIGHTS: Final[tuple[tuple[int, int], ...]] = (
    *((top, 0b11111 << (top - 4)) for top in range(_ACE, 3, -1)),
    (3, 0b1111 | 1 << _ACE),
)


def _straight_top(mask: int) -> int:
    for top, straight in _STRAIGHTS:
        if mask & straight == straight:
            return top
    return -1


def _high_from_rank_key(rank_key: int) -> int:
    """Best high value of 5 to 7 cards that hold no flush."""
    counts = _checked_counts(rank_key, 5, 7)
    present = [r for r in range(_ACE, -1, -1) if counts[r]]
    fours = [r for r in present if counts[r] == 4]
    threes = [r for r in present if counts[r] == 3]
    twos = [r for r in present if counts[r] == 2]
    if fours:
        quad = fours[0]
        return hv.pack(hv.QUADS, (quad, next(r for r in present if r != quad)))
    if threes and (len(threes) > 1 or twos):
        trips = threes[0]
        return hv.pack(hv.FULL_HOUSE, (trips, max(threes[1:] + twos)))
    top = _straight_top(sum(1 << r for r in present))
    if top >= 0:
        return hv.pack(hv.STRAIGHT, (top,))
    if threes:
        trips = threes[0]
        return hv.pack(hv.TRIPS, (trips, *[r for r in present if r != trips][:2]))
    if len(twos) >= 2:
        high, low = twos[:2]
        return hv.pack(hv.TWO_PAIR, (high, low, next(r for r in present if r not in (high, low))))
    if twos:
        pair = twos[0]
        return hv.pack(hv.ONE_PAIR, (pair, *[r for r in present if r != pair][:3]))
    return hv.pack(hv.HIGH_CARD, present[:5])


def _flush_from_mask(mask: int) -> int:
    """Best high value of the cards of one suit, given as a 13-bit rank mask with >= 5 bits."""
    if mask.bit_count() < 5 or mask >> 13:
        raise ValueError("a flush needs five or more ranks of one suit")
    top = _straight_top(mask)
    if top >= 0:
        return hv.pack(hv.STRAIGHT_FLUSH, (top,))
    return hv.pack(hv.FLUSH, [r for r in range(_ACE, -1, -1) if mask >> r & 1][:5])


def _low_badness(counts_by_low_rank: Sequence[int]) -> int:
    """Ace-to-five badness (smaller is better) of the best five of 5 to 7 cards, ranks ace-low."""
    present = [r for r in range(13) if counts_by_low_rank[r]]
    if len(present) >= 5:
        return hv.pack(hv.NO_PAIR, present[4::-1])
    # Too few distinct ranks: pair the lowest ranks that can be paired, as few times as
    # possible, because any pair is worse than no pair and two pair worse than one.
    pairable = [r for r in present if counts_by_low_rank[r] >= 2]
    if len(present) == 4:
        pair = pairable[0]
        return hv.pack(hv.LOW_PAIR, (pair, *[r for r in reversed(present) if r != pair]))
    if len(present) == 3 and len(pairable) >= 2:
        low, high = pairable[:2]
        return hv.pack(hv.LOW_TWO_PAIR, (high, low, *[r for r in present if r not in (low, high)]))
    tripable = [r for r in present if counts_by_low_rank[r] >= 3]
    if len(present) == 3:
        trips = tripable[0]
        return hv.pack(hv.LOW_TRIPS, (trips, *[r for r in reversed(present) if r != trips]))
    # Two distinct ranks for five cards: a full house beats four of a kind.
    for trips in tripable:
        rest = [r for r in pairable if r != trips]
        if rest:
            return hv.pack(hv.LOW_FULL_HOUSE, (trips, rest[0]))
    quads = next(r for r in present if counts_by_low_rank[r] == 4)
    return hv.pack(hv.LOW_QUADS, (quads, next(r for r in present if r != quads)))


def _ace_low(counts: Sequence[int]) -> list[int]:
    return [counts[_ACE], *counts[:_ACE]]


def _low_from_rank_key(rank_key: int) -> int:
    counts = _checked_counts(rank_key, 5, 7)
    return hv.LOW_BASE - _low_badness(_ace_low(counts))


def _low8_from_mask(mask: int) -> int:
    """Value of an eight-or-better low given the mask of its five ace-low ranks."""
    return hv.LOW_BASE - hv.pack(hv.NO_PAIR, [r for r in range(7, -1, -1) if mask >> r & 1])


def _low8_from_rank_key(rank_key: int) -> int | None:
    counts = _ace_low(_checked_counts(rank_key, 5, 7))
    low_ranks = [r for r in range(8) if counts[r]]
    if len(low_ranks) < 5:
        return None
    return _low8_from_mask(sum(1 << r for r in low_ranks[:5]))


def _showing_groups(counts: Sequence[int]) -> tuple[int, list[int]]:
    """Category and rank+1 nibbles of up to five cards, the biggest group first.

    Five cards show only when a stud common card joins four up cards (docs/house-rules.md §1).
    """
    groups = sorted(((c, r) for r, c in enumerate(counts) if c), reverse=True)
    sizes = [c for c, _ in groups]
    if sizes[0] == 4:
        category = hv.QUADS
    elif sizes[0] == 3:
        category = hv.FULL_HOUSE if sizes[1:2] == [2] else hv.TRIPS
    elif sizes.count(2) == 2:
        category = hv.TWO_PAIR
    elif sizes[0] == 2:
        category = hv.ONE_PAIR
    else:
        category = hv.HIGH_CARD
    # rank + 1 so that a missing card (0) sorts below a deuce when fewer cards show.
    return category, [r + 1 for _, r in groups]


def _showing_high_from_rank_key(rank_key: int) -> int:
    category, ranks = _showing_groups(_checked_counts(rank_key, 1, 5))
    return hv.pack(category, ranks)


_LOW_CATEGORY_OF_HIGH = {hv.HIGH_CARD: hv.NO_PAIR, hv.ONE_PAIR: hv.LOW_PAIR,
                         hv.TWO_PAIR: hv.LOW_TWO_PAIR, hv.TRIPS: hv.LOW_TRIPS,
                         hv.FULL_HOUSE: hv.LOW_FULL_HOUSE, hv.QUADS: hv.LOW_QUADS}


def _showing_low_from_rank_key(rank_key: int) -> int:
    # Ace-low ranks in the same group order as for high, read as badness: the biggest group
    # first, then the highest rank of a group size first (lower is better there).
    category, ranks = _showing_groups(_ace_low(_checked_counts(rank_key, 1, 5)))
    return hv.LOW_BASE - hv.pack(_LOW_CATEGORY_OF_HIGH[category], ranks)


_HIGH: Final = LazyTable[int](_high_from_rank_key)
_FLUSH_TABLE: Final = LazyTable[int](_flush_from_mask)
_LOW: Final = LazyTable[int](_low_from_rank_key)
_LOW8: Final = LazyTable[int | None](_low8_from_rank_key)
_SHOWING_HIGH: Final = LazyTable[int](_showing_high_from_rank_key)
_SHOWING_LOW: Final = LazyTable[int](_showing_low_from_rank_key)
_HIGH_AT = _HIGH.__getitem__


def _omaha_low8_from_masks(masks: int) -> int | None:
    """Best low of two hole and three board low ranks, given the masks as hole << 8 | board."""
    hole = [1 << r for r in range(8) if masks >> (8 + r) & 1]
    board = [1 << r for r in range(8) if masks >> r & 1]
    # Five distinct ranks compare from the highest down, which is the order of their masks.
    lows = [h | b for h in (x | y for x, y in combinations(hole, 2))
            for b in (x | y | z for x, y, z in combinations(board, 3)) if not h & b]
    return _LOW8_BY_MASK[min(lows)] if lows else None


_OMAHA_LOW8: Final = LazyTable[int | None](_omaha_low8_from_masks)
_LOW8_BY_MASK: Final[dict[int, int]] = {
    sum(1 << r for r in ranks): _low8_from_mask(sum(1 << r for r in ranks))
    for ranks in combinations(range(8), 5)
}


def _flush_value(t: int, cards: Sequence[int]) -> int:
    # At most one suit can reach five in seven cards; its counter is the highest flagged nibble.
    suit = ((t & FLUSH_BITS).bit_length() >> 2) - 1
    mask = 0
    for card in cards:
        if card & 3 == suit:
            mask |= _RANK_BIT[card]
    return _FLUSH_TABLE[mask]


# Seven cards, the showdown of hold'em and stud, have keys of their own that keep every sum
# below 2**30, where CPython adds ints fastest (the KEY sums above take two 30-bit digits):
# bits 0..22 hold a rank key whose sums of 7 ranks (at most 4 of each) are all distinct (each
# key is the smallest that keeps them so), the bits above a suit weight whose sum tells a
# flush from no flush (weights 0, 2, 23, 28: the smallest that do), both minus an offset
# that centres every partial sum on zero.
_RANK7: Final[tuple[int, ...]] = (0, 1, 5, 22, 98, 453, 2031, 8698, 22854, 83661, 262349,
                                  636345, 1479181)
_SUIT7: Final[tuple[int, ...]] = (0, 2, 23, 28)
_SHIFT7: Final = 23
_RANK7_MASK: Final = (1 << _SHIFT7) - 1
_OFFSET7: Final = 14 << _SHIFT7  # 7 offsets are 98 << 23: the rank bits stay exact
_K7: Final[tuple[int, ...]] = tuple(
    (_SUIT7[card & 3] << _SHIFT7) + _RANK7[card >> 2] - _OFFSET7 for card in range(52)
)


def _flush_suit_weights() -> frozenset[int]:
    """The suit weight sums of seven cards that hold five or more of one suit."""
    weights: dict[int, bool] = {}
    for counts in product(range(8), repeat=4):
        if sum(counts) == 7:
            weight = sum(map(operator.mul, counts, _SUIT7))
            is_flush = max(counts) >= 5
            if weights.setdefault(weight, is_flush) != is_flush:
                raise AssertionError(f"suit weight {weight} is ambiguous")
    return frozenset(w for w, is_flush in weights.items() if is_flush)


# ``t >> 23`` of a seven-card sum is its suit weight minus 98 (-98 to 98): a tuple read at
# that index (negative ones from the end) says whether the seven cards hold a flush.
_FLUSH_WEIGHTS: Final = _flush_suit_weights()
_IS_FLUSH7: Final[tuple[bool, ...]] = tuple(
    (index if index < 128 else index - 256) + 98 in _FLUSH_WEIGHTS for index in range(256)
)
_HIGH7: Final[dict[int, int]] = {}  # rank bits of a seven-card sum -> value; filled on use


def high_value(cards: Sequence[int]) -> int:
    """Best five-card high hand of 5 to 7 distinct cards."""
    # The hot path spells out 7 cards: unpacked indexing beats sum(map(...)) by ~40%, and
    # unpacking in a try (free when it succeeds) beats asking len() first.
    try:
        a, b, c, d, e, f, g = cards
    except ValueError:
        return _high_value_any(cards)
    t = _K7[a] + _K7[b] + _K7[c] + _K7[d] + _K7[e] + _K7[f] + _K7[g]
    if _IS_FLUSH7[t >> 23]:
        return _flush_value(sum(map(_KEY_AT, cards), 0x3333), cards)
    try:
        return _HIGH7[t & 0x7FFFFF]
    except KeyError:
        value = _HIGH7[t & 0x7FFFFF] = _HIGH[sum(map(_RANK_KEY_AT, cards))]
        return value


def _high_value_any(cards: Sequence[int]) -> int:
    """`high_value` of 5 or 6 cards (other counts raise ValueError)."""
    t = sum(map(_KEY_AT, cards), 0x3333)
    if t & 0x8888:
        # Five cards of a suit leave at most two others: no quads or full house can beat it.
        return _flush_value(t, cards)
    return _HIGH[t >> 16]


def high_value_from_keys(t: int, cards: Sequence[int]) -> int:
    """`high_value` given ``t = SUIT_OFFSET + sum(KEY[c] for c in cards)``, e.g. a board's
    sum computed once plus each player's hole keys; `cards` is read only for a flush."""
    if t & 0x8888:
        return _flush_value(t, cards)
    return _HIGH[t >> 16]


def low_value(cards: Sequence[int]) -> int:
    """Best ace-to-five (razz) low of 5 to 7 cards; pairs are allowed and rank badly."""
    if len(cards) == 7:
        a, b, c, d, e, f, g = cards
        return _LOW[_R[a] + _R[b] + _R[c] + _R[d] + _R[e] + _R[f] + _R[g]]
    return _LOW[sum(map(_RANK_KEY_AT, cards))]


def low8_value(cards: Sequence[int]) -> int | None:
    """Eight-or-better low of 5 to 7 cards, or None when five distinct ranks 8 or lower are missing.

    A qualifying value equals `low_value` of the same five cards, so the two compare directly.
    """
    if len(cards) == 7:
        a, b, c, d, e, f, g = cards
        return _LOW8[_R[a] + _R[b] + _R[c] + _R[d] + _R[e] + _R[f] + _R[g]]
    return _LOW8[sum(map(_RANK_KEY_AT, cards))]


def omaha_high_value(hole: Sequence[int], board: Sequence[int]) -> int:
    """Best high hand of exactly two hole cards and exactly three of the 3 to 5 board cards."""
    # The 60 two-plus-three rank keys are added and looked up in C (starmap, product, map);
    # the showdown case of 4 + 5 cards spells the 6 pairs and 10 triples out, which is faster.
    if len(hole) == 4 and len(board) == 5:
        a, b, c, d = hole
        p, q, r, s, u = board
        ka, kb, kc, kd = _R[a], _R[b], _R[c], _R[d]
        kp, kq, kr, ks, ku = _R[p], _R[q], _R[r], _R[s], _R[u]
        pq, pr, qr, su = kp + kq, kp + kr, kq + kr, ks + ku
        pairs: Iterable[int] = (ka + kb, ka + kc, ka + kd, kb + kc, kb + kd, kc + kd)
        triples: Iterable[int] = (pq + kr, pq + ks, pq + ku, pr + ks, pr + ku, kp + su,
                                  qr + ks, qr + ku, kq + su, kr + su)
        hole_suits = _S[a] + _S[b] + _S[c] + _S[d]
        board_suits = _S[p] + _S[q] + _S[r] + _S[s] + _S[u]
    else:
        pairs = starmap(add, combinations(map(_RANK_KEY_AT, hole), 2))
        triples = map(sum, combinations(map(_RANK_KEY_AT, board), 3))
        hole_suits = sum(map(_SUIT_KEY_AT, hole))
        board_suits = sum(map(_SUIT_KEY_AT, board))
    best = max(map(_HIGH_AT, starmap(add, product(pairs, triples))))
    # A flush needs two hole cards and three board cards of one suit: +6 and +5 flag those.
    suited = (hole_suits + 0x6666) & (board_suits + 0x5555) & FLUSH_BITS
    if not suited:
        return best
    suit = (suited.bit_length() >> 2) - 1
    hole_bits = [_RANK_BIT[c] for c in hole if c & 3 == suit]
    board_bits = [_RANK_BIT[c] for c in board if c & 3 == suit]
    flushes = {a | b | h | i | j for a, b in combinations(hole_bits, 2)
               for h, i, j in combinations(board_bits, 3)}
    return max(best, *map(_FLUSH_TABLE.__getitem__, flushes))


def omaha_low8_value(hole: Sequence[int], board: Sequence[int]) -> int | None:
    """Best eight-or-better low of exactly two hole cards and three board cards, or None."""
    # Only which low ranks each side holds matters, so two 8-bit masks key a small table.
    hole_mask = 0
    for card in hole:
        hole_mask |= _LOW8_BIT[card]
    board_mask = 0
    for card in board:
        board_mask |= _LOW8_BIT[card]
    return _OMAHA_LOW8[hole_mask << 8 | board_mask]


# The two showing tables by ``sum(RANK_KEY[c] for c in up_cards)``, for callers that sum the
# keys themselves (the stud opener, per seat and street).
SHOWING_HIGH_BY_RANK_KEY: Final[Mapping[int, int]] = _SHOWING_HIGH
SHOWING_LOW_BY_RANK_KEY: Final[Mapping[int, int]] = _SHOWING_LOW


def showing_high_value(up_cards: Sequence[int]) -> int:
    """Stud order of 1 to 5 up cards (5: four up cards and a stud common card).

    Quads, full house, trips, two pair, pair, high card, then kickers.

    Straights and flushes do not count. Only hands with the same number of cards are compared.
    """
    return _SHOWING_HIGH[sum(map(_RANK_KEY_AT, up_cards))]


def showing_low_value(up_cards: Sequence[int]) -> int:
    """Razz order of 1 to 5 up cards, ace-to-five: unpaired beats paired, then lower wins from
    the highest card down (pairs: lower pair first, as in `low_value`)."""
    return _SHOWING_LOW[sum(map(_RANK_KEY_AT, up_cards))]


def fill_tables() -> None:
    """Compute now every entry the 5-to-7-card high, low and eight-or-better tables, the
    seven-card table and the stud showing tables (1 to 5 up cards) can hold (they fill on
    first use otherwise). Takes a few seconds: for long runs and benchmarks that should not
    pay for the first uses on the way."""
    for size in range(1, 8):
        for ranks in combinations_with_replacement(range(13), size):
            if max(map(ranks.count, ranks)) > 4:
                continue
            rank_key = sum(5**r for r in ranks)
            if size <= 5:
                _ = _SHOWING_HIGH[rank_key], _SHOWING_LOW[rank_key]
            if size < 5:
                continue
            high = _HIGH[rank_key]
            _ = _LOW[rank_key], _LOW8[rank_key]
            if size == 7:
                _HIGH7[sum(_RANK7[r] for r in ranks)] = high
