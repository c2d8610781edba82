"""What a live table tells a seat and what a seat answers, as transport-free values.

Seats here are physical table seats (fixed for a match), not the engine's PHH order. The
transport converts these values to and from the wire contract (``arena/server/convert.py``)
and serializes them (``arena/server/wire.py``); nothing in this module knows about gRPC.
"""

from __future__ import annotations

import ast
import dataclasses
import functools
from collections.abc import Mapping
from dataclasses import dataclass
from enum import StrEnum
from typing import Final, Protocol

from arena.engine.actions import ActionKind
from arena.engine.cards import Card
from arena.engine.errors import ArenaError
from arena.engine.events import PotShare
from arena.engine.rules import Stakes
from arena.host.compiled import ARENA_DIR
from arena.match.fastinit import fast_init

# Where the classes' annotations are read from when this module runs compiled.
_SOURCE: Final = ARENA_DIR / "match" / "messages.py"


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
    EXCHANGE = "exchange"  # draw games (engine only so far: not on the wire, issue 42)
    POST_ANTE = "post_ante"
    POST_SMALL_BLIND = "post_small_blind"
    POST_BIG_BLIND = "post_big_blind"


class AutoReason(StrEnum):
    """Why the dealer acted for a seat (RULES.md §5)."""

    TIMEOUT = "timeout"
    ABSENT = "absent"


class WrongSeat(ArenaError):
    """A reply for a seat other than the one the decision was made for."""


@dataclass(frozen=True, slots=True, kw_only=True, init=False)
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

    def __init__(self, *, seat: int, name: str, bot_id: str, stack_chips: int, bet_chips: int,
                 committed_chips: int, up_cards: tuple[Card, ...], hole_card_count: int,
                 status: SeatStatus) -> None:
        self.seat = seat  # type: ignore[misc]
        self.name = name  # type: ignore[misc]
        self.bot_id = bot_id  # type: ignore[misc]
        self.stack_chips = stack_chips  # type: ignore[misc]
        self.bet_chips = bet_chips  # type: ignore[misc]
        self.committed_chips = committed_chips  # type: ignore[misc]
        self.up_cards = up_cards  # type: ignore[misc]
        self.hole_card_count = hole_card_count  # type: ignore[misc]
        self.status = status  # type: ignore[misc]


@dataclass(frozen=True, slots=True, init=False)
class PotInfo:
    amount_chips: int
    eligible_seats: tuple[int, ...]

    def __init__(self, amount_chips: int, eligible_seats: tuple[int, ...]) -> None:
        self.amount_chips = amount_chips  # type: ignore[misc]
        self.eligible_seats = eligible_seats  # type: ignore[misc]


@dataclass(frozen=True, slots=True, init=False)
class ActionRecord:
    seat: int
    street: str
    kind: RecordKind
    raise_to_chips: int  # raise: the "raise to" total; bring-in and posts: the amount posted
    amount_chips: int  # chips moved from the stack by this action
    round_bet_chips: int
    is_all_in: bool
    automatic: AutoReason | None = None

    def __init__(self, seat: int, street: str, kind: RecordKind, raise_to_chips: int,
                 amount_chips: int, round_bet_chips: int, is_all_in: bool,
                 automatic: AutoReason | None = None) -> None:
        self.seat = seat  # type: ignore[misc]
        self.street = street  # type: ignore[misc]
        self.kind = kind  # type: ignore[misc]
        self.raise_to_chips = raise_to_chips  # type: ignore[misc]
        self.amount_chips = amount_chips  # type: ignore[misc]
        self.round_bet_chips = round_bet_chips  # type: ignore[misc]
        self.is_all_in = is_all_in  # type: ignore[misc]
        self.automatic = automatic  # type: ignore[misc]


@dataclass(frozen=True, slots=True, init=False)
class LegalChoice:
    kind: ActionKind
    min_to_chips: int
    max_to_chips: int
    is_all_in: bool
    is_range: bool = False  # a raise to any whole amount from min to max (no-limit, pot-limit)

    def __init__(self, kind: ActionKind, min_to_chips: int, max_to_chips: int, is_all_in: bool,
                 is_range: bool = False) -> None:
        self.kind = kind  # type: ignore[misc]
        self.min_to_chips = min_to_chips  # type: ignore[misc]
        self.max_to_chips = max_to_chips  # type: ignore[misc]
        self.is_all_in = is_all_in  # type: ignore[misc]
        self.is_range = is_range  # type: ignore[misc]


