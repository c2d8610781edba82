"""Dealing: the cards of each street from the card source, and the stud seat that opens a round."""

from __future__ import annotations

from typing import TYPE_CHECKING

from arena.engine import evaluate as ev
from arena.engine.cards import DECK_SIZE
from arena.engine.errors import IllegalAction
from arena.engine.events import BoardDealt, HoleCardsDealt

if TYPE_CHECKING:
    from arena.engine.state import HandState

BOARD = -1  # the "seat" of board cards for card sources


def deal_street(hand: HandState) -> None:
    street_index = hand.street_index
    street = hand.variant.streets[street_index]
    source = hand.source
    deck = hand._deck
    if street.board_cards:
        count = street.board_cards
        if deck is not None:
            drawn = deck.burn_and_draw(count) if street.burn else deck.draw_many(count)
        else:
            if street.burn:
                source.burn()
            drawn = [source.deal(BOARD) for _ in range(count)]
        cards = tuple(drawn)
        hand.board.extend(cards)
        hand.events.append(BoardDealt(street_index, cards))
        return
    if not (street.down_cards or street.up_cards):
        return  # an exchange round only (draw games)
    if street.is_optional_card and not (hand.rules.english_seventh_card and hand.seat_count <= 5):
        return  # docs/house-rules.md §25: English Stud's seventh card only by the rules, at most 5 seats
    is_stud = hand.variant.is_stud
    if street_index == 0 and hand.rules.burn_before_hole_cards and not is_stud:
        source.burn()
    folded = hand.folded
    seats = [i for i in range(hand.seat_count) if not folded[i]]
    per_seat = street.down_cards + street.up_cards
    needed = per_seat * len(seats)
    burn = street.burn
    if deck is not None and len(deck) >= needed + burn:
        # The usual case, a seeded deck with cards enough: burn and deal in one pass.
        drawn = deck.burn_and_draw(needed) if burn else deck.draw_many(needed)
    else:
        if is_stud:
            if len(source) < needed + (1 if burn else 0):
                source.recycle_burned()  # docs/house-rules.md §1: burn cards go back into a short stub
                if len(source) >= needed + 1 and burn:
                    source.burn()
            elif burn:
                source.burn()
            if len(source) < needed:
                # Still short: one common card face up counts as every live seat's card.
                card = source.deal(BOARD)
                hand.board.append(card)
                hand.events.append(BoardDealt(street_index, (card,), True))
                return
        elif burn:
            source.burn()
        if deck is not None:
            drawn = deck.draw_many(needed)
        else:
            deal = source.deal
            drawn = [deal(seat) for _round in range(per_seat) for seat in seats]
    # Cards go one at a time clockwise from seat 0, the first seat left of the button:
    # card ``r * len(seats) + k`` of the street goes to ``seats[k]``.
    down = street.down_cards
    ups = (False,) * down + (True,) * street.up_cards
    live = len(seats)
    events = hand.events
    seat_cards = hand.cards
    seat_is_up = hand.is_up
    seat_up_cards = hand._up if street.up_cards else None
    # Stud with known cards: each seat's showing rank key and tie-break card, kept up to date
    # here so that stud_opener need not rescan every up card on every street.
    up_keys = hand._up_key if seat_up_cards is not None else None
    ties = hand._up_tie
    tie_order = _TIE_ORDER_LOW if hand.variant.opens_by_low_showing else _TIE_ORDER_HIGH
    if per_seat == 1:  # stud fourth to seventh street: one card each
        is_up = ups[0]
        if seat_up_cards is None:  # seventh street, down
            for seat, card in zip(seats, drawn, strict=True):
                seat_cards[seat].append(card)
                seat_is_up[seat].append(is_up)
                events.append(HoleCardsDealt(seat, street_index, (card,), ups))
            return
        for seat, card in zip(seats, drawn, strict=True):
            seat_cards[seat].append(card)
            seat_is_up[seat].append(is_up)
            seat_up_cards[seat].append(card)
            if up_keys is not None:
                up_keys[seat] += _RANK_KEY[card]
                order = tie_order[card]
                if order > ties[seat]:
                    ties[seat] = order
            events.append(HoleCardsDealt(seat, street_index, (card,), ups))
        return
    for k, seat in enumerate(seats):
        cards = tuple(drawn[k::live])
        seat_cards[seat].extend(cards)
        seat_is_up[seat].extend(ups)
        if seat_up_cards is not None:
            shown = cards[down:]  # down cards come first on every street
            seat_up_cards[seat].extend(shown)
            if up_keys is not None:
                for card in shown:
                    up_keys[seat] += _RANK_KEY[card]
                    order = tie_order[card]
                    if order > ties[seat]:
                        ties[seat] = order
        events.append(HoleCardsDealt(seat, street_index, cards, ups))


