"""Each seat's expected share of the pot (high, low, scoop) given the cards known so far.

Exact enumeration of the cards still to come when there are few runouts, seeded Monte Carlo
(``random.Random(seed)``) otherwise; the same arguments always give the same result.
"""

from __future__ import annotations

import random
from collections.abc import Collection, Iterator, Sequence
from dataclasses import dataclass
from functools import lru_cache
from itertools import combinations
from math import comb
from typing import Final

from arena.engine.cards import DECK_SIZE, Card
from arena.engine.games import GameCode, Variant, variant_for
from arena.engine.pots import best_seats
from arena.engine.runouts import sample_exchanges
from arena.engine.settlement import Values, showdown_scorer
from arena.engine.shuffle import shuffle_steps

__all__ = [
    "DEFAULT_EXACT_LIMIT",
    "DEFAULT_SAMPLES",
    "MAX_SAMPLES",
    "Equity",
    "SeatEquity",
    "check_count",
    "equity",
    "runout_count",
]

DEFAULT_SAMPLES: Final = 1000
"""Monte Carlo runouts when enumeration would take more than the exact limit."""
DEFAULT_EXACT_LIMIT: Final = 2000
"""Runouts up to which every one is enumerated (about twice the default Monte Carlo cost)."""
MAX_SAMPLES: Final = 10_000_000
"""Upper bound for ``samples`` and ``exact_limit`` (a bad value cannot run for hours)."""

_STUD_CARDS: Final = 7


@dataclass(frozen=True, slots=True)
class SeatEquity:
    """One seat's expected share of the pot, as fractions of the whole pot.

    Ties split a share evenly (odd chips ignored); in the hi-lo games a pot with no
    qualifying low goes whole to the high hand, which counts as ``high``.
    """

    high: float
    """Expected fraction of the pot won with the high hand (0 in razz)."""
    low: float
    """Expected fraction of the pot won with the low hand (razz: the whole pot; 0 in high games)."""
    scoop: float
    """Probability of winning the whole pot alone (every share, no tie)."""

    @property
    def total(self) -> float:
        """Expected fraction of the pot won, high and low together."""
        return self.high + self.low


@dataclass(frozen=True, slots=True)
class Equity:
    """The result of `equity`: one `SeatEquity` per given hand, in the given order."""

    seats: tuple[SeatEquity, ...]
    runouts: int
    """Runouts evaluated: all of them when ``is_exact``, else the Monte Carlo sample count."""
    is_exact: bool
    """True when every possible runout was enumerated (no sampling error)."""

    @property
    def totals(self) -> tuple[float, ...]:
        """Each seat's expected fraction of the pot; they sum to 1."""
        return tuple(s.total for s in self.seats)