@dataclass(frozen=True, slots=True, eq=False, init=False)
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

    def __init__(self, match_id: str, hand_id: str, decision_id: str, game: str, street: str,
                 hand_number: int, game_hand_number: int, hands_per_game: int, button_seat: int,
                 seat: int, seats: tuple[SeatInfo, ...], hole_cards: tuple[Card, ...],
                 board: tuple[Card, ...], pots: tuple[PotInfo, ...], pot_total_chips: int,
                 actions: tuple[ActionRecord, ...], current_bet_chips: int, to_call_chips: int,
                 legal: tuple[LegalChoice, ...], stakes: Stakes, bet_size_chips: int,
                 raises_left: int, decision_time_left_seconds: float, time_bank_left_seconds: float,
                 deadline_unix_seconds: float, sent_unix_seconds: float,
                 trigger_received_at: float | None = None) -> None:
        self.match_id = match_id  # type: ignore[misc]
        self.hand_id = hand_id  # type: ignore[misc]
        self.decision_id = decision_id  # type: ignore[misc]
        self.game = game  # type: ignore[misc]
        self.street = street  # type: ignore[misc]
        self.hand_number = hand_number  # type: ignore[misc]
        self.game_hand_number = game_hand_number  # type: ignore[misc]
        self.hands_per_game = hands_per_game  # type: ignore[misc]
        self.button_seat = button_seat  # type: ignore[misc]
        self.seat = seat  # type: ignore[misc]
        self.seats = seats  # type: ignore[misc]
        self.hole_cards = hole_cards  # type: ignore[misc]
        self.board = board  # type: ignore[misc]
        self.pots = pots  # type: ignore[misc]
        self.pot_total_chips = pot_total_chips  # type: ignore[misc]
        self.actions = actions  # type: ignore[misc]
        self.current_bet_chips = current_bet_chips  # type: ignore[misc]
        self.to_call_chips = to_call_chips  # type: ignore[misc]
        self.legal = legal  # type: ignore[misc]
        self.stakes = stakes  # type: ignore[misc]
        self.bet_size_chips = bet_size_chips  # type: ignore[misc]
        self.raises_left = raises_left  # type: ignore[misc]
        self.decision_time_left_seconds = decision_time_left_seconds  # type: ignore[misc]
        self.time_bank_left_seconds = time_bank_left_seconds  # type: ignore[misc]
        self.deadline_unix_seconds = deadline_unix_seconds  # type: ignore[misc]
        self.sent_unix_seconds = sent_unix_seconds  # type: ignore[misc]
        self.trigger_received_at = trigger_received_at  # type: ignore[misc]


@dataclass(frozen=True, slots=True, init=False)
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

    def __init__(self, decision_id: str, seat: int, kind: ActionKind | None,
                 raise_to_chips: int | None, think_seconds: float | None = None,
                 received_at: float = 0.0, wire_seconds: float | None = None,
                 problem: str = '') -> None:
        self.decision_id = decision_id  # type: ignore[misc]
        self.seat = seat  # type: ignore[misc]
        self.kind = kind  # type: ignore[misc]
        self.raise_to_chips = raise_to_chips  # type: ignore[misc]
        self.think_seconds = think_seconds  # type: ignore[misc]
        self.received_at = received_at  # type: ignore[misc]
        self.wire_seconds = wire_seconds  # type: ignore[misc]
        self.problem = problem  # type: ignore[misc]


@dataclass(frozen=True, slots=True, init=False)
class Rejection:
    decision_id: str
    error: ArenaError  # the transport maps its type to a status code
    reply: Reply
    retry_allowed: bool
    time_left_seconds: float

    def __init__(self, decision_id: str, error: ArenaError, reply: Reply, retry_allowed: bool,
                 time_left_seconds: float) -> None:
        self.decision_id = decision_id  # type: ignore[misc]
        self.error = error  # type: ignore[misc]
        self.reply = reply  # type: ignore[misc]
        self.retry_allowed = retry_allowed  # type: ignore[misc]
        self.time_left_seconds = time_left_seconds  # type: ignore[misc]


