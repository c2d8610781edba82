"""What a live table tells a seat and what a seat answers, as transport-free values.

Seats here are physical table seats (fixed for a match), not the engine's PHH order. The
transport converts these values to and from the wire contract (``arena/server/convert.py``)
and serializes them (``arena/server/wire.py``); nothing in this module knows about gRPC.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from enum import StrEnum
from typing import Protocol

from arena.engine.actions import ActionKind
from arena.engine.cards import Card
from arena.engine.errors import ArenaError
from arena.engine.events import PotShare
from arena.engine.rules import Stakes
from arena.match.faults import DecisionClosed


class SeatStatus(StrEnum):
    ACTIVE = "active"
    FOLDED = "folded"
    ALL_IN = "all_in"
    ABSENT = "absent"
    OUT = "out"


class RecordKind(StrEnum):
    """What an entry of the action history is: a bot action or a forced post."""

    FOLD = "fold"
    CHECK = "check"
    CALL = "call"
    BRING_IN = "bring_in"
    RAISE = "raise"
    EXCHANGE = "exchange"  # draw games (docs/house-rules.md §26): cards given up, none: stand pat
    POST_ANTE = "post_ante"
    POST_SMALL_BLIND = "post_small_blind"
    POST_BIG_BLIND = "post_big_blind"


class AutoReason(StrEnum):
    """Why the dealer acted for a seat (docs/house-rules.md §6)."""

    TIMEOUT = "timeout"
    ABSENT = "absent"


class WrongSeat(ArenaError):
    """A reply for a seat other than the one the decision was made for."""


@dataclass(frozen=True, slots=True, kw_only=True)
class SeatInfo:
    seat: int
    name: str
    bot_id: str
    stack_chips: int
    bet_chips: int
    committed_chips: int
    up_cards: tuple[Card, ...]
    hole_card_count: int
    status: SeatStatus


@dataclass(frozen=True, slots=True, kw_only=True)
class PotInfo:
    amount_chips: int
    eligible_seats: tuple[int, ...]


@dataclass(frozen=True, slots=True, kw_only=True)
class ActionRecord:
    seat: int
    street: str
    kind: RecordKind
    raise_to_chips: int  # raise: the "raise to" total; bring-in and posts: the amount posted
    amount_chips: int  # chips moved from the stack by this action
    round_bet_chips: int
    is_all_in: bool
    automatic: AutoReason | None = None
    # EXCHANGE (docs/house-rules.md §26): how many cards went (public); the cards given up and
    # the new ones in the same order, filled only in the exchanging seat's own copy, or for
    # everyone when they are up cards (``exchange_face_up``, English Stud §25).
    exchange_card_count: int = 0
    exchanged_cards: tuple[Card, ...] = ()
    drawn_cards: tuple[Card, ...] = ()
    exchange_face_up: bool = False


@dataclass(frozen=True, slots=True, kw_only=True)
class LegalChoice:
    kind: ActionKind
    min_to_chips: int
    max_to_chips: int
    is_all_in: bool
    is_range: bool = False  # a raise to any whole amount from min to max (no-limit, pot-limit)
    # EXCHANGE (docs/house-rules.md §26): give up min..max of ``exchangeable_cards`` (0: stand pat),
    # paying ``price_chips`` when giving any (§25); ``keeps_face``: each new card takes the
    # face of the card it replaces (English Stud).
    min_exchanged: int = 0
    max_exchanged: int = 0
    exchangeable_cards: tuple[Card, ...] = ()
    price_chips: int = 0
    keeps_face: bool = False
    # CHOOSE_GAME (dealer's choice, docs/house-rules.md §28): the game codes of the menu.
    games: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True, eq=False, kw_only=True)
class Prompt:
    """A decision request for one seat; timing fields are as of the moment it is handed over."""

    match_id: str
    hand_id: str
    decision_id: str
    game: str
    street: str
    hand_number: int
    game_hand_number: int
    hands_per_game: int
    button_seat: int
    seat: int
    seats: tuple[SeatInfo, ...]
    hole_cards: tuple[Card, ...]  # the seat's own face-down cards
    board: tuple[Card, ...]
    pots: tuple[PotInfo, ...]
    pot_total_chips: int
    actions: tuple[ActionRecord, ...]
    current_bet_chips: int
    to_call_chips: int
    legal: tuple[LegalChoice, ...]
    stakes: Stakes
    bet_size_chips: int
    raises_left: int  # -1: uncapped
    decision_time_left_seconds: float
    time_bank_left_seconds: float
    deadline_unix_seconds: float
    sent_unix_seconds: float
    trigger_received_at: float | None = None  # perf_counter of the reply that led here (stats)
    # The ranks (deuce 0 .. ace 12) wild for this seat's hand now, for high and for low
    # (docs/house-rules.md §23 wild-card stud, §24 Low Hole); empty in the other games.
    wild_ranks: tuple[int, ...] = ()
    low_wild_ranks: tuple[int, ...] = ()


@dataclass(frozen=True, slots=True, kw_only=True)
class Reply:
    """A seat's answer, as received. ``kind`` is None for a malformed action."""

    decision_id: str
    seat: int
    kind: ActionKind | None
    raise_to_chips: int | None
    think_seconds: float | None = None  # as reported by the bot
    received_at: float = 0.0  # perf_counter when the transport read it
    wire_seconds: float | None = None  # transport: request written -> this reply read
    problem: str = ""  # why ``kind`` is None
    fallback: bool = False  # sent by the bot's SDK in place of its code's (ActionReply.fallback)
    # A declared strategy instead of an action (issue 40): (kind, raise to, weight) per entry,
    # unchecked (`arena.engine.strategy.validate_strategy` checks it); ``kind`` is then None.
    strategy: tuple[tuple[ActionKind | None, int | None, float], ...] | None = None
    # EXCHANGE: the cards given up (empty: stand pat), parsed but not yet checked against
    # the hand (the engine refuses cards the seat does not hold).
    cards: tuple[Card, ...] = ()
    # CHOOSE_GAME (docs/house-rules.md §28): the game code chosen ("" if none or unknown); with
    # a strategy, the game of each entry (the same order; "" for entries of other kinds).
    game: str = ""
    strategy_games: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True, kw_only=True)
