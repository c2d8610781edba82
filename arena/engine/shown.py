"""Words and best five cards of a shown hand, for the Showdown event (RULES.md §4)."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from itertools import combinations, product

from arena.engine import evaluate as ev
from arena.engine.cards import Card
from arena.engine.games import Showdown, Variant

_NO_CARDS: tuple[Card, ...] = ()


@dataclass(frozen=True, slots=True)
class ShownValue:
    high_description: str
    high_cards: tuple[Card, ...]
    low_description: str
    low_cards: tuple[Card, ...]


def _best_high(fives: Iterable[tuple[Card, ...]]) -> tuple[int, tuple[Card, ...]]:
    # Five cards by key sum (ev.high_value is built for seven).
    key_at = ev.KEY.__getitem__
    offset = ev.SUIT_OFFSET
    return max(((ev.high_value_from_keys(sum(map(key_at, five), offset), five), five)
                for five in fives), key=lambda vf: vf[0])


def _best_low(fives: Iterable[tuple[Card, ...]], *, eight: bool) -> tuple[int, tuple[Card, ...]] | None:
    best: tuple[int, tuple[Card, ...]] | None = None
    for five in fives:
        value = ev.low8_value(five) if eight else ev.low_value(five)
        if value is not None and (best is None or value > best[0]):
            best = (value, five)
    return best


def _fives(variant: Variant, cards: Sequence[Card], board: Sequence[Card]) -> list[tuple[Card, ...]]:
    if variant.is_omaha:
        return [a + b for a, b in product(combinations(cards, 2), combinations(board, 3))]
    return list(combinations([*cards, *board], 5))


def shown_value(variant: Variant, cards: Sequence[Card], board: Sequence[Card]) -> ShownValue:
    """Describe a seat's hand: the high (not in razz) and the low (razz and the hi-lo games)."""
    fives = _fives(variant, cards, board)
    if not fives:
        return ShownValue("", (), "", ())
    high_text, high_cards = "", _NO_CARDS
    if variant.showdown is not Showdown.LOW:
        value, five = _best_high(fives)
        high_text, high_cards = ev.describe_high(value), five
    low_text, low_cards = "", _NO_CARDS
    if variant.showdown is not Showdown.HIGH:
        low = _best_low(fives, eight=variant.showdown is Showdown.HIGH_LOW_8)
        if low is not None:
            low_text, low_cards = ev.describe_low(low[0]), low[1]
    return ShownValue(high_text, tuple(high_cards), low_text, tuple(low_cards))
