"""What a hand value means: its layout (a class and five 4-bit ranks), its class and its words.

`arena.engine.evaluate` computes the values; this module reads them. Bigger is better and equal
is a tie, for high and low values alike (a low value counts down from `LOW_BASE`).
"""

from __future__ import annotations

from collections.abc import Sequence
from enum import StrEnum
from functools import cache
from typing import Final

__all__ = [
    "CLASS_SHIFT",
    "LOW_BASE",
    "RANK_NAMES",
    "RANK_PLURALS",
    "RANK_WEIGHTS",
    "HandClass",
    "describe_high",
    "describe_low",
    "hand_class",
    "high_rank_key",
    "high_words",
    "is_flush_value",
    "low_rank_key",
    "pack",
]

# A rank's weight in a rank key (`arena.engine.evaluate.RANK_KEY`): base 5, since a rank
# occurs at most four times, so the sum identifies the ranks of a hand.
RANK_WEIGHTS: Final[tuple[int, ...]] = tuple(5 ** rank for rank in range(13))  # deuce .. ace

_ACE = 12
RANK_NAMES = ("deuce", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "jack",
          "queen", "king", "ace")
RANK_PLURALS = ("deuces", "threes", "fours", "fives", "sixes", "sevens", "eights", "nines", "tens",
            "jacks", "queens", "kings", "aces")
_HIGH_CHARS = "23456789TJQKA"
_LOW_CHARS = "A23456789TJQK"


class HandClass(StrEnum):
    """The nine classes of a high hand, best first."""

    STRAIGHT_FLUSH = "straight flush"
    FOUR_OF_A_KIND = "four of a kind"
    FULL_HOUSE = "full house"
    FLUSH = "flush"
    STRAIGHT = "straight"
    THREE_OF_A_KIND = "three of a kind"
    TWO_PAIR = "two pair"
    ONE_PAIR = "one pair"
    HIGH_CARD = "high card"


# A high value is class << 20 | five 4-bit ranks in the order they are compared; the classes,
# worst first, are these numbers (public for the evaluators).
(HIGH_CARD, ONE_PAIR, TWO_PAIR, TRIPS, STRAIGHT, FLUSH, FULL_HOUSE, QUADS,
 STRAIGHT_FLUSH) = range(9)
_CLASS_OF: Final[tuple[HandClass, ...]] = tuple(reversed(HandClass))
CLASS_SHIFT: Final = 20
# Low values count down from here, so that bigger is better there too.
LOW_BASE: Final = 6 << CLASS_SHIFT
# Categories of an ace-to-five low, best first (straights and flushes do not exist there).
NO_PAIR, LOW_PAIR, LOW_TWO_PAIR, LOW_TRIPS, LOW_FULL_HOUSE, LOW_QUADS = range(6)


def pack(category: int, ranks: Sequence[int]) -> int:
    """A value of ``category`` and up to five ranks (compared in order; missing ones are 0)."""
    value = category
    for rank in ranks:
        value = value << 4 | rank
    return value << 4 * (5 - len(ranks))


def hand_class(high_value: int) -> HandClass:
    """Class of a value returned by `high_value`, `omaha_high_value` or `showing_high_value`."""
    return _CLASS_OF[high_value >> CLASS_SHIFT]


def _nibbles(value: int) -> list[int]:
    return [value >> shift & 15 for shift in (16, 12, 8, 4, 0)]