# ----------------------------------------------------------------------------- event payloads


@dataclass(frozen=True, slots=True, init=False)
class TournamentInfo:
    """Where a one-hand tournament match sits in its tournament (RULES.md §7)."""

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

    def __init__(self, tournament: str, event_id: str, event_title: str, table: int,
                 table_hand: int, round: int, level: int, small_blind_chips: int,
                 big_blind_chips: int, ante_chips: int, next_level_at_round: int,
                 next_level_in_seconds: float, players_left: int, tables: int,
                 moves: tuple[tuple[str, int, int, int, str], ...] = (),
                 placings: tuple[tuple[str, int, int], ...] = ()) -> None:
        self.tournament = tournament  # type: ignore[misc]
        self.event_id = event_id  # type: ignore[misc]
        self.event_title = event_title  # type: ignore[misc]
        self.table = table  # type: ignore[misc]
        self.table_hand = table_hand  # type: ignore[misc]
        self.round = round  # type: ignore[misc]
        self.level = level  # type: ignore[misc]
        self.small_blind_chips = small_blind_chips  # type: ignore[misc]
        self.big_blind_chips = big_blind_chips  # type: ignore[misc]
        self.ante_chips = ante_chips  # type: ignore[misc]
        self.next_level_at_round = next_level_at_round  # type: ignore[misc]
        self.next_level_in_seconds = next_level_in_seconds  # type: ignore[misc]
        self.players_left = players_left  # type: ignore[misc]
        self.tables = tables  # type: ignore[misc]
        self.moves = moves  # type: ignore[misc]
        self.placings = placings  # type: ignore[misc]


@dataclass(frozen=True, slots=True, init=False)
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

    def __init__(self, seats: tuple[SeatInfo, ...], your_seat: int, games: tuple[str, ...],
                 hands_per_game: int, total_hands: int, stakes: Stakes, starting_stack_chips: int,
                 decision_seconds: float, time_bank_seconds: float, rules: Mapping[str, str],
                 duplicate_copies: int = 1, tournament: TournamentInfo | None = None) -> None:
        self.seats = seats  # type: ignore[misc]
        self.your_seat = your_seat  # type: ignore[misc]
        self.games = games  # type: ignore[misc]
        self.hands_per_game = hands_per_game  # type: ignore[misc]
        self.total_hands = total_hands  # type: ignore[misc]
        self.stakes = stakes  # type: ignore[misc]
        self.starting_stack_chips = starting_stack_chips  # type: ignore[misc]
        self.decision_seconds = decision_seconds  # type: ignore[misc]
        self.time_bank_seconds = time_bank_seconds  # type: ignore[misc]
        self.rules = rules  # type: ignore[misc]
        self.duplicate_copies = duplicate_copies  # type: ignore[misc]
        self.tournament = tournament  # type: ignore[misc]


@dataclass(frozen=True, slots=True, init=False)
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

    def __init__(self, hand_number: int, game: str, button_seat: int, your_seat: int,
                 seats: tuple[SeatInfo, ...], stakes: Stakes, deal_id: str, game_hand_number: int,
                 duplicate_copy: int = 0) -> None:
        self.hand_number = hand_number  # type: ignore[misc]
        self.game = game  # type: ignore[misc]
        self.button_seat = button_seat  # type: ignore[misc]
        self.your_seat = your_seat  # type: ignore[misc]
        self.seats = seats  # type: ignore[misc]
        self.stakes = stakes  # type: ignore[misc]
        self.deal_id = deal_id  # type: ignore[misc]
        self.game_hand_number = game_hand_number  # type: ignore[misc]
        self.duplicate_copy = duplicate_copy  # type: ignore[misc]


@dataclass(frozen=True, slots=True, init=False)
class CardsDealt:
    street: str
    seat: int
    up_cards: tuple[Card, ...]
    hole_cards: tuple[Card, ...]  # empty in every copy but the owner's
    hole_card_count: int

    def __init__(self, street: str, seat: int, up_cards: tuple[Card, ...],
                 hole_cards: tuple[Card, ...], hole_card_count: int) -> None:
        self.street = street  # type: ignore[misc]
        self.seat = seat  # type: ignore[misc]
        self.up_cards = up_cards  # type: ignore[misc]
        self.hole_cards = hole_cards  # type: ignore[misc]
        self.hole_card_count = hole_card_count  # type: ignore[misc]


