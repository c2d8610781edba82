"""The hand state machine: forced bets, dealing, fixed-limit betting and showdown for every variant.

Seats are numbered in PHH order: seat 0 is the first seat left of the button and the button is
the last seat (heads-up: seat 0 is the big blind, seat 1 the button and small blind). The table
layer maps its physical seats onto this order.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache
from typing import Protocol

from arena.engine.actions import Action, ActionKind, LegalActions
from arena.engine.betting_round import begin_round
from arena.engine.blinds import blind_plan
from arena.engine.cards import DECK_SIZE, Card
from arena.engine.cards import SeededDeck as SeededDeck
from arena.engine.dealing import BOARD as BOARD
from arena.engine.dealing import deal_street
from arena.engine.errors import (
    HandOver,
    IllegalAction,
    MalformedAction,
)
from arena.engine.events import (
    ActionTaken,
    CardsExchanged,
    Event,
    HandResult,
    UncalledBetReturned,
)
from arena.engine.exchange import apply_exchange, begin_exchanges
from arena.engine.forced_bets import antes_of, post_forced_bets
from arena.engine.games import AnteKind, Betting, StreetName, Variant
from arena.engine.legal import compute_legal_actions, verify_action
from arena.engine.rules import Rules, Stakes
from arena.engine.settlement import award_uncontested, show_cards, showdown


class CardSource(Protocol):
    """Where cards come from: a seeded deck, or the cards a hand history says were dealt."""

    def __len__(self) -> int: ...

    def deal(self, seat: int) -> Card: ...

    def burn(self) -> Card | None: ...

    def recycle_burned(self) -> None: ...

    def recycle(self, discards: Sequence[Card]) -> None: ...


_DEFAULT_RULES = Rules()
_CHECK = ActionKind.CHECK
_CALL = ActionKind.CALL
_FOLD = ActionKind.FOLD


@lru_cache(maxsize=4096)
def _check_event(seat: int, street: int, bet: int, automatic: bool) -> ActionTaken:
    """Checks repeat hand after hand: one shared (immutable) event per value."""
    return ActionTaken(seat, street, _CHECK, bet, 0, False, automatic)


class HandState:
    """One hand in progress. Drive it with :meth:`act` until :attr:`is_over`.

    Every public mutator validates first and changes nothing when it raises.
    """

    # Slots: a hand holds more attributes than CPython shares keys for (30), and its
    # attributes are read and written on every action.
    __slots__ = (
        "_able_count", "_acted_full", "_bet_count", "_big_allowed", "_blind_plan",
        "_bring_in_seat", "_cap", "_deck", "_first_actor", "_fixed", "_full_level",
        "_last_aggressor", "_legal", "_level", "_live_count", "_pot_limit",
        "_short_all_in_chips", "_shown", "_to_act", "_unit", "_up", "_up_key", "_up_tie",
        "actor", "antes", "bets", "blinds", "board", "cards", "committed", "dead_antes",
        "dead_chips", "discards", "events", "exchange_price_chips", "exchanging", "folded",
        "is_over", "is_showdown_pending", "is_up", "manual_showdown", "result", "rules",
        "seat_count", "showdown_order", "source", "stacks", "stakes", "starting_stacks",
        "street_index", "variant",
    )

    def __init__(
        self,
        variant: Variant,
        starting_stacks: Sequence[int],
        *,
        rules: Rules = _DEFAULT_RULES,
        stakes: Stakes | None = None,
        seed: int = 0,
        cards: CardSource | None = None,
        manual_showdown: bool = False,
        blinds: Sequence[int] | None = None,
        antes: Sequence[int] | None = None,
        dead_antes: bool | None = None,
    ) -> None:
        n = len(starting_stacks)
        is_stud = variant.is_stud
        if not 2 <= n <= variant.max_seats:
            raise IllegalAction(f"{variant.code} needs 2 to {variant.max_seats} seats, got {n}")
        if min(starting_stacks) <= 0:
            raise IllegalAction("every seat dealt in needs a positive stack")
        self.variant = variant
        self.rules = rules
        self.stakes = stakes if stakes is not None else rules.stakes
        self.seat_count = n
        self.starting_stacks: tuple[int, ...] = tuple(starting_stacks)
        self.stacks: list[int] = list(starting_stacks)
        self.bets: list[int] = [0] * n
        self.committed: list[int] = [0] * n
        self.folded: list[bool] = [False] * n
        self.cards: list[list[Card]] = [[] for _ in range(n)]
        self.is_up: list[list[bool]] = [[] for _ in range(n)]
        self._up: list[list[Card]] = [[] for _ in range(n)]  # each seat's up cards, in order
        self._legal: LegalActions | None = None  # cached for the current decision
        self.board: list[Card] = []
        self.events: list[Event] = []
        self.source: CardSource = cards if cards is not None else SeededDeck(seed)
        # A plain seeded deck deals whole streets at once (the same cards in the same order as
        # card-by-card deals); any other source is asked card by card, as the protocol says.
        self._deck = self.source if type(self.source) is SeededDeck else None
        # Stud from a seeded deck (every card known): each seat's sum of up-card rank keys
        # and its tie-break order (dealing.py), kept as cards are dealt; None: rescan.
        self._up_key: list[int] | None = [0] * n if is_stud and self._deck is not None else None
        self._up_tie: list[int] = [-DECK_SIZE] * n
        self.manual_showdown = manual_showdown
        if is_stud:
            self.blinds: tuple[int, ...] = (0,) * n
        elif blinds is not None:
            if len(blinds) != n:
                raise IllegalAction(f"{len(blinds)} blinds for {n} seats")
            # PHH lists blinds from the seat left of the button; heads-up they are reversed.
            self.blinds = tuple(reversed(blinds)) if n == 2 else tuple(blinds)
        else:
            self.blinds = ((self.stakes.big_blind, self.stakes.small_blind) if n == 2 else
                           (self.stakes.small_blind, self.stakes.big_blind) + (0,) * (n - 2))
        self._blind_plan = None if is_stud else blind_plan(self.blinds)
        self.antes: tuple[int, ...] = antes_of(self, antes)
        # docs/house-rules.md §4: a big-blind ante is the table's ante, dead money in the main pot (not
        # the big blind's own contribution, which could come back to it as a side pot).
        self.dead_antes = (rules.ante_kind is AnteKind.BIG_BLIND and not is_stud
                           if dead_antes is None else dead_antes)
        self.dead_chips = 0
        self._fixed = variant.betting is Betting.FIXED
        self._pot_limit = variant.betting is Betting.POT_LIMIT
        self._short_all_in_chips = 0  # no-limit/pot-limit: consecutive short all-in raises
        self.street_index = 0
        self.actor: int | None = None
        self.is_over = False
        self.is_showdown_pending = False
        self.result: HandResult | None = None
        self.showdown_order: list[int] = []
        self._to_act: list[bool] = [False] * n
        self._acted_full: list[bool] = [False] * n
        self._level = 0
        self._full_level = 0
        self._unit = 0
        self._bet_count = 0
        self._cap: int | None = None
        self._big_allowed = False  # stud fourth street open pair: the big bet may be chosen
        self._bring_in_seat: int | None = None
        self._first_actor: int | None = None
        self._last_aggressor: int | None = None
        # Kept up to date by actions, recounted each betting round: seats not folded, and of
        # those the ones with chips behind (so an action need not rescan every seat).
        self._live_count = n
        self._able_count = n
        self._shown: list[bool | None] = [None] * n
        # Draw games: the seats still to exchange in this exchange round, in turn (empty: a
        # betting round or none), the dead discards, and the price of one exchange.
        self.exchanging: list[int] = []
        self.discards: list[Card] = []
        self.exchange_price_chips = rules.exchange_price if variant.priced_exchanges else 0
        post_forced_bets(self)
        deal_street(self)
        begin_round(self)

    # ----------------------------------------------------------------- public queries

    @property
    def street(self) -> StreetName:
        return self.variant.streets[self.street_index].name

    @property
    def bet_size_chips(self) -> int:
        """Fixed limit: the size of one bet or raise in this round (docs/house-rules.md §3). No-limit and
        pot-limit: the smallest raise increment now (the last full raise, at least the big
        blind; docs/house-rules.md §4)."""
        if self._fixed:
            return self._unit
        return max(self._unit, self.stakes.big_blind)

    @property
    def raises_left(self) -> int | None:
        """Raises still allowed this round after the opening bet; None when uncapped."""
        if self._cap is None:
            return None
        return max(0, self._cap - max(self._bet_count, 1))

    @property
    def pot_chips(self) -> int:
        return sum(self.committed) + self.dead_chips

    def live_seats(self) -> list[int]:
        return [i for i in range(self.seat_count) if not self.folded[i]]

    def up_cards(self, seat: int) -> list[Card]:
        return list(self._up[seat])

    def legal_actions(self) -> LegalActions:
        """What the seat to act may do now: exactly the actions :meth:`act` accepts."""
        legal = self._legal
        if legal is not None:
            return legal
        actor = self.actor
        if actor is None:
            return verify_action(self, None, None, None)  # raises HandOver
        legal = self._legal = compute_legal_actions(self, actor)
        return legal

    def can(self, kind: ActionKind, raise_to: int | None = None) -> bool:
        """Whether the seat to act may take this action now (checked by `verify_action`)."""
        try:
            verify_action(self, self.actor, kind, raise_to)
        except (IllegalAction, MalformedAction):
            return False
        return True

    def act(self, seat: int, kind: ActionKind, raise_to: int | None = None, *,
            automatic: bool = False) -> ActionTaken:
        """Apply one action of ``seat``; raises (changing nothing) if it is not legal now."""
        # The common case first, checked inline: a check, call or fold by the seat to act
        # (not the bring-in seat), legal by what it owes. Anything else goes through verify_action.
        if (raise_to is None and seat == self.actor and seat != self._bring_in_seat
                and not self.exchanging):
            bets = self.bets
            bet = bets[seat]
            owed = self._level - bet
            if kind is _CHECK and owed <= 0:
                event = _check_event(seat, self.street_index, bet, automatic)
                self._acted_full[seat] = True
            elif kind is _CALL and owed > 0:
                stacks = self.stacks
                stack = stacks[seat]
                if owed < stack:
                    added = owed
                    stacks[seat] = stack - owed
                else:
                    added = stack
                    stacks[seat] = 0
                    self._able_count -= 1  # all in
                bet += added
                bets[seat] = bet
                self.committed[seat] += added
                event = ActionTaken(seat, self.street_index, kind, bet, added, added == stack,
                                    automatic)
                self._acted_full[seat] = True
            elif kind is _FOLD:
                self.folded[seat] = True
                self._live_count -= 1
                if self.stacks[seat]:
                    self._able_count -= 1
                event = ActionTaken(seat, self.street_index, kind, bet, 0, False, automatic)
            else:
                return self._act_verified(seat, kind, raise_to, automatic)
            self._to_act[seat] = False
            self.events.append(event)
            self._advance(seat)
            return event
        return self._act_verified(seat, kind, raise_to, automatic)

    def _act_verified(self, seat: int, kind: ActionKind, raise_to: int | None,
                      automatic: bool) -> ActionTaken:
        verify_action(self, seat, kind, raise_to)
        if raise_to is not None:  # a raise: verify_action allows an amount only there
            return self._apply_raise(seat, raise_to, automatic)
        # The bring-in: every other legal check, call and fold took the inline path of act.
        assert kind is ActionKind.BRING_IN
        bets = self.bets
        stack = self.stacks[seat]
        added = min(self.stakes.bring_in, stack)
        self._put(seat, added)
        self._bring_in_seat = None
        self._level = max(self._level, bets[seat])
        event = ActionTaken(seat, self.street_index, kind, bets[seat], added, added == stack,
                            automatic)
        self._others_to_act(seat)
        self._to_act[seat] = False
        self._acted_full[seat] = True
        self.events.append(event)
        self._advance(seat)
        return event

    def apply(self, action: Action, *, automatic: bool = False) -> ActionTaken | CardsExchanged:
        if self.actor is None:
            raise HandOver("no seat is to act")
        if action.kind is ActionKind.EXCHANGE:
            return self.exchange(self.actor, action.cards, automatic=automatic)
        return self.act(self.actor, action.kind, action.raise_to_chips, automatic=automatic)

    def exchange(self, seat: int, discards: Sequence[Card], *, face_up: bool | None = None,
                 automatic: bool = False) -> CardsExchanged:
        """Draw games: ``seat`` gives away ``discards`` (none: stands pat) and is dealt as many
        new cards, each with the face of the card it replaces (``face_up``, when given, must
        be that face); raises (changing nothing) if that is not legal now (docs/house-rules.md §25,
        §21)."""
        event = apply_exchange(self, seat, discards, automatic, face_up)
        self._legal = None
        exchanging = self.exchanging
        del exchanging[0]
        if exchanging:
            self.actor = exchanging[0]
            return event
        self.actor = None
        deal_street(self)  # the street's own cards, if any, come after its exchanges
        if not self._bet_this_street():
            self._deal_on()
        return event

    def _seat_to_act(self) -> int:
        if self.actor is None:
            raise HandOver("no seat is to act")
        return self.actor

    def fold(self) -> ActionTaken:
        return self.act(self._seat_to_act(), ActionKind.FOLD)

    def check_or_call(self) -> ActionTaken:
        legal = self.legal_actions()
        kind = ActionKind.CHECK if legal.can_check else ActionKind.CALL
        if legal.bring_in_to_chips is not None:
            kind = ActionKind.BRING_IN
        return self.act(legal.seat, kind)

    def raise_to(self, amount: int) -> ActionTaken:
        return self.act(self._seat_to_act(), ActionKind.RAISE, amount)

    def _apply_raise(self, seat: int, raise_to: int, automatic: bool) -> ActionTaken:
        added = raise_to - self.bets[seat]
        self._put(seat, added)
        if not self._fixed:
            self._apply_unfixed_raise(seat, raise_to)
            return self._raised(seat, raise_to, added, automatic)
        self._bring_in_seat = None
        increment = raise_to - self._full_level
        unit = self._unit
        if self._big_allowed and raise_to - self._full_level > self.stakes.small_bet:
            unit = self.stakes.big_bet  # a big bet was made: further raises are big
            self._unit = unit
            self._big_allowed = False
        full = increment * 2 >= unit  # docs/house-rules.md §3: at least half a bet counts as a full raise
        self._level = raise_to
        if full:
            self._full_level = raise_to
            self._bet_count += 1
            self._acted_full = [False] * self.seat_count
        return self._raised(seat, raise_to, added, automatic)

    def _apply_unfixed_raise(self, seat: int, raise_to: int) -> None:
        """docs/house-rules.md §4: a raise of at least the last full increment is full and reopens the
        betting; a short all-in does not, unless consecutive short all-ins add up to one."""
        increment = raise_to - self._level
        if increment >= self._unit:
            self._unit = increment
            self._acted_full = [False] * self.seat_count
        if self.stacks[seat]:
            self._short_all_in_chips = 0
        else:
            self._short_all_in_chips += increment
            if self._short_all_in_chips >= self._unit:
                self._short_all_in_chips = 0
        self._level = raise_to
        self._bet_count += 1

    def _raised(self, seat: int, raise_to: int, added: int, automatic: bool) -> ActionTaken:
        self._others_to_act(seat)
        self._to_act[seat] = False
        self._acted_full[seat] = True
        self._last_aggressor = seat
        event = ActionTaken(seat, self.street_index, ActionKind.RAISE, raise_to, added,
                            self.stacks[seat] == 0, automatic)
        self.events.append(event)
        self._advance(seat)
        return event

    def _others_to_act(self, seat: int) -> None:
        """After a bet: every other live seat with chips must act again."""
        to_act = self._to_act
        folded = self.folded
        stacks = self.stacks
        for i in range(self.seat_count):
            if i != seat and not folded[i] and stacks[i] > 0:
                to_act[i] = True

    def _put(self, seat: int, chips: int) -> None:
        self._legal = None
        stack = self.stacks[seat] - chips
        self.stacks[seat] = stack
        self.bets[seat] += chips
        self.committed[seat] += chips
        if not stack and chips:
            self._able_count -= 1  # all in

    # ----------------------------------------------------------------- flow

    def _advance(self, seat: int) -> None:
        self._legal = None
        able_count = self._able_count
        # The round is over with one live seat, or when at most one live seat has chips and it
        # owes nothing (nobody could call a bet).
        if self._live_count == 1 or able_count == 0 or (
                able_count == 1 and self.bets[self._only_able_seat()] >= self._level):
            self.actor = None
            self._end_round()
            return
        # The next seat to act clockwise: the seats after ``seat``, then from seat 0 (``seat``
        # itself has just acted, so it is not to act).
        to_act = self._to_act
        for i in range(seat + 1, self.seat_count):
            if to_act[i]:
                self.actor = i
                return
        for i in range(seat):
            if to_act[i]:
                self.actor = i
                return
        self.actor = None
        self._end_round()

    def _only_able_seat(self) -> int:
        folded = self.folded
        stacks = self.stacks
        for i in range(self.seat_count):
            if not folded[i] and stacks[i]:
                return i
        raise AssertionError("no live seat has chips")

    def _end_round(self) -> None:
        """Return an uncalled bet, then deal on, run the board out, or end the hand."""
        self._return_uncalled()
        n = self.seat_count
        self.bets[:] = [0] * n
        folded = self.folded
        if folded.count(False) == 1:
            award_uncontested(self, folded.index(False))
            return
        self._deal_on()

    def _deal_on(self) -> None:
        """Deal the next streets until one has betting or an exchange round, else show down."""
        streets = self.variant.streets
        last_street = len(streets) - 1
        while self.street_index < last_street:
            self.street_index += 1
            if streets[self.street_index].exchange_max_cards:
                begin_exchanges(self)
                return  # the exchanges come first; the last one goes on (:meth:`exchange`)
            deal_street(self)
            if self._bet_this_street():
                return
        showdown(self)

    def _bet_this_street(self) -> bool:
        """Begin this street's betting round when two seats can bet (else it is skipped)."""
        folded = self.folded
        stacks = self.stacks
        able = 0
        for i in range(self.seat_count):
            if not folded[i] and stacks[i] > 0:
                able += 1
        if able >= 2:
            begin_round(self)
            return True
        return False

    def show(self, seat: int, cards: Sequence[Card] | None) -> None:
        """Replay only: seat shows (``cards``) or mucks (``None``).

        Before the showdown (all-in hands are often tabled early) the cards are checked and
        remembered; at a pending showdown every live seat must show or muck once. Cards a
        history left unknown (see :func:`is_known`) are filled in from what is shown.
        """
        show_cards(self, seat, cards)

    def _return_uncalled(self) -> None:
        bets = self.bets
        top = max(bets)
        if top == 0 or bets.count(top) > 1:
            return
        seat = bets.index(top)
        second = sorted(bets)[-2]  # the top bet is unique: the runner-up is the largest call
        excess = top - second
        self.stacks[seat] += excess
        bets[seat] -= excess
        self.committed[seat] -= excess
        self.events.append(UncalledBetReturned(seat, excess))
