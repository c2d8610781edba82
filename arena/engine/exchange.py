"""Exchange rounds of the draw games (docs/house-rules.md §25 English Stud, §21 2-7 triple draw).

Before the betting of a street whose ``exchange_max_cards`` is set, one card is burned, then
each live seat in turn from the first seat left of the button (seat 0), all-in seats too, gives
away up to that many of its cards (none: it stands pat) and is dealt as many new ones at once,
each face up exactly when the card it replaces was. When the stub cannot serve an exchange,
the burn cards and the discards of the seats that exchanged before are shuffled into it
(never the discards of the seat now exchanging, nor folded hands: docs/house-rules.md §1); an empty
stub at the burn is made from them the same way first.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache
from typing import TYPE_CHECKING

from arena.engine.actions import LegalActions
from arena.engine.cards import Card, format_card
from arena.engine.errors import IllegalAction, MalformedAction, NotYourTurn
from arena.engine.events import CardsExchanged
from arena.engine.legal import verify_action

if TYPE_CHECKING:
    from arena.engine.state import HandState


def begin_exchanges(hand: HandState) -> None:
    """Start the exchange round of the current street: burn, then the first seat is to act."""
    street = hand.variant.streets[hand.street_index]
    # A burn before the exchanges when the street deals no cards of its own (draw games); a
    # stud street burns before its card, after the exchanges (deal_street).
    if street.burn and not (street.down_cards or street.up_cards or street.board_cards):
        if not len(hand.source):
            hand.source.recycle(hand.discards)  # an empty stub: the discards come back first
            hand.discards = []
        if len(hand.source):
            hand.source.burn()
    hand.exchanging = [seat for seat in range(hand.seat_count) if not hand.folded[seat]]
    hand._legal = None
    hand.actor = hand.exchanging[0]


def check_exchange(hand: HandState, seat: int, discards: Sequence[Card],
                   face_up: bool | None = None) -> LegalActions:
    """The typed error when ``seat`` may not give away ``discards`` now (nothing changes).
    ``face_up``, when given, is the face the seat asks for its new cards: it must be the face
    of the cards it gives away (docs/house-rules.md §25: a down card for a down card, an up card for
    an up card)."""
    exchanging = hand.exchanging
    if exchanging and seat != exchanging[0] and 0 <= seat < hand.seat_count \
            and not hand.folded[seat] and seat not in exchanging:
        raise NotYourTurn(f"seat {seat} has already exchanged or stood pat in this round; "
                          f"seat {exchanging[0]} is to exchange")
    legal = verify_action(hand, seat, None, None)
    if not legal.can_exchange:
        raise IllegalAction(f"seat {seat} may not exchange now: it is a betting round")
    if not isinstance(discards, Sequence) or any(type(c) is not int for c in discards):
        raise MalformedAction("an exchange names its cards, e.g. 'exchange 7h6c'")
    if len(set(discards)) != len(discards):
        raise IllegalAction(f"seat {seat} names a card twice in one exchange")
    if len(discards) > legal.exchange_max_cards:
        why = (f"it has {hand.stacks[seat]} chips, the exchange costs "
               f"{hand.exchange_price_chips}" if legal.exchange_max_cards == 0 and discards
               else f"at most {legal.exchange_max_cards} card(s) in this round")
        raise IllegalAction(f"seat {seat} may not exchange {len(discards)} card(s): {why}")
    own = hand.cards[seat]
    for card in discards:
        if card not in own:
            shown = format_card(card) if 0 <= card < 52 else repr(card)
            raise IllegalAction(f"seat {seat} does not hold {shown}; it may exchange only its "
                                f"own cards")
    if face_up is not None:
        ups = hand.is_up[seat]
        for card in discards:
            if ups[own.index(card)] != face_up:
                given, asked = ("an up", "a down") if not face_up else ("a down", "an up")
                raise IllegalAction(f"seat {seat} may not exchange {given} card for {asked} "
                                    f"card: a down card for a down card, an up card for an up "
                                    f"card")
    return legal


@lru_cache(maxsize=1024)
def _stand_pat(seat: int, street: int, automatic: bool) -> CardsExchanged:
    """Standing pat repeats hand after hand: one shared (immutable) event per value, as for
    checks in state.py."""
    return CardsExchanged(seat, street, (), (), (), 0, automatic)


def apply_exchange(hand: HandState, seat: int, discards: Sequence[Card],
                   automatic: bool, face_up: bool | None = None) -> CardsExchanged:
    """Give away ``discards`` (checked by :func:`check_exchange`), deal their replacements."""
    if seat == hand.actor and hand.exchanging and type(discards) in (tuple, list) \
            and not discards:
        # Standing pat, the common case: nothing to check beyond whose turn it is.
        event = _stand_pat(seat, hand.street_index, automatic)
        hand.events.append(event)
        return event
    legal = check_exchange(hand, seat, discards, face_up)
    own = hand.cards[seat]
    ups = hand.is_up[seat]
    positions = sorted(map(own.index, discards))
    count = len(positions)
    discarded = tuple([own[i] for i in positions])  # in dealing order
    is_up = tuple([ups[i] for i in positions])
    source = hand.source
    if len(source) < count:
        # docs/house-rules.md §25/§21: the burns and earlier discards go back into the stub.
        source.recycle(hand.discards)
        hand.discards = []
        if len(source) < count:
            raise IllegalAction("the stub cannot serve this exchange even with the discards")
    deck = hand._deck
    drawn = (tuple(deck.draw_many(count)) if deck is not None
             else tuple([source.deal(seat) for _ in discarded]))
    for i in reversed(positions):
        del own[i]
        del ups[i]
    own.extend(drawn)
    ups.extend(is_up)
    if True in is_up:
        hand._up[seat] = [c for c, up in zip(own, ups, strict=True) if up]
        hand._up_key = None  # the up cards changed: the stud opener rescans them
    price = legal.exchange_price_chips if count else 0
    if price:
        hand.stacks[seat] -= price
        hand.committed[seat] += price  # into the pot, not a bet (docs/house-rules.md §25)
    hand.discards.extend(discarded)
    event = CardsExchanged(seat, hand.street_index, discarded, drawn, is_up, price, automatic)
    hand.events.append(event)
    return event
