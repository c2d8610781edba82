"""What a bot function sees (:class:`SeatView`) and what it returns (:class:`Action`)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from arena_bot._proto import arena_pb2 as pb

_KIND_NAMES = {
    pb.ACTION_KIND_FOLD: "fold", pb.ACTION_KIND_CHECK: "check", pb.ACTION_KIND_CALL: "call",
    pb.ACTION_KIND_BRING_IN: "bring_in", pb.ACTION_KIND_RAISE: "raise",
    pb.ACTION_KIND_EXCHANGE: "exchange", pb.ACTION_KIND_POST_ANTE: "post_ante",
    pb.ACTION_KIND_POST_SMALL_BLIND: "post_small_blind",
    pb.ACTION_KIND_POST_BIG_BLIND: "post_big_blind", pb.ACTION_KIND_CHOOSE_GAME: "choose_game",
}
_KINDS = {name: kind for kind, name in _KIND_NAMES.items()}
# The wire's games by their codes (DecisionRequest.game_code), for dealer's choice.
GAME_CODES = {
    pb.GAME_HOLDEM: "FT", pb.GAME_OMAHA_HI_LO: "FO/8", pb.GAME_RAZZ: "FR", pb.GAME_STUD: "F7S",
    pb.GAME_STUD_HI_LO: "F7S/8", pb.GAME_NO_LIMIT_HOLDEM: "NT", pb.GAME_POT_LIMIT_OMAHA: "PO",
    pb.GAME_POT_LIMIT_HOLDEM: "PT", pb.GAME_DEUCE_TO_SEVEN_TRIPLE_DRAW: "F2L3D",
    pb.GAME_LONDON_LOWBALL: "FLL", pb.GAME_STUD_WILD: "F7SW", pb.GAME_STUD_WILD_LOW: "F7SWL",
    pb.GAME_STUD_WILD_HI_LO: "F7SW/8", pb.GAME_LOW_HOLE: "FLH", pb.GAME_LOW_HOLE_HI_LO: "FLH/8",
    pb.GAME_ENGLISH_STUD: "FES",
}
_GAMES = {code: game for game, code in GAME_CODES.items()}
_STREETS = {v: k.removeprefix("STREET_").lower().replace("_", " ")
            for k, v in pb.Street.items()}


@dataclass(frozen=True, slots=True)
class Action:
    """A bot's choice: ``fold``, ``check``, ``call``, ``bring_in``, ``raise`` (to a total), in
    the draw games ``exchange`` (the cards given up; none: stand pat), or in dealer's choice
    ``choose_game`` (``game``: the code of the game chosen for the coming orbit)."""

    kind: str
    raise_to_chips: int = 0
    exchange_cards: tuple[str, ...] = ()
    game: str = ""

    FOLD: ClassVar[str] = "fold"
    CHECK: ClassVar[str] = "check"
    CALL: ClassVar[str] = "call"
    BRING_IN: ClassVar[str] = "bring_in"
    RAISE: ClassVar[str] = "raise"
    EXCHANGE: ClassVar[str] = "exchange"
    CHOOSE_GAME: ClassVar[str] = "choose_game"

    def to_proto(self) -> pb.Action:
        message = pb.Action()
        self.fill_proto(message)
        return message

    def fill_proto(self, message: pb.Action) -> None:
        """Set ``message``'s fields to this action (an empty message: as :meth:`to_proto`)."""
        kind = _KINDS.get(self.kind)
        if kind is None:
            raise ValueError(f"unknown action kind {self.kind!r}")
        message.kind = kind
        message.raise_to_chips = self.raise_to_chips
        if self.exchange_cards:
            message.exchange_cards[:] = self.exchange_cards
        if self.game:
            game = _GAMES.get(self.game)
            if game is None:
                raise ValueError(f"unknown game {self.game!r}; known: {', '.join(_GAMES)}")
            message.game = game


