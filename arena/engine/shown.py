"""Words and best five cards of a shown hand, for the Showdown event (docs/house-rules.md §5)."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from itertools import combinations, islice, product, starmap
from operator import add
from typing import TYPE_CHECKING

from arena.engine import evaluate as ev
from arena.engine.cards import Card
from arena.engine.describe_lowball import lowball_shown
from arena.engine.describe_wild import NO_WILD, SeatWild, seat_wild, wild_high_shown, wild_low_shown
from arena.engine.games import LOW_HOLE_SHOWDOWNS, WILD_SHOWDOWNS, Showdown, Variant
from arena.engine.settlement import showdown_scorer

if TYPE_CHECKING:
    from arena.engine.state import HandState

_NO_CARDS: tuple[Card, ...] = ()
_RANK_KEY_AT = ev.RANK_KEY.__getitem__


@dataclass(frozen=True, slots=True)
class ShownValue:
    high_description: str
    high_cards: tuple[Card, ...]
    low_description: str
    low_cards: tuple[Card, ...]


def _fives(variant: Variant, cards: Sequence[Card], board: Sequence[Card]) -> Iterator[tuple[Card, ...]]:
    if variant.is_omaha:
        return starmap(add, product(combinations(cards, 2), combinations(board, 3)))
    return combinations([*cards, *board], 5)


def _rank_keys(variant: Variant, cards: Sequence[Card], board: Sequence[Card]) -> list[int]:
    """The rank key of each of `_fives`, in the same order (summed in C)."""
    if variant.is_omaha:
        return list(starmap(add, product(map(sum, combinations(map(_RANK_KEY_AT, cards), 2)),
                                         map(sum, combinations(map(_RANK_KEY_AT, board), 3)))))
    return list(map(sum, combinations(map(_RANK_KEY_AT, [*cards, *board]), 5)))


def _first_five(variant: Variant, cards: Sequence[Card], board: Sequence[Card],
                rank_keys: list[int], rank_key: int, *, suited: bool | None = None
                ) -> tuple[Card, ...]:
    """The first of `_fives` with the ranks of ``rank_key`` and, unless ``suited`` is None,
    of one suit (True) or not (False)."""
    index = rank_keys.index(rank_key)
    five = next(islice(_fives(variant, cards, board), index, None))
    if suited is not None:
        while (len({card & 3 for card in five}) == 1) is not suited:
            index = rank_keys.index(rank_key, index + 1)
            five = next(islice(_fives(variant, cards, board), index, None))
    return five


_SPECIAL = WILD_SHOWDOWNS | LOW_HOLE_SHOWDOWNS | {Showdown.DEUCE_TO_SEVEN, Showdown.ACE_TO_SIX}
_LOWBALL = {Showdown.DEUCE_TO_SEVEN: False, Showdown.ACE_TO_SIX: True}  # kind: ace low


def shown_value_in(state: HandState, seat: int, cards: Sequence[Card]) -> ShownValue:
    """:func:`shown_value` of the ``cards`` ``seat`` shows in ``state`` (its wild ranks from the
    hand's rules, and in Low Hole from its own down cards: docs/house-rules.md §23, §24)."""
    wild = seat_wild(state.variant, state.rules, state.cards[seat], state.is_up[seat])
    return shown_value(state.variant, cards, state.board, wild=wild)


def _special_value(variant: Variant, cards: Sequence[Card], wild: SeatWild) -> ShownValue:
    """The lowball games (docs/house-rules.md §21, §22) and the wild-card games (§23, §24)."""
    kind = variant.showdown
    if kind in _LOWBALL:
        text, five = lowball_shown(cards, ace_low=_LOWBALL[kind])
        return ShownValue("", (), text, five)
    high_text, high_cards = "", _NO_CARDS
    if kind is not Showdown.WILD_LOW:
        high_text, high_cards = wild_high_shown(cards, wild.high, own=wild.own)
    low_text, low_cards = "", _NO_CARDS
    if kind is not Showdown.WILD_HIGH and kind is not Showdown.LOW_HOLE:
        low_text, low_cards = wild_low_shown(cards, wild.low, eight_or_better=kind is not Showdown.WILD_LOW,
                                             own=wild.own)
    return ShownValue(high_text, high_cards, low_text, low_cards)


def shown_value(variant: Variant, cards: Sequence[Card], board: Sequence[Card], *,
                wild: SeatWild = NO_WILD) -> ShownValue:
    """Describe a seat's hand: the high (not in razz) and the low (razz and the hi-lo games).

    ``wild``: the seat's wild ranks in the wild-card games (:func:`shown_value_in` finds them).

    Up to seven cards (Omaha: two to four hole cards, three to five on the board). The best
    value comes from the evaluator over all the cards at once; the five cards shown are the
    first five (in `_fives` order) that make it, as if each five were valued in turn.
    """
    if variant.is_omaha:
        if len(cards) < 2 or len(board) < 3:
            return ShownValue("", (), "", ())
    elif len(cards) + len(board) < 5:
        return ShownValue("", (), "", ())
    if variant.showdown in _SPECIAL:
        return _special_value(variant, cards, wild)
    high_text, high_cards = "", _NO_CARDS
    # The five cards shown are the first five (in `_fives` order) that make the value, found
    # by its five ranks rather than by valuing each five: a five-card high value stands for
    # its ranks and whether they are of one suit, a low value for its ranks alone.
    rank_keys = _rank_keys(variant, cards, board)
    highs, lows = showdown_scorer(variant)([cards], board)
    if highs is not None:
        high = highs[0]
        high_cards = _first_five(variant, cards, board, rank_keys, ev.high_rank_key(high),
                                 suited=ev.is_flush_value(high))
        high_text = ev.describe_high(high)
    low_text, low_cards = "", _NO_CARDS
    low = lows[0] if lows is not None else None
    if low is not None:
        low_cards = _first_five(variant, cards, board, rank_keys, ev.low_rank_key(low))
        low_text = ev.describe_low(low)
    return ShownValue(high_text, tuple(high_cards), low_text, tuple(low_cards))
