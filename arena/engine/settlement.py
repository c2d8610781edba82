"""Settlement: the uncontested award, the showdown (order, shows and mucks), each game's showdown
values and the pot awards."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Final

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
from arena.engine.games import LOW_HOLE_SHOWDOWNS, WILD_SHOWDOWNS, Showdown, Variant
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


_SPLIT = frozenset({Showdown.HIGH_LOW_8, Showdown.WILD_HIGH_LOW_8, Showdown.LOW_HOLE_HI_LO})
_NO_RANKS: frozenset[int] = frozenset()
_FLUSH_BITS: Final = ev.FLUSH_BITS


# ----------------------------------------------------------------- showdown values

Values = tuple[list[int] | None, list[int | None] | None]
"""Each hand's high and low values (a half the game does not play: None; a hand without a
qualifying low: None); bigger is better."""
Scorer = Callable[[Sequence[Sequence[Card]], Sequence[Card]], Values]
"""The `Values` of complete hands (each seat's own cards) and the board."""


def _full(hands: Sequence[Sequence[Card]], board: Sequence[Card]) -> Sequence[Sequence[Card]]:
    return [(*h, *board) for h in hands] if board else hands


def _score_holdem(hands: Sequence[Sequence[Card]], board: Sequence[Card]) -> Values:
    keys = ev.KEY
    board_t = ev.SUIT_OFFSET + sum(keys[c] for c in board)
    highs = []
    for hand in hands:
        t = board_t
        for card in hand:
            t += keys[card]
        highs.append(ev.high_value_from_keys(t, (*hand, *board) if t & _FLUSH_BITS else ()))
    return highs, None


def _score_high(hands: Sequence[Sequence[Card]], board: Sequence[Card]) -> Values:
    return [ev.high_value(h) for h in _full(hands, board)], None


def _score_high_low_8(hands: Sequence[Sequence[Card]], board: Sequence[Card]) -> Values:
    full = _full(hands, board)
    return [ev.high_value(h) for h in full], [ev.low8_value(h) for h in full]


def _score_omaha(hands: Sequence[Sequence[Card]], board: Sequence[Card]) -> Values:
    return [ev.omaha_high_value(h, board) for h in hands], None


def _score_omaha_hi_lo(hands: Sequence[Sequence[Card]], board: Sequence[Card]) -> Values:
    return ([ev.omaha_high_value(h, board) for h in hands],
            [ev.omaha_low8_value(h, board) for h in hands])


def _low_only(value_of: Callable[[Sequence[Card]], int]) -> Scorer:
    """Razz (ace-to-five, docs/house-rules.md §5), 2-7 (§21), ace-to-six (§22): the low takes all."""
    def score(hands: Sequence[Sequence[Card]], board: Sequence[Card]) -> Values:
        return None, [value_of(h) for h in _full(hands, board)]
    return score


_SCORE_RAZZ: Final = _low_only(ev.low_value)
_SCORE_DEUCE_TO_SEVEN: Final = _low_only(deuce_to_seven_value)
_SCORE_ACE_TO_SIX: Final = _low_only(ace_to_six_value)


def _wild_scorer(kind: Showdown, wild: frozenset[int]) -> Scorer:
    """docs/house-rules.md §23: every card of a wild rank stands for any card."""
    def score(hands: Sequence[Sequence[Card]], board: Sequence[Card]) -> Values:
        full = _full(hands, board)
        highs = None if kind is Showdown.WILD_LOW else [wild_high_value(h, wild) for h in full]
        lows: list[int | None] | None = None
        if kind is not Showdown.WILD_HIGH:
            eight = kind is Showdown.WILD_HIGH_LOW_8
            lows = [wild_low_value(h, wild, eight_or_better=eight) for h in full]
        return highs, lows
    return score


def _low_hole_scorer(variant: Variant, ace_high: bool) -> Scorer:
    """docs/house-rules.md §24: each hand's own lowest down card is wild for it (the down cards
    by their place in the dealing order); the high-low game's low with its own wild rank."""
    ups = tuple(up for street in variant.streets
                for up in (False,) * street.down_cards + (True,) * street.up_cards)
    hi_lo = variant.showdown is Showdown.LOW_HOLE_HI_LO

    def score(hands: Sequence[Sequence[Card]], board: Sequence[Card]) -> Values:
        highs: list[int] = []
        lows: list[int | None] = []
        for hand in hands:
            flags = ups[:len(hand)]
            seen = (*hand, *board) if board else hand
            highs.append(wild_high_value(seen, low_hole_wild_ranks(hand, flags, ace_high=ace_high)))
            if hi_lo:
                lows.append(wild_low_value(seen, low_hole_low_wild_ranks(hand, flags),
                                           eight_or_better=True))
        return highs, lows if hi_lo else None
    return score


def showdown_scorer(variant: Variant, wild: frozenset[int] = frozenset(),
                    low_hole_ace_high: bool = True) -> Scorer:
    """How ``variant``'s showdown values hands: the one valuation of the settlement, the
    equities and the words of a shown hand. ``wild``: the wild ranks of the wild-card games
    (§23); ``low_hole_ace_high``: the rules key of Low Hole (§24)."""
    kind = variant.showdown
    if kind is Showdown.HIGH or kind is Showdown.HIGH_LOW_8:
        split = kind is Showdown.HIGH_LOW_8
        if variant.is_omaha:
            return _score_omaha_hi_lo if split else _score_omaha
        if split:
            return _score_high_low_8
        return _score_high if variant.is_stud else _score_holdem
    if kind is Showdown.LOW:
        if not variant.is_stud:
            raise ValueError(f"{variant.code}: a low-only flop game is not supported")
        return _SCORE_RAZZ
    if kind is Showdown.DEUCE_TO_SEVEN:
        return _SCORE_DEUCE_TO_SEVEN
    if kind is Showdown.ACE_TO_SIX:
        return _SCORE_ACE_TO_SIX
    if kind in LOW_HOLE_SHOWDOWNS:
        return _low_hole_scorer(variant, low_hole_ace_high)
    return _wild_scorer(kind, wild)


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
    variant = hand.variant
    kind = variant.showdown
    board = hand.board
    all_cards = hand.cards
    seats = [i for i in range(n) if contenders[i]]
    if hand._deck is None:
        # A seeded deck deals only known cards; other sources (hand histories) may leave some
        # unknown until they are shown.
        unknown_board = bool(board) and not is_known(max(board))
        for seat in seats:
            if unknown_board or not is_known(max(all_cards[seat])):
                raise IllegalAction(f"seat {seat} reaches the showdown with unknown cards")
    rules = hand.rules
    score = showdown_scorer(variant, rules.wild_rank_set if kind in WILD_SHOWDOWNS else _NO_RANKS,
                            rules.low_hole_ace_high)
    highs, lows = score([all_cards[seat] for seat in seats], board)
    high: list[int | None] = [None] * n
    low: list[int | None] = [None] * n
    if highs is not None:
        for seat, value in zip(seats, highs, strict=True):
            high[seat] = value
    if lows is not None:
        for seat, low_value in zip(seats, lows, strict=True):
            low[seat] = low_value
    pots = with_dead_chips(build_pots(hand.committed, contenders), hand.dead_chips,
                           contenders)
    awards: list[PotAwarded] = []
    split = kind in _SPLIT
    stacks = hand.stacks
    events = hand.events
    for index, pot in enumerate(pots):
        for award in award_pot(index, pot, high, None if lows is None else low,
                               split_high_low=split):
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
