"""Showdown words for the lowball games in which straights and flushes count against a hand:
deuce-to-seven (2-7 triple draw, docs/house-rules.md §21) and ace-to-six (London Lowball, §22).

A hand without a pair, straight or flush is named by its two highest cards, as players say it:
``"seven-five low: 7-5-4-3-2"`` (2-7), ``"six-four low: 6-4-3-2-A"`` (ace-to-six). Any other hand
says what counts against it: ``"low with a pair of nines: 9-9-7-4-2"``, ``"low with a straight,
six high: 6-5-4-3-2"`` (2-7; in ace-to-six ``"low with a straight, five high: 5-4-3-2-A"``).

The values come from :mod:`arena.engine.lowball`'s public functions; this module only words them
and finds the five cards that make them.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from itertools import combinations
from typing import Final

from arena.engine.cards import Card
from arena.engine.lowball import ace_to_six_value, describe_lowball, deuce_to_seven_value

_NAME: Final = {"2": "deuce", "3": "three", "4": "four", "5": "five", "6": "six", "7": "seven",
                "8": "eight", "9": "nine", "T": "ten", "J": "jack", "Q": "queen", "K": "king",
                "A": "ace"}
_PLURAL: Final = {r: ("sixes" if r == "6" else f"{name}s") for r, name in _NAME.items()}


def lowball_words(value: int, *, ace_low: bool) -> str:
    """Words for a :mod:`arena.engine.lowball` value (``ace_low``: ace-to-six, else 2-7)."""
    text = describe_lowball(value, ace_low=ace_low)
    kind, _, shown = text.rpartition(", ")
    ranks = shown.split("-")
    first, second = ranks[0], ranks[1]
    if not kind:
        return f"{_NAME[first]}-{_NAME[second]} low: {shown}"
    # Ranks come grouped, the biggest group first (9-9-7-4-2, 9-9-4-4-2, 9-9-9-4-2).
    third = ranks[2]
    words = {
        "pair": f"a pair of {_PLURAL[first]}",
        "two pair": f"two pair, {_PLURAL[first]} and {_PLURAL[third]}",
        "three of a kind": f"three {_PLURAL[first]}",
        "straight": f"a straight, {_NAME[first]} high",
        "flush": f"a flush, {_NAME[first]} high",
        "full house": f"a full house, {_PLURAL[first]} full of {_PLURAL[ranks[3]]}",
        "four of a kind": f"four {_PLURAL[first]}",
        "straight flush": f"a straight flush, {_NAME[first]} high",
    }[kind]
    return f"low with {words}: {shown}"


def _value_function(ace_low: bool) -> Callable[[Sequence[int]], int]:
    return ace_to_six_value if ace_low else deuce_to_seven_value


def lowball_shown(cards: Sequence[Card], *, ace_low: bool) -> tuple[str, tuple[Card, ...]]:
    """The words of the best lowball hand of 5 to 8 cards and the first five cards (in
    ``combinations`` order) that make it; ``("", ())`` with fewer than five cards."""
    if len(cards) < 5:
        return "", ()
    value_of = _value_function(ace_low)
    value = value_of(cards)
    five = next(f for f in combinations(cards, 5) if value_of(f) == value)
    return lowball_words(value, ace_low=ace_low), five
