"""Chance-only AIVAT: how much each seat's result in one hand owed to the cards, from its events.

At every chance event (a street's hole cards, each board card group) a seat's luck is the value
the new cards gave it beyond their expectation under what the dealer knew just before:
``weight x (equity after - equity before)``, with the equities of `arena.engine.equity` and a
weight (the pot, optionally plus the bets still to come) fixed by the value function. Each term
has expectation zero whatever the bots do, so ``net - luck`` is an unbiased estimate of a seat's
result with much less variance; the terms of one event sum to zero over the seats.

Action terms (issue 40): at a decision the bot answered with a declared strategy
(`arena.engine.strategy`), the dealer drew the action, so the bot's own dice are known too. Its
term is ``E[V after the action over the declared distribution] - V after the drawn action`` per
seat, with ``V = equity x (pot + able seats x bets to come) - (chips in + bets to come if able)``
(the bets to come are 0 under ``pot-equity``): a seat's expected net if the hand went on at the
value function's pace. Its expectation over the draw is exactly zero, whatever V, and the
terms of one decision sum to zero over the seats. Deterministic replies get no action term.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import Final

from arena.engine.actions import ActionKind
from arena.engine.cards import Card, derive_seed
from arena.engine.drawplans import DrawPlans, has_exchanges
from arena.engine.equity import check_count, equity
from arena.engine.events import (
    ActionTaken,
    BoardDealt,
    CardsExchanged,
    Event,
    ForcedBetPosted,
    HoleCardsDealt,
    UncalledBetReturned,
)
from arena.engine.games import Variant
from arena.engine.rules import Rules
from arena.engine.strategy import StrategyDecision

__all__ = [
    "DEFAULT_LUCK_EXACT_LIMIT",
    "DEFAULT_LUCK_SAMPLES",
    "ActionTerm",
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
        check_count("luck samples", self.samples, 1)
        check_count("luck exact_limit", self.exact_limit, 0)

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
class ActionTerm:
    """One strategy decision's correction: per seat (0 for seats out of the hand)."""

    action_index: int  # the hand's action (ActionTaken) it corrects, from 0
    seat: int  # the seat that declared the strategy
    expected: tuple[float, ...]  # each seat's value, averaged over the declared distribution
    drawn: tuple[float, ...]  # ... and after the drawn action
    luck_chips: tuple[float, ...]  # drawn - expected: what the draw gave each seat


@dataclass(frozen=True, slots=True)
class HandLuck:
    terms: tuple[ChanceTerm, ...]
    luck_chips: tuple[float, ...]
    """Per seat: the sum of its terms. The luck-adjusted result is ``net - luck``."""
    action_terms: tuple[ActionTerm, ...] = ()
    """The strategy decisions' terms (their sums are in ``luck_chips`` too)."""


def chance_seed(hand_seed: int, event_index: int) -> int:
    """The Monte Carlo seed of the equities after chance event ``event_index`` of a hand.

    ``hand_seed`` is the hand's own seed as its log reveals it, so a replay recomputes the
    same values.
    """
    return derive_seed(hand_seed, "luck", event_index)


def action_seed(hand_seed: int, action_index: int) -> int:
    """The Monte Carlo seed of the equities valuing a strategy decision's options."""
    return derive_seed(hand_seed, "luck-action", action_index)


def hand_luck(variant: Variant, events: Sequence[Event], seat_count: int, *, hand_seed: int,
              settings: LuckSettings = LuckSettings(), small_bet_chips: int = 0,
              big_bet_chips: int = 0,
              decisions: Mapping[int, StrategyDecision] | None = None,
              rules: Rules | None = None) -> HandLuck:
    """The chance terms of a finished (or running) hand from its events in order, and the
    action terms of the ``decisions`` answered by a strategy (by action index: the count of
    `ActionTaken` events before it).

    The bet sizes are only read by ``projected-pot-equity``; ``rules`` (the hand's) give the
    wild ranks (docs/house-rules.md §23, §24) and English Stud's seventh card (§25). An
    exchange's replacement cards are a chance event of the seat that drew them; the exchanges
    still to come are played by the fixed policy of docs/house-rules.md §29. Raises ValueError
    for events that do not make a hand (a card dealt twice, a seat out of range) or a decision that does not
    match its action (another seat, or no option doing what the drawn one did).
    """
    if not 2 <= seat_count <= variant.max_seats:  # docs/house-rules.md §20
        raise ValueError(f"a {variant.code} hand has 2 to {variant.max_seats} seats, got "
                         f"{seat_count}")
    walker = _Walker(variant, seat_count, hand_seed, settings, small_bet_chips, big_bet_chips,
                     rules or Rules())
    decisions = decisions or {}
    action_index = 0
    index = 0
    count = len(events)
    while index < count:
        event = events[index]
        if isinstance(event, HoleCardsDealt):
            end = index
            new: dict[int, tuple[Card, ...]] = {}
            while end < count:
                dealt = events[end]
                if not isinstance(dealt, HoleCardsDealt) or dealt.street != event.street:
                    break
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
            decision = decisions.get(action_index)
            if decision is not None:
                walker.action(action_index, event, decision)
            action_index += 1
            walker.put(event.seat, event.added_chips, event.is_all_in)
            if event.kind is ActionKind.FOLD:
                walker.fold(event.seat)
        elif isinstance(event, CardsExchanged):
            walker.exchange(event)
        elif isinstance(event, UncalledBetReturned):
            walker.put(event.seat, -event.amount_chips, False)
        index += 1
    return walker.result()