@dataclass(frozen=True, slots=True)
class Choice:
    """One legal action with its exact amounts (raise: the two allowed "raise to" totals, or
    with ``any_amount`` in no-limit and pot-limit every whole amount between them)."""

    kind: str
    min_to_chips: int
    max_to_chips: int
    is_all_in: bool
    any_amount: bool = False
    # exchange (docs/house-rules.md §26): give up ``min_cards`` to ``max_cards`` of
    # ``exchangeable_cards`` (0: stand pat), paying ``price_chips`` for any.
    min_cards: int = 0
    max_cards: int = 0
    exchangeable_cards: tuple[str, ...] = ()
    price_chips: int = 0
    # choose_game (dealer's choice, docs/house-rules.md §28): the codes you may choose from.
    games: tuple[str, ...] = ()


class SeatView:
    """A decision request, read-only, with helpers. ``request`` is the raw proto message."""

    def __init__(self, request: pb.DecisionRequest) -> None:
        self.request = request
        self._choices: dict[str, Choice] | None = None
        self._kinds: frozenset[str] | None = None

    @property
    def choices(self) -> dict[str, Choice]:
        """The legal actions by kind, with their amounts (built when first asked for)."""
        if self._choices is None:
            self._choices = {
                _KIND_NAMES[la.kind]: Choice(_KIND_NAMES[la.kind], la.min_raise_to_chips,
                                             la.max_raise_to_chips, la.is_all_in, la.any_amount,
                                             la.min_exchange_cards, la.max_exchange_cards,
                                             tuple(la.exchangeable_cards),
                                             la.exchange_price_chips,
                                             tuple(GAME_CODES.get(g, "") for g in la.choosable_games))
                for la in self.request.legal_actions if la.kind in _KIND_NAMES
            }
        return self._choices

    @choices.setter
    def choices(self, value: dict[str, Choice]) -> None:  # settable, as when it was a plain attribute
        self._choices = value

    # -- the table
    @property
    def game(self) -> str:
        """The game code: FT, FO/8, FR, F7S, F7S/8, NT, PO, PT, F2L3D, FLL, F7SW, F7SWL,
        F7SW/8, FLH, FLH/8 or FES."""
        return self.request.game_code

    @property
    def street(self) -> str:
        """preflop, flop, turn, river, third, fourth, fifth, sixth, seventh, predraw,
        first draw, second draw or third draw; "game choice" for a dealer's-choice decision."""
        return _STREETS.get(self.request.street, "")

    @property
    def seat(self) -> int:
        return self.request.your_seat

    @property
    def hole_cards(self) -> list[str]:
        """Your face-down cards."""
        return list(self.request.hole_cards)

    @property
    def up_cards(self) -> list[str]:
        """Your face-up cards (stud games)."""
        return list(self.request.seats[self.seat].up_cards) if self.request.seats else []

    @property
    def my_cards(self) -> list[str]:
        """All your own cards: hole cards then up cards."""
        return self.hole_cards + self.up_cards

    @property
    def board(self) -> list[str]:
        return list(self.request.board_cards)

    @property
    def pot_chips(self) -> int:
        return self.request.pot_total_chips

    @property
    def to_call_chips(self) -> int:
        return self.request.amount_to_call_chips

    @property
    def bet_size_chips(self) -> int:
        return self.request.bet_size_chips

    @property
    def stack_chips(self) -> int:
        return self.request.seats[self.seat].stack_chips if self.request.seats else 0

    @property
    def opponents(self) -> list[pb.SeatState]:
        """Seats still in the hand other than yours."""
        out = []
        for s in self.request.seats:
            if s.seat != self.seat and s.status in (pb.SEAT_STATUS_ACTIVE, pb.SEAT_STATUS_ALL_IN,
                                                      pb.SEAT_STATUS_ABSENT):
                out.append(s)
        return out

    @property
    def time_left_seconds(self) -> float:
        return self.request.decision_time_left_seconds + self.request.time_bank_left_seconds

    # -- choosing
    def can(self, kind: str) -> bool:
        if self._choices is not None:
            return kind in self._choices
        if self._kinds is None:  # the kinds alone cost a third of the choices with amounts
            self._kinds = frozenset(_KIND_NAMES[la.kind] for la in self.request.legal_actions
                                    if la.kind in _KIND_NAMES)
        return kind in self._kinds

    def fold(self) -> Action:
        return Action(Action.FOLD)

    def check(self) -> Action:
        return Action(Action.CHECK)

    def call(self) -> Action:
        return Action(Action.CALL)

    def bring_in(self) -> Action:
        return Action(Action.BRING_IN)

    def raise_to(self, amount_chips: int) -> Action:
        return Action(Action.RAISE, amount_chips)

    def raise_min(self) -> Action:
        return Action(Action.RAISE, self.choices[Action.RAISE].min_to_chips)

    def raise_max(self) -> Action:
        return Action(Action.RAISE, self.choices[Action.RAISE].max_to_chips)

    def exchange(self, cards: list[str] | tuple[str, ...]) -> Action:
        """Draw games: give up ``cards`` (some of ``exchangeable_cards``) for as many new ones
        (docs/house-rules.md §26); an empty list stands pat."""
        return Action(Action.EXCHANGE, 0, tuple(cards))

    def stand_pat(self) -> Action:
        """Draw games: keep every card (an exchange of none)."""
        return Action(Action.EXCHANGE)

    @property
    def is_exchange_round(self) -> bool:
        """Whether this decision is an exchange (then it is the only legal kind)."""
        return self.can(Action.EXCHANGE)

    @property
    def max_exchange_cards(self) -> int:
        """How many cards you may give up now (0 outside an exchange round)."""
        choice = self.choices.get(Action.EXCHANGE)
        return choice.max_cards if choice is not None else 0

    @property
    def wild_ranks(self) -> list[str]:
        """Ranks wild for your hand's high (wild-card stud, Low Hole; docs/house-rules.md §23,
        §24), e.g. ["2"]; empty in the other games."""
        return list(self.request.wild_ranks)

    @property
    def low_wild_ranks(self) -> list[str]:
        """Ranks wild for your hand's low (the low and hi-lo wild games)."""
        return list(self.request.low_wild_ranks)

    # -- dealer's choice (docs/house-rules.md §28)
    @property
    def is_game_choice(self) -> bool:
        """Whether this decision is dealer's choice: choose the game of the coming orbit
        (``choose_game``; then it is the only legal kind, and no cards are dealt)."""
        return self.can(Action.CHOOSE_GAME)

    @property
    def choosable_games(self) -> list[str]:
        """The game codes you may choose from now, in the menu's order (empty otherwise)."""
        choice = self.choices.get(Action.CHOOSE_GAME)
        return list(choice.games) if choice is not None else []

    def choose_game(self, game: str) -> Action:
        """Dealer's choice: deal ``game`` (one of :attr:`choosable_games`) for the orbit."""
        return Action(Action.CHOOSE_GAME, game=game)

    def first_game(self) -> Action:
        """Dealer's choice: the first game of the menu (the helpers' default choice)."""
        return self.choose_game(self.choosable_games[0])

    def check_or_fold(self) -> Action:
        """The safe default: post a due bring-in, check if free, else fold; in an exchange
        round, stand pat; in dealer's choice, the first game of the menu."""
        return self._passive(Action.FOLD)

    def check_or_call(self) -> Action:
        return self._passive(Action.CALL)

    def _passive(self, facing_a_bet: str) -> Action:
        if self.can(Action.CHOOSE_GAME):
            return self.first_game()
        if self.can(Action.EXCHANGE):
            return self.stand_pat()
        if self.can(Action.BRING_IN):
            return self.bring_in()
        return self.check() if self.can(Action.CHECK) else Action(facing_a_bet)

    def bet_or_raise(self, *, big: bool = False) -> Action:
        """Raise if allowed (the big amount if ``big``), else check or call."""
        if self.can(Action.RAISE):
            return self.raise_max() if big else self.raise_min()
        return self.check_or_call()