def equity(
    game: GameCode | str | Variant,
    hands: Sequence[Sequence[Card]],
    *,
    board: Sequence[Card] = (),
    dead: Sequence[Card] = (),
    samples: int = DEFAULT_SAMPLES,
    exact_limit: int = DEFAULT_EXACT_LIMIT,
    seed: int = 0,
    wild_ranks: Collection[int] = (),
    low_hole_ace_high: bool = True,
    plans: Sequence[Sequence[int]] | None = None,
    discards: Sequence[Card] = (),
    held_back: Sequence[Card] = (),
    held_back_hand: int = 0,
) -> Equity:
    """Each live seat's expected share of a pot all of them contest to the showdown.

    ``game``: a game code (``FT``, ``FO/8``, ``FR``, ``F7S``, ``F7S/8``, ``NT``, ``PO``, ``PT``,
    ``F2L3D``, ``FLL``, ``F7SW``, ``F7SWL``, ``F7SW/8``, ``FLH``, ``FLH/8``, ``FES``) or a `Variant`.
    ``hands``: the known cards of each live seat (hold'em 0-2, Omaha 0-4, stud 0-7: down and
    up cards alike, in dealing order; triple draw 0-5); cards not given are dealt at random from
    the rest of the deck.
    ``board``: the community cards (hold'em/Omaha 0-5; stud: the common card of a deck that
    ran out, else empty). ``dead``: cards known to be out of play (folded hands, exposed
    burns, the discards of the exchange being served). Every card must be distinct.
    ``wild_ranks``: the wild ranks (deuce 0 .. ace 12) of the wild-card stud games (§23);
    ``low_hole_ace_high``: the rules key of Low Hole (§24), whose wild ranks come from each
    hand's down cards (the first two and the seventh of its dealing order).
    ``plans``: per hand, what is still to come to it, in order: a positive count of cards
    dealt, or 0 for an exchange that the fixed policy of docs/house-rules.md §29 plays (triple
    draw, English Stud), the plans aligned at their ends (a hand's last step is in the last
    round). None: every hand is dealt to its game's full count (stud 7, English Stud 6, triple
    draw 5) with no exchange. ``discards``: dead cards that go back into the stub when it
    cannot serve a step (§21: earlier exchanges' discards); ``held_back``: the discards of the
    exchange being served, whose replacement cards are the first step of hand
    ``held_back_hand``'s plan: out of play until then, then discards like the others.

    When at most ``exact_limit`` runouts remain and no exchange is to come they are all
    enumerated (``is_exact``); otherwise ``samples`` runouts are drawn with
    ``random.Random(seed)``. A stud deck too short for every seat's missing cards gets one
    common card, as in docs/house-rules.md §1.
    Raises ValueError for an unknown game, bad or repeated cards, or out-of-range counts.
    """
    variant = game if isinstance(game, Variant) else _variant(game)
    hands_t = tuple(tuple(_checked_cards(h, "hand")) for h in hands)
    board_t = tuple(_checked_cards(board, "board"))
    dead_t = tuple(_checked_cards(dead, "dead"))
    discards_t = tuple(_checked_cards(discards, "discards"))
    check_count("samples", samples, 1)
    check_count("exact_limit", exact_limit, 0)
    if type(seed) is not int:
        raise ValueError(f"seed must be an int, got {type(seed).__name__}")
    wild_t = frozenset(wild_ranks)
    if any(type(r) is not int or not 0 <= r < 13 for r in wild_t):
        raise ValueError(f"wild ranks must be rank indexes 0..12, got {sorted(wild_t)!r}")
    plans_t = None if plans is None else _checked_plans(plans, len(hands_t))
    held_t = tuple(_checked_cards(held_back, "held_back"))
    if held_t and (plans_t is None or type(held_back_hand) is not int
                   or not 0 <= held_back_hand < len(hands_t) or not plans_t[held_back_hand]
                   or plans_t[held_back_hand][0] != len(held_t)):
        raise ValueError("held_back: the discards of hand held_back_hand, whose plan starts "
                         "with as many replacement cards")
    return _equity_cached(variant, hands_t, board_t, dead_t, samples, exact_limit, seed,
                          _Showdown(wild_t, bool(low_hole_ace_high)), plans_t, discards_t,
                          held_t, held_back_hand if held_t else 0)


def runout_count(
    game: GameCode | str | Variant,
    hands: Sequence[Sequence[Card]],
    *,
    board: Sequence[Card] = (),
    dead: Sequence[Card] = (),
) -> int:
    """How many distinct runouts complete these cards (what `equity` compares with its limit)."""
    variant = game if isinstance(game, Variant) else _variant(game)
    plan = _plan(variant, tuple(tuple(h) for h in hands), tuple(board), tuple(dead), None, ())
    return plan.runouts


# ----------------------------------------------------------------------------- validation


def _variant(game: GameCode | str) -> Variant:
    try:
        return variant_for(str(game))
    except Exception as error:  # ConfigError: re-raised as the ValueError documented above
        raise ValueError(str(error)) from None


def _checked_cards(cards: Sequence[Card], what: str) -> list[Card]:
    out = []
    for card in cards:
        if type(card) is not int or not 0 <= card < DECK_SIZE:
            raise ValueError(f"{what}: not a card index 0..51: {card!r}")
        out.append(card)
    return out


def _checked_plans(plans: Sequence[Sequence[int]], hand_count: int) -> tuple[tuple[int, ...], ...]:
    if len(plans) != hand_count:
        raise ValueError(f"plans: one per hand ({hand_count}), got {len(plans)}")
    out = []
    for plan in plans:
        steps = tuple(plan)
        if len(steps) > 8 or any(type(k) is not int or not 0 <= k <= 7 for k in steps):
            raise ValueError(f"plans: at most 8 steps, each 0 (an exchange) or 1..7 cards, "
                             f"got {steps[:9]!r}")
        out.append(steps)
    return tuple(out)


def check_count(name: str, value: int, low: int) -> None:
    """A ValueError unless ``value`` is an int from ``low`` to `MAX_SAMPLES`."""
    if type(value) is not int or not low <= value <= MAX_SAMPLES:
        raise ValueError(f"{name} must be an int in {low}..{MAX_SAMPLES}, got {value!r}")