class Rejection:
    decision_id: str
    error: ArenaError  # the transport maps its type to a status code
    reply: Reply
    retry_allowed: bool
    time_left_seconds: float


# ----------------------------------------------------------------------------- event payloads


@dataclass(frozen=True, slots=True, kw_only=True)
class TournamentInfo:
    """Where a one-hand tournament match sits in its tournament (docs/house-rules.md §8)."""

    tournament: str
    event_id: str
    event_title: str
    table: int
    table_hand: int
    round: int
    level: int  # from 1
    small_blind_chips: int
    big_blind_chips: int
    ante_chips: int
    next_level_at_round: int  # 0: levels are timed
    next_level_in_seconds: float  # 0: levels count hands
    players_left: int
    tables: int
    moves: tuple[tuple[str, int, int, int, str], ...] = ()  # (name, from, to, round, reason)
    placings: tuple[tuple[str, int, int], ...] = ()  # (name, place, round out)


@dataclass(frozen=True, slots=True, kw_only=True)
class MatchStarted:
    seats: tuple[SeatInfo, ...]
    your_seat: int
    games: tuple[str, ...]
    hands_per_game: int
    total_hands: int
    stakes: Stakes
    starting_stack_chips: int
    decision_seconds: float
    time_bank_seconds: float
    rules: Mapping[str, str]
    duplicate_copies: int = 1  # copies of the deal set this match belongs to (1: not duplicate)
    tournament: TournamentInfo | None = None  # a tournament hand: where it sits


@dataclass(frozen=True, slots=True, kw_only=True)
class HandStarted:
    hand_number: int
    game: str
    button_seat: int
    your_seat: int  # -1 for a seat not dealt in
    seats: tuple[SeatInfo, ...]
    stakes: Stakes
    deal_id: str
    game_hand_number: int
    duplicate_copy: int = 0  # 0-based copy of the deal set (0 unless duplicate)


@dataclass(frozen=True, slots=True, kw_only=True)
class CardsDealt:
    street: str
    seat: int
    up_cards: tuple[Card, ...]
    hole_cards: tuple[Card, ...]  # empty in every copy but the owner's
    hole_card_count: int


@dataclass(frozen=True, slots=True, kw_only=True)
class BoardDealt:
    """Community cards, as told to the seats."""

    street: str
    cards: tuple[Card, ...]
    board_cards: tuple[Card, ...]
    is_common_card: bool


