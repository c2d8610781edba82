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

from arena.engine.cards import RANKS, Card
from arena.engine.handvalue import CLASS_SHIFT, HIGH_CARD, RANK_NAMES, RANK_PLURALS, high_words
from arena.engine.lowball import LOWBALL_BASE, ace_to_six_value, deuce_to_seven_value


def lowball_words(value: int, *, ace_low: bool) -> str:
    """Words for a :mod:`arena.engine.lowball` value (``ace_low``: ace-to-six, else 2-7)."""
    high = LOWBALL_BASE - value
    ranks = high_words(high)[1]  # grouped, the biggest group first (9-9-7-4-2, 9-9-4-4-2)
    if ace_low:
        ranks = [(r - 1) % 13 for r in ranks]  # from the ace-low order back to deuce 0 .. ace 12
    shown = "-".join(RANKS[r] for r in ranks)
    name, plural = RANK_NAMES[ranks[0]], RANK_PLURALS[ranks[0]]
    category = high >> CLASS_SHIFT
    if category == HIGH_CARD:
        return f"{name}-{RANK_NAMES[ranks[1]]} low: {shown}"
    words = ("", f"a pair of {plural}", f"two pair, {plural} and {RANK_PLURALS[ranks[2]]}",
             f"three {plural}", f"a straight, {name} high", f"a flush, {name} high",
             f"a full house, {plural} full of {RANK_PLURALS[ranks[3]]}", f"four {plural}",
             f"a straight flush, {name} high")[category]
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