@dataclass(frozen=True, slots=True, init=False)
class BoardAnnounced:
    """Community cards, as told to the seats (wire: ``BoardDealt``)."""

    street: str
    cards: tuple[Card, ...]
    board_cards: tuple[Card, ...]
    is_common_card: bool

    def __init__(self, street: str, cards: tuple[Card, ...], board_cards: tuple[Card, ...],
                 is_common_card: bool) -> None:
        self.street = street  # type: ignore[misc]
        self.cards = cards  # type: ignore[misc]
        self.board_cards = board_cards  # type: ignore[misc]
        self.is_common_card = is_common_card  # type: ignore[misc]


@dataclass(frozen=True, slots=True, init=False)
class ActionAnnounced:
    """An action or forced post, as told to the seats (wire: ``ActionTaken``)."""

    action: ActionRecord
    stack_after_chips: int
    pot_total_after_chips: int
    decision_id: str

    def __init__(self, action: ActionRecord, stack_after_chips: int, pot_total_after_chips: int,
                 decision_id: str) -> None:
        self.action = action  # type: ignore[misc]
        self.stack_after_chips = stack_after_chips  # type: ignore[misc]
        self.pot_total_after_chips = pot_total_after_chips  # type: ignore[misc]
        self.decision_id = decision_id  # type: ignore[misc]


@dataclass(frozen=True, slots=True, init=False)
class StreetEnded:
    street: str
    pots: tuple[PotInfo, ...]
    pot_total_chips: int
    returned: tuple[tuple[int, int], ...]  # (seat, chips)

    def __init__(self, street: str, pots: tuple[PotInfo, ...], pot_total_chips: int,
                 returned: tuple[tuple[int, int], ...]) -> None:
        self.street = street  # type: ignore[misc]
        self.pots = pots  # type: ignore[misc]
        self.pot_total_chips = pot_total_chips  # type: ignore[misc]
        self.returned = returned  # type: ignore[misc]


@dataclass(frozen=True, slots=True, init=False)
class ShownHand:
    seat: int
    cards: tuple[Card, ...]
    high_description: str
    high_cards: tuple[Card, ...]
    low_description: str
    low_cards: tuple[Card, ...]

    def __init__(self, seat: int, cards: tuple[Card, ...], high_description: str,
                 high_cards: tuple[Card, ...], low_description: str,
                 low_cards: tuple[Card, ...]) -> None:
        self.seat = seat  # type: ignore[misc]
        self.cards = cards  # type: ignore[misc]
        self.high_description = high_description  # type: ignore[misc]
        self.high_cards = high_cards  # type: ignore[misc]
        self.low_description = low_description  # type: ignore[misc]
        self.low_cards = low_cards  # type: ignore[misc]


@dataclass(frozen=True, slots=True, init=False)
class ShowdownAnnounced:
    """The hands shown at showdown, as told to the seats (wire: ``Showdown``)."""

    hands: tuple[ShownHand, ...]

    def __init__(self, hands: tuple[ShownHand, ...]) -> None:
        self.hands = hands  # type: ignore[misc]


@dataclass(frozen=True, slots=True, init=False)
class PotAward:
    pot_index: int
    amount_chips: int
    half: PotShare
    winners: tuple[tuple[int, int], ...]  # (seat, chips)

    def __init__(self, pot_index: int, amount_chips: int, half: PotShare,
                 winners: tuple[tuple[int, int], ...]) -> None:
        self.pot_index = pot_index  # type: ignore[misc]
        self.amount_chips = amount_chips  # type: ignore[misc]
        self.half = half  # type: ignore[misc]
        self.winners = winners  # type: ignore[misc]


@dataclass(frozen=True, slots=True, init=False)
class HandSeatResult:
    """One seat's result in one hand (wire: ``SeatResult``)."""

    seat: int
    net_chips: int
    final_stack_chips: int

    def __init__(self, seat: int, net_chips: int, final_stack_chips: int) -> None:
        self.seat = seat  # type: ignore[misc]
        self.net_chips = net_chips  # type: ignore[misc]
        self.final_stack_chips = final_stack_chips  # type: ignore[misc]


