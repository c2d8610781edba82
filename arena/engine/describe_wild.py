"""Showdown words for hands with wild cards: seven-card stud with wild cards (docs/house-rules.md
§23) and Low Hole (§24, each seat's own wild rank).

The words name the hand made and the wild cards in it:

- high: ``"five of a kind, aces (A-A-A-A-A; two wild: 2c 2h)"``, ``"full house, kings over
  sevens (K-K-K-7-7; one wild: 2s)"``; in Low Hole the seat's wild rank is named:
  ``"three of a kind, kings (K-K-K-9-8; fours wild: 4c)"``;
- low (ace-to-five, §23 Practice: a wild card is the lowest rank the hand does not hold):
  ``"7-5-3-2-A low (one wild: 2d)"``, in Low Hole hi-lo ``"8-6-4-2-A low (aces wild: Ah)"``.

A hand using no wild card is worded as without wild cards (:func:`arena.engine.evaluate.describe_high`,
:func:`arena.engine.evaluate.describe_low`). The values come from :mod:`arena.engine.wild`'s
public functions; this module only finds the five cards that make them and words them.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import dataclass
from itertools import combinations, combinations_with_replacement
from typing import Final

from arena.engine import evaluate as ev
from arena.engine.cards import RANKS, Card, format_card, make_card
from arena.engine.games import LOW_HOLE_SHOWDOWNS as LOW_HOLE_SHOWDOWNS  # named here too, as before
from arena.engine.games import WILD_SHOWDOWNS as WILD_SHOWDOWNS
from arena.engine.games import Showdown, Variant
from arena.engine.handvalue import CLASS_SHIFT, RANK_PLURALS
from arena.engine.rules import Rules
from arena.engine.wild import (
    FIVE_OF_A_KIND,
    low_hole_low_wild_ranks,
    low_hole_wild_ranks,
    wild_high_value,
    wild_low_value,
)

_COUNT: Final = ("no", "one", "two", "three", "four", "five", "six", "seven")
_NO_RANKS: Final[frozenset[int]] = frozenset()


@dataclass(frozen=True, slots=True, kw_only=True)
class SeatWild:
    """The ranks wild for one seat's hand (deuce 0 .. ace 12).

    ``high``: for its high hand; ``low``: for its low hand; ``own``: Low Hole, where the ranks
    are the seat's own (its lowest down card's, §24), named by rank in the words."""

    high: frozenset[int] = _NO_RANKS
    low: frozenset[int] = _NO_RANKS
    own: bool = False


NO_WILD: Final = SeatWild()


def seat_wild(variant: Variant, rules: Rules, cards: Sequence[Card],
              is_up: Sequence[bool]) -> SeatWild:
    """The wild ranks of a seat holding ``cards`` (faces ``is_up``) in ``variant``: the game's
    `wild_ranks` in wild-card stud (§23), the seat's own lowest down card's rank in Low Hole
    (§24; aces for low in hi-lo with an ace in the hole); none in the other games."""
    kind = variant.showdown
    if kind in WILD_SHOWDOWNS:
        ranks = rules.wild_rank_set
        return SeatWild(high=_NO_RANKS if kind is Showdown.WILD_LOW else ranks,
                        low=_NO_RANKS if kind is Showdown.WILD_HIGH else ranks)
    if kind in LOW_HOLE_SHOWDOWNS and len(is_up) == len(cards):
        high = low_hole_wild_ranks(cards, is_up, ace_high=rules.low_hole_ace_high)
        low = low_hole_low_wild_ranks(cards, is_up) if kind is Showdown.LOW_HOLE_HI_LO else _NO_RANKS
        return SeatWild(high=high, low=low, own=True)
    return NO_WILD


def _wild_note(wilds: Sequence[Card], ranks: Collection[int], *, own: bool) -> str:
    names = " ".join(format_card(c) for c in wilds)
    if own:
        return f"{' and '.join(RANK_PLURALS[r] for r in sorted(ranks))} wild: {names}"
    return f"{_COUNT[len(wilds)]} wild: {names}"


def wild_high_words(value: int, wilds: Sequence[Card], ranks: Collection[int], *,
                    own: bool = False) -> str:
    """Words for a :func:`arena.engine.wild.wild_high_value` whose five cards hold ``wilds``."""
    if value >> CLASS_SHIFT == FIVE_OF_A_KIND:
        rank = RANKS[value >> 16 & 15]
        base, shown = f"five of a kind, {RANK_PLURALS[value >> 16 & 15]}", "-".join(rank * 5)
    else:
        text = ev.describe_high(value)  # natural and wild hands below five of a kind: one scale
        base, _, shown = text.partition(" (")
        shown = shown.rstrip(")")
    if not wilds:
        return f"{base} ({shown})" if shown else base
    note = _wild_note(wilds, ranks, own=own)
    return f"{base} ({shown}; {note})" if shown else f"{base} ({note})"


def wild_high_shown(cards: Sequence[Card], ranks: Collection[int], *,
                    own: bool = False) -> tuple[str, tuple[Card, ...]]:
    """The words of the best high hand of 5 to 8 cards with ``ranks`` wild, and its five cards:
    every wild card (up to five) and the first naturals (in ``combinations`` order) that make it."""
    if len(cards) < 5:
        return "", ()
    value = wild_high_value(cards, ranks)
    wilds = [c for c in cards if c >> 2 in ranks][:5]
    naturals = [c for c in cards if c >> 2 not in ranks]
    five = next(
        (*chosen, *wilds) for chosen in combinations(naturals, 5 - len(wilds))
        if wild_high_value((*chosen, *wilds), ranks) == value)
    return wild_high_words(value, wilds, ranks, own=own), five


def _low_substitute(five: Sequence[Card], ranks: Collection[int], value: int) -> list[Card]:
    """``five`` with each wild card replaced by a natural card of the rank it stands for (§23:
    the lowest rank the hand lacks), so that the natural low equals ``value``."""
    naturals = [c for c in five if c >> 2 not in ranks]
    count = 5 - len(naturals)
    held = [0] * 13
    for card in naturals:
        held[card >> 2] += 1
    for extra in combinations_with_replacement(range(13), count):
        counts = list(held)
        for rank in extra:
            counts[rank] += 1
        if max(counts) > 4:
            continue
        filled = [*naturals, *(make_card(rank, 0) for rank in extra)]
        if wild_low_value(filled, _NO_RANKS) == value:
            return filled
    raise AssertionError(f"no natural five makes the wild low of {[format_card(c) for c in five]}")


def wild_low_shown(cards: Sequence[Card], ranks: Collection[int], *, eight_or_better: bool,
                   own: bool = False) -> tuple[str, tuple[Card, ...]]:
    """The words of the best ace-to-five low of 5 to 8 cards with ``ranks`` wild and its five
    cards (the first five in ``combinations`` order that make it); ``("", ())`` when there is
    none (fewer than five cards, or no eight-or-better low)."""
    if len(cards) < 5:
        return "", ()
    value = wild_low_value(cards, ranks, eight_or_better=eight_or_better)
    if value is None:
        return "", ()
    five = next(f for f in combinations(cards, 5) if wild_low_value(f, ranks) == value)
    wilds = [c for c in five if c >> 2 in ranks]
    text = ev.describe_low(ev.low_value(_low_substitute(five, ranks, value)))
    if not wilds:
        return text, five
    return f"{text} low ({_wild_note(wilds, ranks, own=own)})", five
