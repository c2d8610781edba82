"""Chance-only AIVAT: how much each seat's result in one hand owed to the cards, from its events.

At every chance event (a street's hole cards, each board card group) a seat's luck is the value
the new cards gave it beyond their expectation under what the dealer knew just before:
``weight x (equity after - equity before)``, with the equities of `arena.engine.equity` and a
weight (the pot, optionally plus the bets still to come) fixed by the value function. Each term
has expectation zero whatever the bots do, so ``net - luck`` is an unbiased estimate of a seat's
result with much less variance; the terms of one event sum to zero over the seats.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import Final

from arena.engine.actions import ActionKind
from arena.engine.cards import Card, derive_seed
from arena.engine.equity import MAX_SAMPLES, equity
from arena.engine.events import (
    ActionTaken,
    BoardDealt,
    Event,
    ForcedBetPosted,
    HoleCardsDealt,
    UncalledBetReturned,
)
from arena.engine.games import Variant

__all__ = [
    "DEFAULT_LUCK_EXACT_LIMIT",
    "DEFAULT_LUCK_SAMPLES",
    "ChanceTerm",
    "HandLuck",
    "LuckSettings",
    "ValueFunction",
    "chance_seed",
    "hand_luck",
]

DEFAULT_LUCK_SAMPLES: Final = 400
DEFAULT_LUCK_EXACT_LIMIT: Final = 1000


class ValueFunction(StrEnum):
    """How a chance event's equity change is weighted (named in a league's config).

    ``pot-equity``: the pot as it stands (each seat's hindsight share of the chips in).
    ``projected-pot-equity``: the pot plus one bet per street still to be played per seat that
    can still bet (the chips the better hand usually also wins).
    """

    POT_EQUITY = "pot-equity"
    PROJECTED_POT_EQUITY = "projected-pot-equity"


@dataclass(frozen=True, slots=True)
class LuckSettings:
    """The value function and its equity precision, fixed before a league starts."""

    value: ValueFunction = ValueFunction.POT_EQUITY
    samples: int = DEFAULT_LUCK_SAMPLES
    """Monte Carlo runouts of an equity that is not enumerated."""
    exact_limit: int = DEFAULT_LUCK_EXACT_LIMIT
    """Runouts up to which an equity is enumerated exactly (the last chance events)."""

    def __post_init__(self) -> None:
        if not isinstance(self.value, ValueFunction):
            raise ValueError(f"value function must be one of {', '.join(ValueFunction)}")
        for name, low in (("samples", 1), ("exact_limit", 0)):
            value = getattr(self, name)
            if type(value) is not int or not low <= value <= MAX_SAMPLES:
                raise ValueError(f"luck {name} must be an int in {low}..{MAX_SAMPLES}, got {value!r}")

    @property
    def name(self) -> str:
        """A stable label of these settings, e.g. ``pot-equity/400/1000``."""
        return f"{self.value.value}/{self.samples}/{self.exact_limit}"


@dataclass(frozen=True, slots=True)
class ChanceTerm:
    """One chance event's correction: per seat (0 for seats out of the hand)."""

    street: int
    weight_chips: int
    before: tuple[float, ...]  # each seat's equity just before the cards
    after: tuple[float, ...]  # ... and just after
    luck_chips: tuple[float, ...]  # weight x (after - before)


@dataclass(frozen=True, slots=True)
class HandLuck:
    terms: tuple[ChanceTerm, ...]
    luck_chips: tuple[float, ...]
    """Per seat: the sum of its terms. The luck-adjusted result is ``net - luck``."""


def chance_seed(hand_seed: int, event_index: int) -> int:
    """The Monte Carlo seed of the equities after chance event ``event_index`` of a hand.

    ``hand_seed`` is the hand's own seed as its log reveals it, so a replay recomputes the
    same values.
    """
    return derive_seed(hand_seed, "luck", event_index)


def hand_luck(variant: Variant, events: Sequence[Event], seat_count: int, *, hand_seed: int,
              settings: LuckSettings = LuckSettings(), small_bet_chips: int = 0,
              big_bet_chips: int = 0) -> HandLuck:
    """The chance terms of a finished (or running) hand from its events in order.

    The bet sizes are only read by ``projected-pot-equity``. Raises ValueError for events that
    do not make a hand (a card dealt twice, a seat out of range).
    """
    if not 2 <= seat_count <= variant.max_seats:  # RULES.md §10.1
        raise ValueError(f"a {variant.code} hand has 2 to {variant.max_seats} seats, got "
                         f"{seat_count}")
    walker = _Walker(variant, seat_count, hand_seed, settings, small_bet_chips, big_bet_chips)
    index = 0
    count = len(events)
    while index < count:
        event = events[index]
        if isinstance(event, HoleCardsDealt):
            end = index
            new: dict[int, tuple[Card, ...]] = {}
            while (end < count and isinstance(events[end], HoleCardsDealt)
                   and events[end].street == event.street):  # type: ignore[union-attr]
                dealt = events[end]
                assert isinstance(dealt, HoleCardsDealt)
                walker.check_seat(dealt.seat)
                new[dealt.seat] = new.get(dealt.seat, ()) + dealt.cards
                end += 1
            walker.chance(event.street, new, ())
            index = end
            continue
        if isinstance(event, BoardDealt):
            walker.chance(event.street, {}, event.cards)
        elif isinstance(event, ForcedBetPosted):
            walker.put(event.seat, event.amount_chips, event.is_all_in)
        elif isinstance(event, ActionTaken):
            walker.put(event.seat, event.added_chips, event.is_all_in)
            if event.kind is ActionKind.FOLD:
                walker.fold(event.seat)
        elif isinstance(event, UncalledBetReturned):
            walker.put(event.seat, -event.amount_chips, False)
        index += 1
    return walker.result()


class _Walker:
    """What the dealer knows as the events go by: cards, chips in, folds, all-ins."""

    def __init__(self, variant: Variant, seats: int, hand_seed: int, settings: LuckSettings,
                 small_bet: int, big_bet: int) -> None:
        self.variant = variant
        self.seats = seats
        self.hand_seed = hand_seed
        self.settings = settings
        self.committed = [0] * seats
        self.folded = [False] * seats
        self.all_in = [False] * seats
        self.cards: list[tuple[Card, ...]] = [()] * seats
        self.board: tuple[Card, ...] = ()
        self.terms: list[ChanceTerm] = []
        # Bets still to come from street k on: one per street, small or big by the street.
        sizes = [big_bet if s.is_big_bet else small_bet for s in variant.streets]
        self.bets_from = [sum(sizes[k:]) for k in range(len(sizes) + 1)]

    def check_seat(self, seat: int) -> None:
        if not 0 <= seat < self.seats:
            raise ValueError(f"seat {seat} out of range for {self.seats} seats")

    def put(self, seat: int, chips: int, is_all_in: bool) -> None:
        self.check_seat(seat)
        self.committed[seat] += chips
        if is_all_in:
            self.all_in[seat] = True

    def fold(self, seat: int) -> None:
        self.folded[seat] = True

    def _weight(self, street: int) -> int:
        pot = sum(self.committed)
        if self.settings.value is ValueFunction.POT_EQUITY:
            return pot
        able = sum(1 for s in range(self.seats) if not self.folded[s] and not self.all_in[s])
        if able < 2:
            return pot  # nobody can bet any more
        return pot + able * self.bets_from[min(street, len(self.bets_from) - 1)]

    def _equities(self, live: list[int], seed: int) -> list[float]:
        """Each seat's equity (0 for seats out of the hand) with the cards known now."""
        out = [0.0] * self.seats
        if len(live) == 1:
            out[live[0]] = 1.0
            return out
        if not self.board and not any(self.cards[s] for s in range(self.seats)):
            for s in live:  # nothing dealt yet: every seat's chances are the same
                out[s] = 1.0 / len(live)
            return out
        dead = [c for s in range(self.seats) if self.folded[s] for c in self.cards[s]]
        result = equity(self.variant, [self.cards[s] for s in live], board=self.board, dead=dead,
                        samples=self.settings.samples, exact_limit=self.settings.exact_limit,
                        seed=seed)
        for s, share in zip(live, result.totals, strict=True):
            out[s] = share
        return out

    def chance(self, street: int, hole: dict[int, tuple[Card, ...]], board: Sequence[Card]) -> None:
        live = [s for s in range(self.seats) if not self.folded[s]]
        k = len(self.terms)
        before = self._equities(live, chance_seed(self.hand_seed, k - 1) if k else 0)
        for seat, cards in hole.items():
            self.cards[seat] += cards
        self.board += tuple(board)
        after = self._equities(live, chance_seed(self.hand_seed, k))
        weight = self._weight(street)
        luck = tuple(weight * (a - b) for a, b in zip(after, before, strict=True))
        self.terms.append(ChanceTerm(street, weight, tuple(before), tuple(after), luck))

    def result(self) -> HandLuck:
        totals = tuple(sum(t.luck_chips[s] for t in self.terms) for s in range(self.seats))
        return HandLuck(tuple(self.terms), totals)