@dataclass(frozen=True, slots=True, init=False)
class HandEnded:
    results: tuple[HandSeatResult, ...]
    awards: tuple[PotAward, ...]
    voided: bool
    void_reason: str
    went_to_showdown: bool

    def __init__(self, results: tuple[HandSeatResult, ...], awards: tuple[PotAward, ...],
                 voided: bool, void_reason: str, went_to_showdown: bool) -> None:
        self.results = results  # type: ignore[misc]
        self.awards = awards  # type: ignore[misc]
        self.voided = voided  # type: ignore[misc]
        self.void_reason = void_reason  # type: ignore[misc]
        self.went_to_showdown = went_to_showdown  # type: ignore[misc]


@dataclass(frozen=True, slots=True, init=False)
class HandSummary(HandEnded):
    """``HandEnded`` for seats that get requests and results only: the hand's public record too
    (every action, the board, every seat as everybody sees it), so it can be rebuilt."""

    actions: tuple[ActionRecord, ...] = ()
    board: tuple[Card, ...] = ()
    seats: tuple[SeatInfo, ...] = ()

    def __init__(self, results: tuple[HandSeatResult, ...], awards: tuple[PotAward, ...],
                 voided: bool, void_reason: str, went_to_showdown: bool,
                 actions: tuple[ActionRecord, ...] = (), board: tuple[Card, ...] = (),
                 seats: tuple[SeatInfo, ...] = ()) -> None:
        self.results = results  # type: ignore[misc]
        self.awards = awards  # type: ignore[misc]
        self.voided = voided  # type: ignore[misc]
        self.void_reason = void_reason  # type: ignore[misc]
        self.went_to_showdown = went_to_showdown  # type: ignore[misc]
        self.actions = actions  # type: ignore[misc]
        self.board = board  # type: ignore[misc]
        self.seats = seats  # type: ignore[misc]


@dataclass(frozen=True, slots=True, init=False)
class GameChanged:
    game: str
    previous_game: str
    first_hand_number: int

    def __init__(self, game: str, previous_game: str, first_hand_number: int) -> None:
        self.game = game  # type: ignore[misc]
        self.previous_game = previous_game  # type: ignore[misc]
        self.first_hand_number = first_hand_number  # type: ignore[misc]


@dataclass(frozen=True, slots=True, init=False)
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

    def __init__(self, seat: int, name: str, bot_id: str, net_chips: int, hands_played: int,
                 mbb_per_hand: float, mbb_per_hand_ci95: float, final_stack_chips: int,
                 place: int = 0) -> None:
        self.seat = seat  # type: ignore[misc]
        self.name = name  # type: ignore[misc]
        self.bot_id = bot_id  # type: ignore[misc]
        self.net_chips = net_chips  # type: ignore[misc]
        self.hands_played = hands_played  # type: ignore[misc]
        self.mbb_per_hand = mbb_per_hand  # type: ignore[misc]
        self.mbb_per_hand_ci95 = mbb_per_hand_ci95  # type: ignore[misc]
        self.final_stack_chips = final_stack_chips  # type: ignore[misc]
        self.place = place  # type: ignore[misc]


@dataclass(frozen=True, slots=True, init=False)
class MatchEnded:
    results: tuple[MatchSeatResult, ...]
    match_seed: str
    hands_played: int
    aborted: bool
    abort_reason: str

    def __init__(self, results: tuple[MatchSeatResult, ...], match_seed: str, hands_played: int,
                 aborted: bool, abort_reason: str) -> None:
        self.results = results  # type: ignore[misc]
        self.match_seed = match_seed  # type: ignore[misc]
        self.hands_played = hands_played  # type: ignore[misc]
        self.aborted = aborted  # type: ignore[misc]
        self.abort_reason = abort_reason  # type: ignore[misc]


