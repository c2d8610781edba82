"""What happens in a hand, as immutable events in order; logs, views and PHH are built from them."""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from arena.engine.actions import ActionKind
from arena.engine.cards import Card
from arena.engine.games import ForcedBet


class PotShare(StrEnum):
    WHOLE = "whole"
    HIGH = "high"
    LOW = "low"


@dataclass(frozen=True, slots=True)
class ForcedBetPosted:
    seat: int
    kind: ForcedBet
    amount_chips: int
    is_all_in: bool


@dataclass(frozen=True, slots=True)
class HoleCardsDealt:
    """Cards dealt to one seat on one street; ``is_up`` per card (stud up cards are public)."""

    seat: int
    street: int
    cards: tuple[Card, ...]
    is_up: tuple[bool, ...]


@dataclass(frozen=True, slots=True)
class BoardDealt:
    street: int
    cards: tuple[Card, ...]
    is_stud_common_card: bool = False


@dataclass(frozen=True, slots=True)
class ActionTaken:
    seat: int
    street: int
    kind: ActionKind
    to_chips: int  # the seat's bet in this round after the action
    added_chips: int
    is_all_in: bool
    is_automatic: bool = False  # taken by the dealer on timeout or absence


@dataclass(frozen=True, slots=True)
class CardsExchanged:
    """A seat's exchange in a draw round (docs/house-rules.md §21, §25): ``discarded`` given away
    (empty: it stood pat) and ``drawn`` dealt in their place, each new card face up exactly
    when the card it replaces was (``is_up``). The discards and drawn down cards are the
    seat's secret; how many it exchanged is public."""

    seat: int
    street: int
    discarded: tuple[Card, ...]
    drawn: tuple[Card, ...]
    is_up: tuple[bool, ...]
    price_chips: int = 0  # paid into the pot for the exchange (not a bet)
    is_automatic: bool = False  # stood pat for it by the dealer on timeout or absence


@dataclass(frozen=True, slots=True)
class UncalledBetReturned:
    seat: int
    amount_chips: int


@dataclass(frozen=True, slots=True)
class HandShown:
    seat: int
    cards: tuple[Card, ...]  # all of the seat's cards in dealing order


@dataclass(frozen=True, slots=True)
class HandMucked:
    seat: int


@dataclass(frozen=True, slots=True)
class PotAwarded:
    pot_index: int
    share: PotShare
    amount_chips: int
    winners: tuple[int, ...]
    amounts_chips: tuple[int, ...]  # per winner, odd chips included


Event = (
    ForcedBetPosted
    | HoleCardsDealt
    | BoardDealt
    | ActionTaken
    | CardsExchanged
    | UncalledBetReturned
    | HandShown
    | HandMucked
    | PotAwarded
)


@dataclass(frozen=True, slots=True)
class Pot:
    amount_chips: int
    eligible: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class HandResult:
    """The end of a hand: pots, awards, final stacks and each seat's net result."""

    pots: tuple[Pot, ...]
    awards: tuple[PotAwarded, ...]
    starting_stacks: tuple[int, ...]
    final_stacks: tuple[int, ...]
    showdown_order: tuple[int, ...]  # seats that showed, in show order; empty without showdown

    @property
    def net_chips(self) -> tuple[int, ...]:
        return tuple(f - s for f, s in zip(self.final_stacks, self.starting_stacks, strict=True))
