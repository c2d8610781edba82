"""Wild-card hand values for the equity's many runouts, memoised by what decides them.

`arena.engine.wild` evaluates one hand; a runout of a wild-card stud hand evaluates thousands,
most of them alike in everything that matters: the natural cards' ranks, how many wild cards,
and the ranks of each suit that could still make a flush with them. These functions return
exactly `wild_high_value` and `wild_low_value`, computed once per such key (docs/house-rules.md
§23, §24; the equity of §29).
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from typing import Final

from arena.engine.cards import Card
from arena.engine.evaluate import high_value
from arena.engine.wild import wild_high_value, wild_low_value

__all__ = ["memo_wild_high", "memo_wild_low"]

_MAX_ENTRIES: Final = 1 << 18  # each memo is cleared when it grows past this (bounded memory)
_HighKey = tuple[tuple[int, ...], int, tuple[tuple[int, ...], ...]]
_LowKey = tuple[tuple[int, ...], int, bool]
_HIGH: dict[_HighKey, int] = {}
_LOW: dict[_LowKey, int | None] = {}


def memo_wild_high(cards: Sequence[Card], wild: Collection[int]) -> int:
    """``wild_high_value(cards, wild)``: the value depends only on the natural cards' ranks,
    the number of wild cards, and the ranks of the suits holding enough natural cards to make a
    flush with the wild cards (a five-card hand takes ``5 - wilds`` natural cards)."""
    naturals = [c for c in cards if c >> 2 not in wild]
    wilds = len(cards) - len(naturals)
    if not wilds and len(cards) <= 7:
        return high_value(cards)
    need = 5 - wilds
    by_suit: list[list[int]] = [[], [], [], []]
    for card in naturals:
        by_suit[card & 3].append(card >> 2)
    suited = tuple(sorted(tuple(sorted(ranks)) for ranks in by_suit if len(ranks) >= need))
    key = (tuple(sorted(c >> 2 for c in naturals)), wilds, suited)
    value = _HIGH.get(key)
    if value is None:
        if len(_HIGH) >= _MAX_ENTRIES:
            _HIGH.clear()
        value = _HIGH[key] = wild_high_value(cards, wild)
    return value


def memo_wild_low(cards: Sequence[Card], wild: Collection[int], *,
                  eight_or_better: bool = False) -> int | None:
    """``wild_low_value(cards, wild, eight_or_better=...)``: ace-to-five low ignores suits, so
    the value depends only on the natural cards' ranks and the number of wild cards."""
    naturals = tuple(sorted(c >> 2 for c in cards if c >> 2 not in wild))
    key = (naturals, len(cards) - len(naturals), eight_or_better)
    if key in _LOW:
        return _LOW[key]
    if len(_LOW) >= _MAX_ENTRIES:
        _LOW.clear()
    value = _LOW[key] = wild_low_value(cards, wild, eight_or_better=eight_or_better)
    return value
