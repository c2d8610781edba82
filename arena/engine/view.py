"""What one seat may see of a hand (RULES.md §8): its own cards, up cards, board, actions, shown hands."""

from __future__ import annotations

from dataclasses import dataclass

from arena.engine.actions import LegalActions
from arena.engine.cards import Card
from arena.engine.events import ActionTaken, Event, HandShown, HoleCardsDealt
from arena.engine.state import HandState

HIDDEN: Card = -1  # stands for a card this seat may not see


@dataclass(frozen=True, slots=True)
class PublicSeat:
    seat: int
    stack_chips: int
    bet_chips: int  # in the current betting round
    committed_chips: int  # in the whole hand, antes and blinds included
    up_cards: tuple[Card, ...]
    down_card_count: int
    is_folded: bool
    is_all_in: bool


@dataclass(frozen=True, slots=True)
class SeatView:
    seat: int
    game: str
    street: str
    street_index: int
    seats: tuple[PublicSeat, ...]
    hole_cards: tuple[Card, ...]  # this seat's own cards in dealing order (up and down)
    board: tuple[Card, ...]
    pot_chips: int
    actions: tuple[ActionTaken, ...]
    shown: tuple[HandShown, ...]
    actor: int | None
    legal: LegalActions | None  # only when this seat is to act
    small_bet: int
    big_bet: int

    @property
    def to_call_chips(self) -> int:
        if self.legal is None or self.legal.call_to_chips is None:
            return 0
        return self.legal.call_to_chips - self.seats[self.seat].bet_chips


def seat_view(state: HandState, seat: int) -> SeatView:
    seats = tuple(
        PublicSeat(
            seat=i,
            stack_chips=state.stacks[i],
            bet_chips=state.bets[i],
            committed_chips=state.committed[i],
            up_cards=tuple(state.up_cards(i)),
            down_card_count=sum(1 for up in state.is_up[i] if not up),
            is_folded=state.folded[i],
            is_all_in=state.stacks[i] == 0 and not state.folded[i],
        )
        for i in range(state.seat_count)
    )
    events = state.events
    return SeatView(
        seat=seat,
        game=state.variant.code.value,
        street=state.street,
        street_index=state.street_index,
        seats=seats,
        hole_cards=tuple(state.cards[seat]),
        board=tuple(state.board),
        pot_chips=state.pot_chips,
        actions=tuple(e for e in events if isinstance(e, ActionTaken)),
        shown=tuple(e for e in events if isinstance(e, HandShown)),
        actor=state.actor,
        legal=state.legal_actions() if state.actor == seat else None,
        small_bet=state.stakes.small_bet,
        big_bet=state.stakes.big_bet,
    )


def redact(event: Event, seat: int) -> Event:
    """The event as ``seat`` may see it: other seats' down cards become :data:`HIDDEN`."""
    if isinstance(event, HoleCardsDealt) and event.seat != seat:
        cards = tuple(c if up else HIDDEN for c, up in zip(event.cards, event.is_up, strict=True))
        return HoleCardsDealt(event.seat, event.street, cards, event.is_up)
    return event


def events_for_seat(state: HandState, seat: int, start: int = 0) -> list[Event]:
    return [redact(e, seat) for e in state.events[start:]]