@dataclass(frozen=True, slots=True, kw_only=True)
class ActionTaken:
    """An action or forced post, as told to the seats."""

    action: ActionRecord
    stack_after_chips: int
    pot_total_after_chips: int
    decision_id: str
    # Issue 40: the seat's declared strategy, when the dealer drew this action from it, as
    # (PHH action, weight) pairs. The event log keeps it; the wire says only that it was drawn.
    strategy: tuple[tuple[str, float], ...] = ()


@dataclass(frozen=True, slots=True, kw_only=True)
class StreetEnded:
    street: str
    pots: tuple[PotInfo, ...]
    pot_total_chips: int
    returned: tuple[tuple[int, int], ...]  # (seat, chips)


@dataclass(frozen=True, slots=True, kw_only=True)
class ShownHand:
    seat: int
    cards: tuple[Card, ...]
    high_description: str
    high_cards: tuple[Card, ...]
    low_description: str
    low_cards: tuple[Card, ...]


@dataclass(frozen=True, slots=True, kw_only=True)
class Showdown:
    """The hands shown at showdown, as told to the seats."""

    hands: tuple[ShownHand, ...]


@dataclass(frozen=True, slots=True, kw_only=True)
class PotAward:
    pot_index: int
    amount_chips: int
    half: PotShare
    winners: tuple[tuple[int, int], ...]  # (seat, chips)


@dataclass(frozen=True, slots=True, kw_only=True)
class SeatResult:
    """One seat's result in one hand."""

    seat: int
    net_chips: int
    final_stack_chips: int


@dataclass(frozen=True, slots=True, kw_only=True)
class HandEnded:
    results: tuple[SeatResult, ...]
    awards: tuple[PotAward, ...]
    voided: bool
    void_reason: str
    went_to_showdown: bool


@dataclass(frozen=True, slots=True, kw_only=True)
class HandSummary(HandEnded):
    """``HandEnded`` for seats that get requests and results only: the hand's public record too
    (every action, the board, every seat as everybody sees it), so it can be rebuilt."""

    actions: tuple[ActionRecord, ...] = ()
    board: tuple[Card, ...] = ()
    seats: tuple[SeatInfo, ...] = ()


@dataclass(frozen=True, slots=True, kw_only=True)
class GameChanged:
    game: str
    previous_game: str
    first_hand_number: int
    # Dealer's choice (docs/house-rules.md §28): the seat that chose, why the dealer chose for
    # it (None: it chose itself), and the hands the choice is dealt; False in a fixed rotation.
    dealers_choice: bool = False
    chooser_seat: int = 0
    automatic: AutoReason | None = None
    hands: int = 0


@dataclass(frozen=True, slots=True, kw_only=True)
class MatchSeatResult:
    seat: int
    name: str
    bot_id: str
    net_chips: int
    hands_played: int
    mbb_per_hand: float
    mbb_per_hand_ci95: float
    final_stack_chips: int
    place: int = 0  # tournament: the place in the event when decided (out, or the winner)


@dataclass(frozen=True, slots=True, kw_only=True)
class MatchEnded:
    results: tuple[MatchSeatResult, ...]
    match_seed: str
    hands_played: int
    aborted: bool
    abort_reason: str


@dataclass(frozen=True, slots=True, kw_only=True)
class DuplicateCopyStarted:
    """A duplicate copy starts: the same deals again with the seats rotated (reset memory)."""

    copy_index: int
    copies_total: int
    deal_set_id: str
    your_seat: int
    seats: tuple[SeatInfo, ...] = ()  # as in MatchStarted


Payload = (
    MatchStarted
    | HandStarted
    | CardsDealt
    | BoardDealt
    | ActionTaken
    | StreetEnded
    | Showdown
    | HandEnded
    | GameChanged
    | MatchEnded
    | DuplicateCopyStarted
)


@dataclass(frozen=True, slots=True, eq=False, kw_only=True)
class Notice:
    """One event of a match as one seat sees it; public events are one object shared by all."""

    match_id: str
    hand_id: str
    sequence: int
    unix_seconds: float
    payload: Payload


Outgoing = Prompt | Notice | Rejection | DecisionClosed


class Outbox(Protocol):
    """Where a connected seat's messages go. Must never block: a slow reader is the
    transport's problem (it drops the connection), never the table's.

    An outbox with ``every_event = False`` gets requests and results only: the tables leave
    out the events its requests repeat (see ``Presence.every_event``)."""

    def deliver(self, item: Outgoing) -> None: ...