# ----------------------------------------------------------------- stud order


def stud_opener(hand: HandState) -> int:
    """The seat that opens the betting of a stud street (docs/house-rules.md §3 "Stud").

    Third street: the bring-in, the lowest up card (aces high; razz: the highest, aces low),
    ties by suit. Later streets: the best showing hand (razz: the lowest), ties by the suit of
    the top up card (``stud_tie_break = "suit"``), else the first such seat clockwise. Seats
    with an up card a hand history left unknown are skipped.
    """
    folded = hand.folded
    up = hand._up
    variant = hand.variant
    best_seat = -1
    best_key = 0
    if hand.street_index == 0:
        high_card = variant.bring_in_by_high_card
        if variant.code == "FLL":  # docs/house-rules.md §22: the key `london_lowball_bring_in`
            high_card = hand.rules.london_lowball_bring_in == "high"
        for seat in range(hand.seat_count):
            if folded[seat]:
                continue
            ups = up[seat]
            if ups and max(ups) >= DECK_SIZE:
                continue  # unknown
            door = ups[-1]
            # Stud: the lowest card (rank, then suit) brings it in; razz the highest with
            # aces low (an ace's rank 12 counts as -1: ``door - DECK_SIZE``).
            key = (door - DECK_SIZE if door >= _FIRST_ACE else door) if high_card else -door
            if best_seat < 0 or key > best_key:
                best_seat, best_key = seat, key
        return best_seat
    board = hand.board
    by_suit = hand.rules.stud_tie_break == "suit"
    low = variant.opens_by_low_showing
    # showing_low_value / showing_high_value, read from their tables by rank key.
    showing = ev.SHOWING_LOW_BY_RANK_KEY if low else ev.SHOWING_HIGH_BY_RANK_KEY
    up_keys = hand._up_key
    if up_keys is not None and not board:
        # The usual case: every up card known, no common card; keys kept by deal_street.
        # The same comparison as below: the tie-break card is the top up card (razz: aces
        # low, so the top non-ace when there is one), the higher suit first (razz: lower).
        ties = hand._up_tie
        for seat in range(hand.seat_count):
            if folded[seat]:
                continue
            suit_key = (3 - (ties[seat] & 3) if low else ties[seat] & 3) if by_suit else 0
            key = (showing[up_keys[seat]] << 2 | suit_key) << 4 | (15 - seat)
            if best_seat < 0 or key > best_key:
                best_seat, best_key = seat, key
        return best_seat
    rank_key_at = ev.RANK_KEY.__getitem__
    for seat in range(hand.seat_count):
        if folded[seat]:
            continue
        ups = up[seat]
        top = max(ups) if ups else 0
        if top >= DECK_SIZE:
            continue  # unknown
        if board:
            ups = ups + board
            top = max(ups)
        if not by_suit:
            suit_key = 0
        elif low:
            # Razz: the top card aces low; the lower suit acts first.
            if top >= _FIRST_ACE:
                non_aces = [c for c in ups if c < _FIRST_ACE]
                if non_aces:
                    top = max(non_aces)
            suit_key = 3 - (top & 3)
        else:
            suit_key = top & 3  # stud: the higher suit acts first
        # (value, suit key, -seat) compared as one int: the first seat wins a full tie.
        key = (showing[sum(map(rank_key_at, ups))] << 2 | suit_key) << 4 | (15 - seat)
        if best_seat < 0 or key > best_key:
            best_seat, best_key = seat, key
    if best_seat < 0:
        raise IllegalAction("no live seat shows a known up card")
    return best_seat


_FIRST_ACE = 48  # the ace of clubs: cards 48 to 51 are the aces
_RANK_KEY = ev.RANK_KEY
# The order in which an up card breaks a tie (by its suit): stud the top card; razz the top
# card with aces low (an ace counts below a deuce: ``card - DECK_SIZE``).
_TIE_ORDER_HIGH: tuple[int, ...] = tuple(range(DECK_SIZE))
_TIE_ORDER_LOW: tuple[int, ...] = tuple(c - DECK_SIZE if c >= _FIRST_ACE else c
                                        for c in range(DECK_SIZE))
