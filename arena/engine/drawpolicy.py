"""The fixed exchange policies the luck adjustment plays for every seat in the runouts of the
exchanges still to come (docs/house-rules.md §29).

They are not advice and need not be optimal: the luck terms have expectation zero whatever
fixed policy the runouts follow, and a better policy only removes more of the variance. They
are deterministic (the same cards give the same discards), so a replay recomputes the same
luck. Each takes a seat's cards and returns the cards it gives away (empty: stand pat).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Final

from arena.engine import evaluate as ev
from arena.engine.cards import Card
from arena.engine.drawplans import has_exchanges
from arena.engine.games import Showdown, Variant

__all__ = [
    "DEUCE_TO_SEVEN_KEEP_MAX_RANK",
    "DEUCE_TO_SEVEN_PAT_MAX_RANK",
    "deuce_to_seven_discards",
    "english_stud_discards",
    "policy_for",
]

DEUCE_TO_SEVEN_PAT_MAX_RANK: Final = 7  # the nine (ranks: deuce 0 .. ace 12)
"""2-7: a made hand (five ranks, no straight, no flush) this high or lower stands pat."""
DEUCE_TO_SEVEN_KEEP_MAX_RANK: Final = 5  # the seven
"""2-7: a drawing hand keeps one card of each rank from the deuce to this one."""

_STRAIGHT_OR_BETTER: Final = frozenset({
    ev.HandClass.STRAIGHT, ev.HandClass.FLUSH, ev.HandClass.FULL_HOUSE,
    ev.HandClass.FOUR_OF_A_KIND, ev.HandClass.STRAIGHT_FLUSH})

ExchangePolicy = Callable[[Sequence[Card]], tuple[Card, ...]]


def deuce_to_seven_discards(cards: Sequence[Card]) -> tuple[Card, ...]:
    """docs/house-rules.md §29, 2-7 triple draw: stand pat on a made nine-low or better (five
    different ranks, no straight, no flush, nothing above a nine); otherwise keep one card of
    each rank from the deuce to the seven (the lowest suit of a pair), break a straight or
    flush of five such cards by giving away its highest card, and give away the rest."""
    ranks = [c >> 2 for c in cards]
    is_flush = len(cards) == 5 and len({c & 3 for c in cards}) == 1
    # A straight is five distinct ranks in a row (the ace is high only: A-2-3-4-5 is none).
    if (len(cards) == 5 and len(set(ranks)) == 5 and max(ranks) - min(ranks) != 4 and not is_flush
            and max(ranks) <= DEUCE_TO_SEVEN_PAT_MAX_RANK):
        return ()
    kept: dict[int, Card] = {}
    for card in sorted(cards):
        rank = card >> 2
        if rank <= DEUCE_TO_SEVEN_KEEP_MAX_RANK and rank not in kept:
            kept[rank] = card
    if len(kept) == 5:  # five low ranks that are no made hand: a straight or a flush
        del kept[max(kept)]
    keep = set(kept.values())
    return tuple(c for c in cards if c not in keep)


def english_stud_discards(cards: Sequence[Card]) -> tuple[Card, ...]:
    """docs/house-rules.md §29, English Stud: stand pat with a straight or better among the
    cards; otherwise give away the lowest card whose rank the seat holds once (the face it had:
    a down card for a down card, an up card for an up card), or stand pat when every rank is
    paired."""
    if len(cards) >= 5 and ev.hand_class(ev.high_value(cards)) in _STRAIGHT_OR_BETTER:
        return ()
    counts: dict[int, int] = {}
    for card in cards:
        counts[card >> 2] = counts.get(card >> 2, 0) + 1
    singles = [c for c in cards if counts[c >> 2] == 1]
    return (min(singles),) if singles else ()


def policy_for(variant: Variant) -> ExchangePolicy:
    """The runout policy of a game with exchanges (ValueError for a game that has none)."""
    if not has_exchanges(variant):
        raise ValueError(f"{variant.code} has no exchanges")
    if variant.showdown is Showdown.DEUCE_TO_SEVEN:
        return deuce_to_seven_discards
    if variant.showdown is Showdown.HIGH:
        return english_stud_discards
    raise ValueError(f"{variant.code}: no exchange policy for {variant.showdown.value}")