def high_words(value: int) -> tuple[str, list[int]]:
    """The words of a high value after its class, and its five ranks as its hand shows them
    (e.g. K-K-K-7-7, a straight's from its top down)."""
    category = value >> CLASS_SHIFT
    ranks = _nibbles(value)
    first, second = ranks[0], ranks[1]
    if category in (STRAIGHT, STRAIGHT_FLUSH):
        cards = [first - i for i in range(5)] if first > 3 else [3, 2, 1, 0, _ACE]
        text = f"{RANK_NAMES[first]} high"
    elif category == QUADS:
        cards = [first] * 4 + [second]
        text = RANK_PLURALS[first]
    elif category == FULL_HOUSE:
        cards = [first] * 3 + [second] * 2
        text = f"{RANK_PLURALS[first]} over {RANK_PLURALS[second]}"
    elif category == TRIPS:
        cards = [first] * 3 + ranks[1:3]
        text = RANK_PLURALS[first]
    elif category == TWO_PAIR:
        cards = [first, first, second, second, ranks[2]]
        text = f"{RANK_PLURALS[first]} and {RANK_PLURALS[second]}"
    elif category == ONE_PAIR:
        cards = [first, first, *ranks[1:4]]
        text = RANK_PLURALS[first]
    else:
        cards = ranks
        text = f"{RANK_NAMES[first]} high"
    return text, cards


# The words and rank keys below are memoized (``cache``): each depends on the value alone,
# there are a few thousand values at most, and every hand shown at a showdown asks for them
# (``arena.engine.shown``, per shown hand on the dealer's thread).
@cache
def describe_high(value: int) -> str:
    """Words for a high value, e.g. ``'full house, kings over sevens (K-K-K-7-7)'``."""
    category = value >> CLASS_SHIFT
    if category == STRAIGHT_FLUSH and value >> 16 & 15 == _ACE:
        return "royal flush"
    text, cards = high_words(value)
    return f"{_CLASS_OF[category]}, {text} ({'-'.join(_HIGH_CHARS[r] for r in cards)})"


@cache
def high_rank_key(value: int) -> int:
    """``sum(RANK_KEY[c] for c in five)`` of every five cards whose high value is ``value``
    (with `is_flush_value`: those five are of one suit; else they are not)."""
    return sum(RANK_WEIGHTS[rank] for rank in high_words(value)[1])


def is_flush_value(value: int) -> bool:
    """Whether a high value is a flush or a straight flush (five cards of one suit)."""
    return value >> CLASS_SHIFT in (FLUSH, STRAIGHT_FLUSH)


def _low_words(value: int) -> tuple[str, list[int]]:
    """The words of a low value before its cards ("" without a pair), and its five ranks
    ace-to-five (the ace 0, the deuce 1, ..., the king 12), as shown."""
    badness = LOW_BASE - value
    category = badness >> CLASS_SHIFT
    ranks = _nibbles(badness)
    first, second = ranks[0], ranks[1]
    if category == NO_PAIR:
        return "", ranks
    if category == LOW_PAIR:
        cards, text = [first, first, *ranks[1:4]], f"pair of {_low_plural(first)}"
    elif category == LOW_TWO_PAIR:
        cards = [first, first, second, second, ranks[2]]
        text = f"two pair, {_low_plural(first)} and {_low_plural(second)}"
    elif category == LOW_TRIPS:
        cards, text = [first] * 3 + ranks[1:3], f"three {_low_plural(first)}"
    elif category == LOW_FULL_HOUSE:
        cards = [first] * 3 + [second] * 2
        text = f"full house, {_low_plural(first)} over {_low_plural(second)}"
    else:
        cards, text = [first] * 4 + [second], f"four {_low_plural(first)}"
    return text, cards


@cache
def describe_low(value: int) -> str:
    """Words for a `low_value` or `low8_value`: ``'7-5-4-2-A'``, ``'pair of fours, 4-4-6-3-A'``."""
    text, cards = _low_words(value)
    shown = "-".join(_LOW_CHARS[r] for r in cards)
    return f"{text}, {shown}" if text else shown


@cache
def low_rank_key(value: int) -> int:
    """``sum(RANK_KEY[c] for c in five)`` of every five cards whose `low_value` (or
    `low8_value`) is ``value``."""
    return sum(RANK_WEIGHTS[(rank - 1) % 13] for rank in _low_words(value)[1])  # ace-to-five


def _low_plural(low_rank: int) -> str:
    return RANK_PLURALS[(low_rank - 1) % 13]