# ----------------------------------------------------------------------------- the plan


@dataclass(frozen=True, slots=True)
class _Plan:
    """What is known, what is missing, and how many ways the missing cards can come."""

    hands: tuple[tuple[Card, ...], ...]
    board: tuple[Card, ...]
    stub: tuple[Card, ...]  # the cards that can still be dealt
    missing: tuple[int, ...]  # cards to deal: the board first, then each seat
    runouts: int


def _plan(variant: Variant, hands: tuple[tuple[Card, ...], ...], board: tuple[Card, ...],
          dead: tuple[Card, ...], plans: tuple[tuple[int, ...], ...] | None,
          discards: tuple[Card, ...]) -> _Plan:
    if not hands:
        raise ValueError("equity needs at least one hand")
    if len(hands) > variant.max_seats:  # docs/house-rules.md §20: hold'em 11, Omaha 10, stud 8
        raise ValueError(f"at most {variant.max_seats} hands in {variant.code}, got {len(hands)}")
    known = [c for h in hands for c in h] + list(board) + list(dead) + list(discards)
    if len(set(known)) != len(known):
        raise ValueError("a card is given twice (hands, board, dead and discards must be distinct)")
    stub = tuple(sorted(set(range(DECK_SIZE)) - set(known)))
    board_total = sum(s.board_cards for s in variant.streets)
    if plans is not None:
        if len(board) > (1 if variant.is_stud else board_total):
            raise ValueError(f"{variant.code}: too many board cards ({len(board)})")
        if any(len(h) + sum(p) > _STUD_CARDS + 1 for h, p in zip(hands, plans, strict=True)):
            raise ValueError("a hand and its plan hold more than 8 cards")
        missing = (board_total - len(board) if not variant.is_stud else 0,
                   *(sum(p) for p in plans))
    elif variant.is_stud:
        if len(board) > 1:
            raise ValueError(f"stud: at most one common card, got {len(board)}")
        # The cards each hand holds at the showdown (English Stud's seventh card is optional).
        per_seat = sum(s.down_cards + s.up_cards for s in variant.streets
                       if not s.is_optional_card) - len(board)
        board_missing = 0
        if any(len(h) > per_seat for h in hands):
            raise ValueError(f"stud: at most {per_seat} cards per hand with this board")
        if not board and sum(per_seat - len(h) for h in hands) > len(stub):
            # docs/house-rules.md §1: the seventh card becomes one common card for every seat.
            per_seat, board_missing = per_seat - 1, 1
            if any(len(h) > per_seat for h in hands):
                raise ValueError("stud: the deck cannot complete these hands")
        missing = (board_missing, *(per_seat - len(h) for h in hands))
    else:
        hole = variant.hole_card_count
        if any(len(h) > hole for h in hands):
            raise ValueError(f"{variant.code}: at most {hole} hole cards per hand")
        if len(board) > board_total:
            raise ValueError(f"{variant.code}: at most {board_total} board cards")
        missing = (board_total - len(board), *(hole - len(h) for h in hands))
    if sum(missing) > len(stub) and discards:
        stub = tuple(sorted((*stub, *discards)))  # docs/house-rules.md §21: discards reshuffled
    if sum(missing) > len(stub):
        raise ValueError("not enough cards left in the deck to complete these hands")
    runouts = 1
    left = len(stub)
    for k in missing:
        runouts *= comb(left, k)
        left -= k
    return _Plan(hands, board, stub, missing, runouts)


# ----------------------------------------------------------------------------- scoring


@dataclass(frozen=True, slots=True)
class _Showdown:
    """The rules keys a showdown reads beyond the variant (docs/house-rules.md §23, §24)."""

    wild: frozenset[int]
    low_hole_ace_high: bool