@dataclass(frozen=True, slots=True, init=False)
class DuplicateCopyStarted:
    """A duplicate copy starts: the same deals again with the seats rotated (reset memory)."""

    copy_index: int
    copies_total: int
    deal_set_id: str
    your_seat: int
    seats: tuple[SeatInfo, ...] = ()  # as in MatchStarted

    def __init__(self, copy_index: int, copies_total: int, deal_set_id: str, your_seat: int,
                 seats: tuple[SeatInfo, ...] = ()) -> None:
        self.copy_index = copy_index  # type: ignore[misc]
        self.copies_total = copies_total  # type: ignore[misc]
        self.deal_set_id = deal_set_id  # type: ignore[misc]
        self.your_seat = your_seat  # type: ignore[misc]
        self.seats = seats  # type: ignore[misc]


Payload = (
    MatchStarted
    | HandStarted
    | CardsDealt
    | BoardAnnounced
    | ActionAnnounced
    | StreetEnded
    | ShowdownAnnounced
    | HandEnded
    | GameChanged
    | MatchEnded
    | DuplicateCopyStarted
)


@dataclass(frozen=True, slots=True, eq=False, init=False)
class Notice:
    """One event of a match as one seat sees it; public events are one object shared by all."""

    match_id: str
    hand_id: str
    sequence: int
    unix_seconds: float
    payload: Payload

    def __init__(self, match_id: str, hand_id: str, sequence: int, unix_seconds: float,
                 payload: Payload) -> None:
        self.match_id = match_id  # type: ignore[misc]
        self.hand_id = hand_id  # type: ignore[misc]
        self.sequence = sequence  # type: ignore[misc]
        self.unix_seconds = unix_seconds  # type: ignore[misc]
        self.payload = payload  # type: ignore[misc]


Outgoing = Prompt | Notice | Rejection


class Outbox(Protocol):
    """Where a connected seat's messages go. Must never block: a slow reader is the
    transport's problem (it drops the connection), never the table's.

    An outbox with ``every_event = False`` gets requests and results only: the tables leave
    out the events its requests repeat (see ``Presence.every_event``)."""

    def deliver(self, item: Outgoing) -> None: ...


_MESSAGES: Final = (SeatInfo, PotInfo, ActionRecord, LegalChoice, Prompt, Reply, Rejection,
              TournamentInfo, MatchStarted, HandStarted, CardsDealt, BoardAnnounced,
              ActionAnnounced, StreetEnded, ShownHand, ShowdownAnnounced, PotAward,
              HandSeatResult, HandEnded, HandSummary, GameChanged, MatchSeatResult, MatchEnded,
              DuplicateCopyStarted, Notice)


def _reduce(value: object) -> tuple[object, ...]:
    """Pickling and copying of a compiled message: its class called with its fields."""
    kind = type(value)
    names = tuple(f.name for f in dataclasses.fields(kind))  # type: ignore[arg-type]
    return (_rebuild, (kind, names, tuple(getattr(value, name) for name in names)))


def _rebuild(kind: type, names: tuple[str, ...], values: tuple[object, ...]) -> object:
    return kind(**dict(zip(names, values, strict=True)))


def _source_annotations() -> dict[str, dict[str, str]]:
    """Each class's field annotations as this module's source spells them (what the
    interpreted classes hold, by ``from __future__ import annotations``)."""
    tree = ast.parse(_SOURCE.read_text(encoding="utf-8"))
    return {node.name: {stmt.target.id: ast.unparse(stmt.annotation) for stmt in node.body
                        if isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name)}
            for node in tree.body if isinstance(node, ast.ClassDef)}


def _finish(classes: tuple[type, ...]) -> None:
    """Interpreted: each class gets :func:`fast_init`'s constructor. Compiled (mypyc native
    classes, their own ``__init__``): what the slotted dataclasses have and mypyc leaves out
    or spells otherwise: ``__slots__`` (the fields, in order), the annotations as written and
    pickling."""
    annotations: dict[str, dict[str, str]] | None = None
    for kind in classes:
        if "__slots__" in kind.__dict__:
            fast_init(kind)
            continue
        if annotations is None:
            annotations = _source_annotations()
        own = annotations[kind.__name__]
        setattr(kind, "__slots__", tuple(own))  # noqa: B010
        setattr(kind, "__annotations__", own)  # noqa: B010
        setattr(kind, "__reduce__", functools.partialmethod(_reduce))  # noqa: B010


_finish(_MESSAGES)
