"""Settlement: the uncontested award, the showdown (order, shows and mucks) and the pot awards."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from arena.engine import evaluate as ev
from arena.engine.cards import Card, is_known
from arena.engine.errors import IllegalAction
from arena.engine.events import (
    HandMucked,
    HandResult,
    HandShown,
    Pot,
    PotAwarded,
    PotShare,
    UncalledBetReturned,
)
from arena.engine.games import Showdown
from arena.engine.lowball import ace_to_six_value, deuce_to_seven_value
from arena.engine.pots import award_pot, build_pots, with_dead_chips
from arena.engine.wild import (
    low_hole_low_wild_ranks,
    low_hole_wild_ranks,
    wild_high_value,
    wild_low_value,
)

if TYPE_CHECKING:
    from arena.engine.state import HandState


_WILD = frozenset({Showdown.WILD_HIGH, Showdown.WILD_LOW, Showdown.WILD_HIGH_LOW_8})
_SPLIT = frozenset({Showdown.HIGH_LOW_8, Showdown.WILD_HIGH_LOW_8, Showdown.LOW_HOLE_HI_LO})
_HIGH_ONLY = frozenset({Showdown.HIGH, Showdown.WILD_HIGH, Showdown.LOW_HOLE})


def award_uncontested(hand: HandState, winner: int) -> None:
    # An all-in winner wins from each seat only what it matched itself (docs/house-rules.md §5);
    # anything above that was never called and goes back to whoever put it in.
    cap = hand.committed[winner]
    for seat in range(hand.seat_count):
        excess = hand.committed[seat] - cap
        if excess > 0:
            hand.committed[seat] = cap
            hand.stacks[seat] += excess
            hand.events.append(UncalledBetReturned(seat, excess))
    live = [not f for f in hand.folded]
    pots = with_dead_chips(build_pots(hand.committed, live), hand.dead_chips, live)
    total = sum(hand.committed) + hand.dead_chips
    award = PotAwarded(0, PotShare.WHOLE, total, (winner,), (total,))
    hand.stacks[winner] += total
    hand.events.append(award)
    finish(hand, tuple(pots), (award,), ())


def showdown(hand: HandState) -> None:
    folded = hand.folded
    n = hand.seat_count
    start = hand._last_aggressor if hand._last_aggressor is not None else hand._first_actor
    if start is None:
        start = folded.index(False)  # the first live seat
    # Live seats clockwise from ``start``.
    order = [i for i in range(start, n) if not folded[i]]
    order += [i for i in range(start) if not folded[i]]
    hand.showdown_order = order
    if hand.manual_showdown:
        hand.is_showdown_pending = True
        return
    shown = hand._shown
    cards = hand.cards
    events = hand.events
    for seat in order:
        shown[seat] = True
        events.append(HandShown(seat, tuple(cards[seat])))
    settle(hand)


def show_cards(hand: HandState, seat: int, cards: Sequence[Card] | None) -> None:
    """Replay only: seat shows (``cards``) or mucks (``None``); see :meth:`HandState.show`."""
    if hand.folded[seat]:
        raise IllegalAction(f"seat {seat} folded and has no hand to show")
    if cards is not None:
        own = hand.cards[seat]
        if len(cards) > len(own) or any(
            c != o and is_known(o) for c, o in zip(cards, own, strict=False)
        ):
            raise IllegalAction(f"seat {seat} shows cards it was not dealt")
        own[: len(cards)] = cards
        hand._up[seat] = [c for c, up in zip(own, hand.is_up[seat], strict=True) if up]
        hand._up_key = None  # up cards changed here: the stud opener rescans them
    if not hand.is_showdown_pending:
        if hand.is_over:
            raise IllegalAction("the hand is over")
        return
    if cards is not None and len(cards) < len(hand.cards[seat]):
        return  # tabled early, before the last cards were dealt: the full show follows
    if hand._shown[seat] is not None:
        raise IllegalAction(f"seat {seat} already showed or mucked")
    if cards is None:
        hand._shown[seat] = False
        hand.events.append(HandMucked(seat))
    else:
        hand._shown[seat] = True
        hand.events.append(HandShown(seat, tuple(cards)))
    if all(hand._shown[i] is not None for i in hand.showdown_order):
        hand.is_showdown_pending = False
        settle(hand)


def settle(hand: HandState) -> None:
    n = hand.seat_count
    folded = hand.folded
    shown = hand._shown
    contenders = [not folded[i] and shown[i] is not False for i in range(n)]
    if True not in contenders:
        contenders = [not f for f in folded]
    high: list[int | None] = [None] * n
    low: list[int | None] = [None] * n
    variant = hand.variant
    kind = variant.showdown
    is_omaha = variant.is_omaha
    board = hand.board
    # A seeded deck deals only known cards; other sources (hand histories) may leave some
    # unknown until they are shown.
    may_be_unknown = hand._deck is None
    unknown_board = may_be_unknown and bool(board) and not is_known(max(board))
    all_cards = hand.cards
    for seat in range(n):
        if not contenders[seat]:
            continue
        cards = all_cards[seat]
        if may_be_unknown and (unknown_board or not is_known(max(cards))):
            raise IllegalAction(f"seat {seat} reaches the showdown with unknown cards")
        if is_omaha:
            high[seat] = ev.omaha_high_value(cards, board)
            low[seat] = ev.omaha_low8_value(cards, board)
        else:
            seen = cards + board if board else cards
            if kind is Showdown.LOW:
                low[seat] = ev.low_value(seen)
            elif kind is Showdown.DEUCE_TO_SEVEN:
                low[seat] = deuce_to_seven_value(seen)
            elif kind is Showdown.ACE_TO_SIX:
                low[seat] = ace_to_six_value(seen)
            elif kind is Showdown.LOW_HOLE or kind is Showdown.LOW_HOLE_HI_LO:
                ups = hand.is_up[seat]
                high[seat] = wild_high_value(seen, low_hole_wild_ranks(
                    cards, ups, ace_high=hand.rules.low_hole_ace_high))
                if kind is Showdown.LOW_HOLE_HI_LO:
                    low[seat] = wild_low_value(seen, low_hole_low_wild_ranks(cards, ups),
                                               eight_or_better=True)
            elif kind in _WILD:
                wild = hand.rules.wild_rank_set
                if kind is not Showdown.WILD_LOW:
                    high[seat] = wild_high_value(seen, wild)
                if kind is not Showdown.WILD_HIGH:
                    low[seat] = wild_low_value(seen, wild,
                                               eight_or_better=kind is Showdown.WILD_HIGH_LOW_8)
            else:
                high[seat] = ev.high_value(seen)
                if kind is Showdown.HIGH_LOW_8:
                    low[seat] = ev.low8_value(seen)
    pots = with_dead_chips(build_pots(hand.committed, contenders), hand.dead_chips,
                           contenders)
    awards: list[PotAwarded] = []
    split = kind in _SPLIT
    lows = None if kind in _HIGH_ONLY else low
    stacks = hand.stacks
    events = hand.events
    for index, pot in enumerate(pots):
        for award in award_pot(index, pot, high, lows, split_high_low=split):
            awards.append(award)
            for seat, amount in zip(award.winners, award.amounts_chips, strict=True):
                stacks[seat] += amount
            events.append(award)
    finish(hand, tuple(pots), tuple(awards), tuple(hand.showdown_order))


def finish(hand: HandState, pots: tuple[Pot, ...], awards: tuple[PotAwarded, ...],
            order: tuple[int, ...]) -> None:
    hand.is_over = True
    hand.actor = None
    hand.bets = [0] * hand.seat_count
    hand.result = HandResult(pots, awards, hand.starting_stacks, tuple(hand.stacks), order)