class _Tally:
    """Sums of each seat's high share, low share and scoops over the runouts seen."""

    __slots__ = ("high", "low", "scoop")

    def __init__(self, seats: int) -> None:
        self.high = [0.0] * seats
        self.low = [0.0] * seats
        self.scoop = [0] * seats

    def add(self, values: Values) -> None:
        highs, lows = values
        low_winners = best_seats(lows, range(len(lows))) if lows is not None else []
        if highs is None:  # razz: the low takes the whole pot
            for seat in low_winners:
                self.low[seat] += 1.0 / len(low_winners)
            if len(low_winners) == 1:
                self.scoop[low_winners[0]] += 1
            return
        high_winners = best_seats(highs, range(len(highs)))
        high_share = 0.5 if low_winners else 1.0
        for seat in high_winners:
            self.high[seat] += high_share / len(high_winners)
        for seat in low_winners:
            self.low[seat] += 0.5 / len(low_winners)
        if len(high_winners) == 1:
            seat = high_winners[0]
            if not low_winners or low_winners == [seat]:
                self.scoop[seat] += 1

    def result(self, runouts: int, *, is_exact: bool) -> Equity:
        seats = tuple(SeatEquity(h / runouts, lo / runouts, s / runouts)
                      for h, lo, s in zip(self.high, self.low, self.scoop, strict=True))
        return Equity(seats, runouts, is_exact)


# ----------------------------------------------------------------------------- runouts


def _iter_exact(stub: tuple[Card, ...], missing: tuple[int, ...]) -> Iterator[list[tuple[Card, ...]]]:
    """Every way to deal ``missing[k]`` cards to slot k from the stub, each exactly once."""
    slots = [k for k, count in enumerate(missing) if count]
    if len(slots) == 1:  # the usual case of flop games: only board cards to come
        only = slots[0]
        empty: list[tuple[Card, ...]] = [()] * len(missing)
        for cards in combinations(stub, missing[only]):
            dealt = empty.copy()
            dealt[only] = cards
            yield dealt
        return
    yield from _iter_exact_slots(stub, missing)


def _iter_exact_slots(stub: tuple[Card, ...], missing: tuple[int, ...]) -> Iterator[list[tuple[Card, ...]]]:
    if not missing:
        yield []
        return
    first, rest = missing[0], missing[1:]
    if first == 0:
        for tail in _iter_exact_slots(stub, rest):
            yield [(), *tail]
        return
    for cards in combinations(stub, first):
        taken = set(cards)
        left = tuple(c for c in stub if c not in taken)
        for tail in _iter_exact_slots(left, rest):
            yield [cards, *tail]


def _iter_sampled(stub: tuple[Card, ...], missing: tuple[int, ...], samples: int,
                  seed: int) -> Iterator[list[Sequence[Card]]]:
    """``samples`` uniformly random deals: a partial Fisher-Yates shuffle of the stub each time."""
    random_ = random.Random(seed).random
    deck = list(stub)
    total = sum(missing)
    bounds = []
    start = 0
    for k in missing:
        bounds.append((start, start + k))
        start += k
    for _ in range(samples):
        shuffle_steps(deck, 0, total, random_)
        yield [deck[a:b] for a, b in bounds]


@lru_cache(maxsize=4096)
def _equity_cached(variant: Variant, hands: tuple[tuple[Card, ...], ...], board: tuple[Card, ...],
                   dead: tuple[Card, ...], samples: int, exact_limit: int, seed: int,
                   showdown: _Showdown, plans: tuple[tuple[int, ...], ...] | None,
                   discards: tuple[Card, ...], held_back: tuple[Card, ...],
                   held_back_hand: int) -> Equity:
    plan = _plan(variant, hands, board, (*dead, *held_back), plans, discards)
    score = showdown_scorer(variant, showdown.wild, showdown.low_hole_ace_high)
    tally = _Tally(len(hands))
    if plans is not None and any(0 in p for p in plans):
        # Exchanges to come (docs/house-rules.md §29): sampled, each played by the policy.
        known = {c for h in hands for c in h} | {*board, *dead, *discards, *held_back}
        stub = tuple(c for c in range(DECK_SIZE) if c not in known)
        for final in sample_exchanges(variant, hands, plans, stub, discards, samples, seed,
                                      held_back=held_back, held_back_hand=held_back_hand):
            tally.add(score(final, board))
        return tally.result(samples, is_exact=False)
    is_exact = plan.runouts <= exact_limit
    runouts: Iterator[Sequence[Sequence[Card]]]
    if is_exact:
        runouts = _iter_exact(plan.stub, plan.missing)
        count = plan.runouts
    else:
        runouts = _iter_sampled(plan.stub, plan.missing, samples, seed)
        count = samples
    for dealt in runouts:
        full_board = (*plan.board, *dealt[0]) if dealt[0] else plan.board
        full_hands: list[Sequence[Card]] = [(*h, *d) if d else h
                                             for h, d in zip(plan.hands, dealt[1:], strict=True)]
        tally.add(score(full_hands, full_board))
    return tally.result(count, is_exact=is_exact)
