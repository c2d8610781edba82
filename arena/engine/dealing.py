"""Dealing: the cards of each street from the card source, and the stud seat that opens a round."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

from arena.engine import evaluate as ev
from arena.engine.cards import DECK_SIZE, Card, is_known, rank_of, suit_of
from arena.engine.events import BoardDealt, HoleCardsDealt

if TYPE_CHECKING:
    from arena.engine.state import HandState

BOARD = -1  # the "seat" of board cards for card sources


def draw(hand: HandState, seat: int, count: int) -> list[Card]:
    """``count`` cards from the source for ``seat``, one deal at a time unless it is a deck."""
    deck = hand._deck
    if deck is not None:
        return deck.draw_many(count)
    deal = hand.source.deal
    return [deal(seat) for _ in range(count)]


def deal_street(hand: HandState) -> None:
    street_index = hand.street_index
    street = hand.variant.streets[street_index]
    source = hand.source
    if street.board_cards:
        if street.burn:
            source.burn()
        cards = tuple(draw(hand, BOARD, street.board_cards))
        hand.board.extend(cards)
        hand.events.append(BoardDealt(street_index, cards))
        return
    if street_index == 0 and hand.rules.burn_before_hole_cards and not hand.variant.is_stud:
        source.burn()
    folded = hand.folded
    seats = [i for i in range(hand.seat_count) if not folded[i]]
    per_seat = street.down_cards + street.up_cards
    needed = per_seat * len(seats)
    if hand.variant.is_stud:
        if len(source) < needed + (1 if street.burn else 0):
            source.recycle_burned()  # RULES.md §1: burn cards go back into a short stub
            if len(source) >= needed + 1 and street.burn:
                source.burn()
        elif street.burn:
            source.burn()
        if len(source) < needed:
            # Still short: one common card face up counts as every live seat's card.
            card = source.deal(BOARD)
            hand.board.append(card)
            hand.events.append(BoardDealt(street_index, (card,), True))
            return
    elif street.burn:
        source.burn()
    # Cards go one at a time clockwise from seat 0, the first seat left of the button:
    # card ``r * len(seats) + k`` of the street goes to ``seats[k]``.
    ups = (False,) * street.down_cards + (True,) * street.up_cards
    down = street.down_cards
    live = len(seats)
    deck = hand._deck
    if deck is not None:
        drawn = deck.draw_many(needed)
    else:
        deal = source.deal
        drawn = [deal(seat) for _round in range(per_seat) for seat in seats]
    events = hand.events
    seat_cards = hand.cards
    seat_is_up = hand.is_up
    seat_up_cards = hand._up if street.up_cards else None
    for k, seat in enumerate(seats):
        cards = tuple(drawn[k::live])
        seat_cards[seat].extend(cards)
        seat_is_up[seat].extend(ups)
        if seat_up_cards is not None:
            seat_up_cards[seat].extend(cards[down:])  # down cards come first on every street
        events.append(HoleCardsDealt(seat, street_index, cards, ups))


# ----------------------------------------------------------------- stud order


def stud_opener(hand: HandState) -> int:
    live = [i for i in range(hand.seat_count)
            if not hand.folded[i] and is_known(max(hand._up[i], default=0))]
    variant = hand.variant
    if hand.street_index == 0:
        # Bring-in: lowest up card (aces high), razz the highest (aces low); ties by suit.
        def door_key(seat: int) -> tuple[int, int]:
            card = hand._up[seat][-1]
            rank = rank_of(card)
            if variant.bring_in_by_high_card:
                rank = -1 if rank == 12 else rank
                return rank, suit_of(card)
            return -rank, -suit_of(card)

        return max(live, key=door_key)
    board = hand.board
    by_suit = hand.rules.stud_tie_break == "suit"
    showing: Callable[[Sequence[Card]], int]
    showing = ev.showing_low_value if variant.opens_by_low_showing else ev.showing_high_value

    def show_key(seat: int) -> tuple[int, int, int]:
        ups = hand._up[seat] + board
        value = showing(ups)
        if not by_suit:
            return value, 0, -seat
        if variant.opens_by_low_showing:
            top = max(ups, key=_low_order)
            return value, -suit_of(top), -seat  # razz: the lower suit acts first
        top = max(ups)
        return value, suit_of(top), -seat  # stud: the higher suit acts first

    return max(live, key=show_key)


def _low_order(card: Card) -> int:
    """Sort key ranking aces below deuces, then by suit: ``(low rank, suit)`` as one int."""
    return card - DECK_SIZE if 48 <= card < DECK_SIZE else card  # an ace's rank 12 becomes -1