class _Walker:
    """What the dealer knows as the events go by: cards, chips in, folds, all-ins."""

    def __init__(self, variant: Variant, seats: int, hand_seed: int, settings: LuckSettings,
                 small_bet: int, big_bet: int, rules: Rules) -> None:
        self.variant = variant
        self.wild_ranks = rules.wild_rank_set
        self.low_hole_ace_high = rules.low_hole_ace_high
        # Games with exchanges: what each seat still has to come (docs/house-rules.md §29).
        self.plans = DrawPlans(variant, rules, seats) if has_exchanges(variant) else None
        self.discards: set[Card] = set()  # earlier exchanges' discards (back in the stub if short)
        self.serving: tuple[Card, ...] = ()  # the discards of the exchange being served
        self.drawing: tuple[int, int] | None = None  # (seat, cards) of the exchange being served
        self.seats = seats
        self.hand_seed = hand_seed
        self.settings = settings
        self.committed = [0] * seats
        self.folded = [False] * seats
        self.all_in = [False] * seats
        self.cards: list[tuple[Card, ...]] = [()] * seats
        self.board: tuple[Card, ...] = ()
        self.terms: list[ChanceTerm] = []
        self.action_terms: list[ActionTerm] = []
        self.street = 0  # the street of the last cards dealt
        self.known_equity: list[float] | None = None  # the last equities, while no one folded
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
        self.known_equity = None

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
        plans = None
        held_back_hand = 0
        if self.plans is not None:
            plans = [self._plan(s) for s in live]
            if self.drawing is not None:
                held_back_hand = live.index(self.drawing[0])
        result = equity(self.variant, [self.cards[s] for s in live], board=self.board, dead=dead,
                        samples=self.settings.samples, exact_limit=self.settings.exact_limit,
                        seed=seed, wild_ranks=self.wild_ranks,
                        low_hole_ace_high=self.low_hole_ace_high, plans=plans,
                        discards=sorted(self.discards), held_back=self.serving,
                        held_back_hand=held_back_hand)
        for s, share in zip(live, result.totals, strict=True):
            out[s] = share
        return out

    def _plan(self, seat: int) -> tuple[int, ...]:
        """What is still to come to ``seat``: cards dealt, 0 for an exchange (§29's policy)."""
        assert self.plans is not None
        rest = self.plans.plan(seat)
        if self.drawing is not None and self.drawing[0] == seat:
            return (self.drawing[1], *rest)
        return rest

    def _take(self, seat: int, street: int, is_deal: bool) -> None:
        """``seat`` had its exchange (or its cards) of ``street``: its steps move past it."""
        if self.plans is None or self.plans.take(seat, street, is_deal=is_deal):
            return
        raise ValueError(f"seat {seat}: no {'cards' if is_deal else 'exchange'} due on street "
                         f"{street} in {self.variant.code}")

    def exchange(self, event: CardsExchanged) -> None:
        """An exchange: the seat's discards leave its hand (its decision), the replacement cards
        are a chance event; the price is chips put in (not a bet)."""
        seat = event.seat
        self.check_seat(seat)
        if event.price_chips:
            self.put(seat, event.price_chips, False)
        if len(event.drawn) != len(event.discarded) or not set(event.discarded) <= set(self.cards[seat]):
            raise ValueError(f"seat {seat} exchanges cards it does not hold, or draws a different "
                             f"number of cards")
        if not event.discarded:
            self._take(seat, event.street, False)
            self.known_equity = None
            return
        given = set(event.discarded)
        self.cards[seat] = tuple(c for c in self.cards[seat] if c not in given)
        self.serving = event.discarded
        self._take(seat, event.street, False)
        self.chance(event.street, {seat: event.drawn}, (), drawing=seat)

    def chance(self, street: int, hole: dict[int, tuple[Card, ...]], board: Sequence[Card],
               drawing: int | None = None) -> None:
        self.street = street
        live = [s for s in range(self.seats) if not self.folded[s]]
        k = len(self.terms)
        if drawing is not None:  # an exchange's replacement cards are still to come
            self.drawing = (drawing, len(hole[drawing]))
            before = self._equities(live, derive_seed(chance_seed(self.hand_seed, k), "draw"))
            self.drawing = None
            self.discards.update(self.serving)  # the next exchanges may get them back (§21)
            self.serving = ()
        else:
            before = self._equities(live, chance_seed(self.hand_seed, k - 1) if k else 0)
        for seat, cards in hole.items():
            self.cards[seat] += cards
            if drawing is None:
                self._take(seat, street, True)
            if self.discards and not self.discards.isdisjoint(cards):
                self.discards -= set(cards)  # §21: discards shuffled back in and dealt again
        if board and self.plans is not None and self.variant.is_stud:
            for seat in live:  # docs/house-rules.md §1: the street's card is a common card
                self._take(seat, street, True)
        self.board += tuple(board)
        after = self._equities(live, chance_seed(self.hand_seed, k))
        weight = self._weight(street)
        luck = tuple(weight * (a - b) for a, b in zip(after, before, strict=True))
        self.terms.append(ChanceTerm(street, weight, tuple(before), tuple(after), luck))
        self.known_equity = after

    def action(self, action_index: int, event: ActionTaken, decision: StrategyDecision) -> None:
        """The action term of a strategy decision, before its action's chips go in."""
        seat = event.seat
        self.check_seat(seat)
        where = f"action {action_index + 1}"
        if decision.seat != seat:
            raise ValueError(f"{where}: a strategy of seat {decision.seat} on seat {seat}'s action")
        if not 0 <= decision.drawn < len(decision.options):
            raise ValueError(f"{where}: drawn entry {decision.drawn} out of range")
        drawn = decision.options[decision.drawn]
        if (drawn.is_fold != (event.kind is ActionKind.FOLD) or drawn.added_chips != event.added_chips
                or drawn.is_all_in != event.is_all_in):
            raise ValueError(f"{where}: the drawn strategy entry is not the action taken")
        live = [s for s in range(self.seats) if not self.folded[s]]
        base = action_seed(self.hand_seed, action_index)
        # The equities with the cards known now: the last chance event's, unless a seat folded
        # since (any values fixed before the draw keep the term's expectation zero).
        equity_now = self.known_equity
        if equity_now is None:
            equity_now = self.known_equity = self._equities(live, base)
        equity_fold: list[float] | None = None
        expected = [0.0] * self.seats
        values_drawn: list[float] = []
        for k, option in enumerate(decision.options):
            if option.is_fold:
                if equity_fold is None:
                    self.folded[seat] = True
                    equity_fold = self._equities([s for s in live if s != seat],
                                                 derive_seed(base, "fold"))
                    self.folded[seat] = False
                equities = equity_fold
            else:
                equities = equity_now
            values = self._values(seat, option.added_chips, option.is_all_in, option.is_fold, equities)
            if k == decision.drawn:
                values_drawn = values
            for s in range(self.seats):
                expected[s] += option.probability * values[s]
        luck = tuple(d - e for d, e in zip(values_drawn, expected, strict=True))
        self.action_terms.append(ActionTerm(action_index, seat, tuple(expected),
                                            tuple(values_drawn), luck))

    def _values(self, seat: int, added: int, is_all_in: bool, is_fold: bool,
                equities: list[float]) -> list[float]:
        """Each seat's V after ``seat`` adds ``added`` chips (and folds or goes all in)."""
        committed = list(self.committed)
        committed[seat] += added
        folded = list(self.folded)
        folded[seat] = folded[seat] or is_fold
        all_in = list(self.all_in)
        all_in[seat] = all_in[seat] or is_all_in
        pot = sum(committed)
        able = [not folded[s] and not all_in[s] for s in range(self.seats)]
        to_come = 0
        if self.settings.value is ValueFunction.PROJECTED_POT_EQUITY and sum(able) >= 2:
            to_come = self.bets_from[min(self.street + 1, len(self.bets_from) - 1)]
        else:
            able = [False] * self.seats
        weight = pot + to_come * sum(able)
        return [equities[s] * weight - committed[s] - (to_come if able[s] else 0)
                for s in range(self.seats)]

    def result(self) -> HandLuck:
        totals = tuple(sum(t.luck_chips[s] for t in self.terms)
                       + sum(t.luck_chips[s] for t in self.action_terms) for s in range(self.seats))
        return HandLuck(tuple(self.terms), totals, tuple(self.action_terms))
