"""One live hand as seats see it: engine events become per-seat payloads, and prompts are built.

The engine numbers seats in PHH order; everything produced here uses the physical table seats
(``HandContext.order`` maps engine seat -> physical seat). Chips are mirrored event by event, so
every ``ActionTaken`` carries the stack and pot exactly as they were after that action.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, replace
from functools import lru_cache
from typing import Final

from arena.engine.actions import ActionKind, LegalActions
from arena.engine.cards import Card
from arena.engine.describe_wild import NO_WILD, seat_wild
from arena.engine.events import (
    ActionTaken,
    BoardDealt,
    CardsExchanged,
    ForcedBetPosted,
    HandShown,
    HoleCardsDealt,
    PotAwarded,
    UncalledBetReturned,
)
from arena.engine.games import ForcedBet
from arena.engine.pots import build_pots, with_dead_chips
from arena.engine.shown import shown_value_in
from arena.engine.state import HandState
from arena.match import messages as m
from arena.match.clock import DecisionClock
from arena.match.records import HandContext

_POST_KINDS: Final = {
    ForcedBet.ANTE: m.RecordKind.POST_ANTE,
    ForcedBet.BIG_BLIND_ANTE: m.RecordKind.POST_ANTE,
    ForcedBet.SMALL_BLIND: m.RecordKind.POST_SMALL_BLIND,
    ForcedBet.BIG_BLIND: m.RecordKind.POST_BIG_BLIND,
}


@dataclass(frozen=True, slots=True, kw_only=True)
class Private:
    """A payload whose owner sees more than everybody else (hole cards, "your seat")."""

    seat: int  # the owner
    own: m.Payload  # what the owner is told
    others: m.Payload  # what every other seat is told


FeedItem = m.Payload | Private

# An action's record kind by its engine kind (a dict read, not an enum lookup by value).
_RECORD_KINDS: Final[dict[ActionKind, m.RecordKind]] = {kind: m.RecordKind(kind.value) for kind in ActionKind
                        if kind is not ActionKind.CHOOSE_GAME}  # a choice is no hand action

_FOLDED: Final = m.SeatStatus.FOLDED
_ALL_IN: Final = m.SeatStatus.ALL_IN
_ACTIVE: Final = m.SeatStatus.ACTIVE
_ABSENT: Final = m.SeatStatus.ABSENT


class HandFeed:
    """Turns the engine's events of one hand into what the seats are told, in order."""

    def __init__(self, state: HandState, ctx: HandContext,
                 is_connected: Callable[[int], bool]) -> None:
        self.state = state
        self.ctx = ctx
        self._is_connected = is_connected
        self._game: str = state.variant.code.value  # read once: an enum's value is a Python property
        n = state.seat_count
        self._engine_of = {p: e for e, p in enumerate(ctx.order)}
        # Physical seat -> engine seat (None: not in this hand).
        self._engine_by_seat = [self._engine_of.get(p) for p in range(len(ctx.names))]
        self._seen = 0
        self._stack = list(state.starting_stacks)
        self._committed = [0] * n
        self._dead_chips = 0
        self._bet = [0] * n
        self._folded = [False] * n
        self._street = 0
        self._returned: list[tuple[int, int]] = []
        self._shown: list[HandShown] = []
        self._awards: list[m.PotAward] = []
        self._pending: tuple[str, m.AutoReason | None] | None = None
        self._pending_strategy: tuple[tuple[str, float], ...] = ()  # issue 40: drawn from it
        self.records: list[m.ActionRecord] = []
        self.ended = False
        # Per physical seat: the last SeatInfo made.
        self._last_infos: list[m.SeatInfo | None] = [None] * len(ctx.names)
        self._before_hand: tuple[tuple[m.SeatStatus, ...], tuple[m.SeatInfo, ...]] | None = None
        self._last_pots: tuple[tuple[object, ...], tuple[m.PotInfo, ...]] | None = None
        self._last_down: dict[int, tuple[int, tuple[Card, ...]]] = {}  # engine seat: (cards, own)

    # ------------------------------------------------------------------ seats

    def seat_infos(self, *, before_hand: bool = False) -> tuple[m.SeatInfo, ...]:
        if before_hand:
            return self._infos_before_hand()
        ctx = self.ctx
        state = self.state
        stacks, bets, committed, folded, cards = (state.stacks, state.bets, state.committed,
                                                  state.folded, state.cards)
        last_infos = self._last_infos
        is_connected = self._is_connected
        out: list[m.SeatInfo] = []
        for p, e in enumerate(self._engine_by_seat):
            if e is None:
                out.append(self._out_info(p))
                continue
            stack = stacks[e]
            status = (_FOLDED if folded[e] else _ALL_IN if stack == 0
                      else _ACTIVE if is_connected(p) else _ABSENT)
            # A seat's up cards change only when it is dealt a card (live play): the count
            # of its cards stands for them.
            dealt = len(cards[e])
            last = last_infos[p]
            if (last is not None and last.stack_chips == stack and last.bet_chips == bets[e]
                    and last.committed_chips == committed[e] and last.status is status
                    and last.hole_card_count + len(last.up_cards) == dealt):
                out.append(last)  # unchanged: the same object (the encoder caches its bytes)
                continue
            up = tuple(state.up_cards(e))
            info = m.SeatInfo(seat=p, name=ctx.names[p], bot_id=ctx.bot_ids[p], stack_chips=stack,
                              bet_chips=bets[e], committed_chips=committed[e], up_cards=up,
                              hole_card_count=dealt - len(up), status=status)
            last_infos[p] = info
            out.append(info)
        return tuple(out)

    def _out_info(self, p: int) -> m.SeatInfo:
        ctx = self.ctx
        return m.SeatInfo(seat=p, name=ctx.names[p], bot_id=ctx.bot_ids[p],
                          stack_chips=ctx.table_stacks[p], bet_chips=0, committed_chips=0,
                          up_cards=(), hole_card_count=0, status=m.SeatStatus.OUT)

    def _infos_before_hand(self) -> tuple[m.SeatInfo, ...]:
        """Every seat as the hand starts; the same tuple for every viewer while no seat's
        connection changed (HandStarted goes to each seat)."""
        ctx = self.ctx
        state = self.state
        statuses = tuple((_ACTIVE if self._is_connected(p) else _ABSENT) if p in self._engine_of
                         else m.SeatStatus.OUT for p in range(len(ctx.names)))
        if self._before_hand is not None and self._before_hand[0] == statuses:
            return self._before_hand[1]
        engine_of = self._engine_of
        infos = tuple(
            m.SeatInfo(seat=p, name=ctx.names[p], bot_id=ctx.bot_ids[p],
                       stack_chips=state.starting_stacks[engine_of[p]], bet_chips=0,
                       committed_chips=0, up_cards=(), hole_card_count=0, status=statuses[p])
            if p in engine_of else self._out_info(p) for p in range(len(ctx.names)))
        self._before_hand = (statuses, infos)
        return infos

    def hand_started(self, viewer: int) -> m.HandStarted:
        ctx = self.ctx
        return m.HandStarted(hand_number=ctx.hand_number, game=self._game, button_seat=ctx.button_seat,
                             your_seat=viewer if viewer in self._engine_of else -1,
                             seats=self.seat_infos(before_hand=True), stakes=self.state.stakes,
                             deal_id=ctx.deal_id,
                             game_hand_number=ctx.game_hand_number, duplicate_copy=ctx.copy_index)

    # ------------------------------------------------------------------ prompts

    def prompt(self, decision_id: str, clock: DecisionClock, now: float,
               trigger_received_at: float | None) -> m.Prompt:
        """The decision request of the seat to act, with the clock as of ``now``."""
        state = self.state
        ctx = self.ctx
        e = state.actor
        assert e is not None
        legal = state.legal_actions()
        order = ctx.order
        # A seat's own down cards change only when it is dealt a card (live play).
        dealt = len(state.cards[e])
        last_down = self._last_down.get(e)
        if last_down is not None and last_down[0] == dealt:
            down = last_down[1]
        else:
            down = own_down_cards(state, e)
            self._last_down[e] = (dealt, down)
        pots = self._pots(state, order)
        bet_size, raises_left = round_info(state)
        wild = seat_wild_ranks(state, e)
        call_to = legal.call_to_chips
        wall = time.time()
        return m.Prompt(
            match_id=ctx.match_id,
            hand_id=ctx.hand_id,
            decision_id=decision_id,
            game=self._game,
            street=state.street,
            hand_number=ctx.hand_number,
            game_hand_number=ctx.game_hand_number,
            hands_per_game=ctx.hands_per_game,
            button_seat=ctx.button_seat,
            seat=order[e],
            seats=self.seat_infos(),
            hole_cards=down,
            board=tuple(state.board),
            pots=pots,
            pot_total_chips=state.pot_chips,
            actions=tuple(self.records),
            current_bet_chips=max(state.bets),
            to_call_chips=call_to - state.bets[e] if call_to is not None else 0,
            legal=legal_choices(legal, state.bets[e] + state.stacks[e],
                                keeps_face=state.variant.is_stud),
            stakes=state.stakes,
            bet_size_chips=bet_size,
            raises_left=raises_left,
            decision_time_left_seconds=clock.decision_left(now),
            time_bank_left_seconds=clock.bank_left(now),
            deadline_unix_seconds=wall + clock.total_left(now),
            sent_unix_seconds=wall,
            trigger_received_at=trigger_received_at,
            wild_ranks=wild[0],
            low_wild_ranks=wild[1],
        )

    def _pots(self, state: HandState, order: tuple[int, ...]) -> tuple[m.PotInfo, ...]:
        """The pots before this round's bets; the same tuple while they stay the same (they
        change when a round ends or a seat folds), so the encoder reuses its bytes."""
        collected = tuple([c - b for c, b in zip(state.committed, state.bets, strict=True)])
        key = (collected, tuple(state.folded), state.dead_chips)
        if self._last_pots is not None and self._last_pots[0] == key:
            return self._last_pots[1]
        live = [not f for f in state.folded]
        pots = tuple(m.PotInfo(amount_chips=p.amount_chips,
                               eligible_seats=tuple(sorted(order[i] for i in p.eligible)))
                     for p in with_dead_chips(build_pots(list(collected), live),
                                              state.dead_chips, live))
        self._last_pots = (key, pots)
        return pots

    # ------------------------------------------------------------------ events

    def note_action(self, decision_id: str, automatic: m.AutoReason | None,
                    strategy: tuple[tuple[str, float], ...] = ()) -> None:
        """Call right before ``state.act``: tags the ActionTaken it will produce (with the
        declared ``strategy`` it was drawn from, if any)."""
        self._pending = (decision_id, automatic)
        self._pending_strategy = strategy

    def drain(self) -> list[FeedItem]:
        """Payloads for the engine events since the last call (and the hand's end, once)."""
        state = self.state
        events = state.events
        out: list[FeedItem] = []
        order = self.ctx.order
        streets = state.variant.streets
        for event in events[self._seen:]:
            if isinstance(event, ActionTaken):  # the most frequent first
                self._to_street(event.street, out)
                out.append(self._action(event))
            elif isinstance(event, ForcedBetPosted):
                e = event.seat
                self._stack[e] -= event.amount_chips
                if event.kind is ForcedBet.BIG_BLIND_ANTE:
                    self._dead_chips += event.amount_chips  # the table's, dead in the main pot
                else:
                    self._committed[e] += event.amount_chips
                is_ante = event.kind is ForcedBet.ANTE or event.kind is ForcedBet.BIG_BLIND_ANTE
                if not is_ante:
                    self._bet[e] += event.amount_chips
                record = m.ActionRecord(seat=order[e], street=streets[self._street].name,
                                        kind=_POST_KINDS[event.kind],
                                        raise_to_chips=event.amount_chips, amount_chips=event.amount_chips,
                                        round_bet_chips=0 if is_ante else self._bet[e],
                                        is_all_in=event.is_all_in)
                self.records.append(record)
                out.append(m.ActionTaken(action=record, stack_after_chips=self._stack[e],
                                             pot_total_after_chips=self._pot_chips(), decision_id=""))
            elif isinstance(event, HoleCardsDealt):
                self._to_street(event.street, out)
                up = tuple(c for c, u in zip(event.cards, event.is_up, strict=True) if u)
                hole = tuple(c for c, u in zip(event.cards, event.is_up, strict=True) if not u)
                name = streets[event.street].name
                p = order[event.seat]
                out.append(Private(
                    seat=p, own=m.CardsDealt(street=name, seat=p, up_cards=up, hole_cards=hole,
                                             hole_card_count=len(hole)),
                    others=m.CardsDealt(street=name, seat=p, up_cards=up, hole_cards=(),
                                        hole_card_count=len(hole))))
            elif isinstance(event, BoardDealt):
                self._to_street(event.street, out)
                board = tuple(state.board[: self._board_count(event)])
                out.append(m.BoardDealt(street=streets[event.street].name, cards=event.cards,
                                            board_cards=board,
                                        is_common_card=event.is_stud_common_card))
            elif isinstance(event, CardsExchanged):
                self._to_street(event.street, out)
                out.append(self._exchange(event))
            elif isinstance(event, UncalledBetReturned):
                e = event.seat
                self._stack[e] += event.amount_chips
                self._committed[e] -= event.amount_chips
                self._bet[e] -= event.amount_chips
                self._returned.append((order[e], event.amount_chips))
            elif isinstance(event, HandShown):
                self._shown.append(event)
            elif isinstance(event, PotAwarded):
                self._award(event)
        self._seen = len(events)
        if state.is_over and not self.ended:
            self.ended = True
            out.extend(self._finish())
        return out

    def _board_count(self, event: BoardDealt) -> int:
        # The board as it stood after this deal: count this and earlier board events.
        count = 0
        for other in self.state.events:
            if isinstance(other, BoardDealt):
                count += len(other.cards)
                if other is event:
                    break
        return count

    def _action(self, event: ActionTaken) -> m.ActionTaken:
        e = event.seat
        self._stack[e] -= event.added_chips
        self._committed[e] += event.added_chips
        self._bet[e] = event.to_chips
        if event.kind is ActionKind.FOLD:
            self._folded[e] = True
        decision_id, reason = self._pending if self._pending is not None else ("", None)
        self._pending = None
        strategy = self._pending_strategy
        self._pending_strategy = ()
        if event.kind is ActionKind.RAISE:
            raise_to = event.to_chips
        elif event.kind is ActionKind.BRING_IN:
            raise_to = event.added_chips
        else:
            raise_to = 0
        if reason is None and event.is_automatic:
            reason = m.AutoReason.TIMEOUT
        record = m.ActionRecord(seat=self.ctx.order[e], street=self.state.variant.streets[event.street].name,
                                kind=_RECORD_KINDS[event.kind], raise_to_chips=raise_to,
                                amount_chips=event.added_chips,
                                round_bet_chips=event.to_chips, is_all_in=event.is_all_in, automatic=reason)
        self.records.append(record)
        return m.ActionTaken(action=record, stack_after_chips=self._stack[e],
                                 pot_total_after_chips=self._pot_chips(), decision_id=decision_id,
                                 strategy=strategy)

    def _exchange(self, event: CardsExchanged) -> Private:
        """docs/house-rules.md §26: the exchanging seat is told its cards; everybody else only
        how many, and the cards themselves when they are up cards (English Stud, §25)."""
        e = event.seat
        p = self.ctx.order[e]
        self._stack[e] -= event.price_chips
        self._committed[e] += event.price_chips
        self._last_down.pop(e, None)  # its down cards changed, their count did not
        self._last_infos[p] = None  # and maybe its up cards
        decision_id, reason = self._pending if self._pending is not None else ("", None)
        self._pending = None
        self._pending_strategy = ()
        if reason is None and event.is_automatic:
            reason = m.AutoReason.TIMEOUT
        face_up = any(event.is_up)
        public = m.ActionRecord(
            seat=p, street=self.state.variant.streets[event.street].name,
            kind=m.RecordKind.EXCHANGE, raise_to_chips=0, amount_chips=event.price_chips,
            round_bet_chips=self._bet[e], is_all_in=False, automatic=reason,
            exchange_card_count=len(event.discarded),
            exchanged_cards=event.discarded if face_up else (),
            drawn_cards=event.drawn if face_up else (), exchange_face_up=face_up)
        own = public if face_up or not event.discarded else replace(
            public, exchanged_cards=event.discarded, drawn_cards=event.drawn)
        self.records.append(public)
        others = m.ActionTaken(action=public, stack_after_chips=self._stack[e],
                                   pot_total_after_chips=self._pot_chips(), decision_id=decision_id)
        return Private(seat=p, own=replace(others, action=own), others=others)

    def _to_street(self, street: int, out: list[FeedItem]) -> None:
        while self._street < street:
            out.append(self._street_ended())
            self._street += 1

    def _pot_chips(self) -> int:
        return sum(self._committed) + self._dead_chips

    def _street_ended(self) -> m.StreetEnded:
        order = self.ctx.order
        live = [not f for f in self._folded]
        pots = with_dead_chips(build_pots(self._committed, live), self._dead_chips, live)
        returned = tuple(self._returned)
        self._returned = []
        self._bet = [0] * len(self._bet)
        return m.StreetEnded(
            street=self.state.variant.streets[self._street].name,
            pots=tuple(m.PotInfo(amount_chips=p.amount_chips,
                                 eligible_seats=tuple(sorted(order[i] for i in p.eligible)))
                  for p in pots),
            pot_total_chips=self._pot_chips(), returned=returned)

    def _award(self, event: PotAwarded) -> None:
        order = self.ctx.order
        for e, chips in zip(event.winners, event.amounts_chips, strict=True):
            self._stack[e] += chips
        self._awards.append(m.PotAward(
            pot_index=event.pot_index, amount_chips=event.amount_chips, half=event.share,
            winners=tuple((order[w], a) for w, a in zip(event.winners, event.amounts_chips, strict=True))))

    def _finish(self) -> list[FeedItem]:
        state = self.state
        order = self.ctx.order
        out: list[FeedItem] = [self._street_ended()]
        if self._shown:
            hands = []
            for shown in self._shown:
                value = shown_value_in(state, shown.seat, shown.cards)
                hands.append(m.ShownHand(seat=order[shown.seat], cards=shown.cards,
                                         high_description=value.high_description,
                                         high_cards=value.high_cards, low_description=value.low_description,
                                         low_cards=value.low_cards))
            out.append(m.Showdown(hands=tuple(hands)))
        result = state.result
        assert result is not None
        net_chips = result.net_chips  # a property: a new tuple each read
        results = tuple(sorted(
            (m.SeatResult(seat=order[e], net_chips=net_chips[e], final_stack_chips=result.final_stacks[e])
             for e in range(state.seat_count)), key=lambda r: r.seat))
        out.append(m.HandEnded(results=results, awards=tuple(self._awards), voided=False, void_reason="",
                               went_to_showdown=bool(result.showdown_order)))
        return out

    def voided(self, reason: str) -> m.HandEnded:
        """The hand's end when it cannot be finished: every committed chip goes back."""
        order = self.ctx.order
        state = self.state
        results = tuple(sorted((m.SeatResult(seat=order[e], net_chips=0,
                                                 final_stack_chips=state.starting_stacks[e])
                                for e in range(state.seat_count)), key=lambda r: r.seat))
        self.ended = True
        return m.HandEnded(results=results, awards=(), voided=True, void_reason=reason,
                           went_to_showdown=False)


def legal_choices(legal: LegalActions, all_in_to: int, *,
                  keeps_face: bool = False) -> tuple[m.LegalChoice, ...]:
    """The choices of ``legal``; equal choices are the same tuple (the encoder reuses its
    bytes), so a decision costs a lookup rather than a tuple of new choices. In an exchange
    round the one choice is EXCHANGE (docs/house-rules.md §26; ``keeps_face``: English Stud)."""
    if legal.can_exchange:
        return _exchange_choice(legal.exchangeable, legal.exchange_max_cards,
                                legal.exchange_price_chips, keeps_face)
    bring_in = legal.bring_in_to_chips
    return _choices(legal.can_fold, legal.can_check, legal.call_to_chips, legal.call_is_all_in,
                    bring_in, bring_in is not None and bring_in >= all_in_to, legal.raise_min_to,
                    legal.raise_max_to, legal.raise_is_all_in, legal.raise_is_range)


@lru_cache(maxsize=1024)
def _exchange_choice(exchangeable: tuple[Card, ...], most: int, price: int, keeps_face: bool
                     ) -> tuple[m.LegalChoice, ...]:
    return (m.LegalChoice(kind=ActionKind.EXCHANGE, min_to_chips=0, max_to_chips=0,
                          is_all_in=False, min_exchanged=0, max_exchanged=most,
                          exchangeable_cards=exchangeable, price_chips=price if most else 0,
                          keeps_face=keeps_face),)


@lru_cache(maxsize=1024)
def _choices(can_fold: bool, can_check: bool, call_to: int | None, call_is_all_in: bool,
             bring_in_to: int | None, bring_in_is_all_in: bool, raise_min_to: int | None,
             raise_max_to: int | None, raise_is_all_in: bool, raise_is_range: bool,
             ) -> tuple[m.LegalChoice, ...]:
    out: list[m.LegalChoice] = []
    if can_fold:
        out.append(m.LegalChoice(kind=ActionKind.FOLD, min_to_chips=0, max_to_chips=0, is_all_in=False))
    if can_check:
        out.append(m.LegalChoice(kind=ActionKind.CHECK, min_to_chips=0, max_to_chips=0, is_all_in=False))
    if call_to is not None:
        out.append(m.LegalChoice(kind=ActionKind.CALL, min_to_chips=call_to, max_to_chips=call_to,
                                 is_all_in=call_is_all_in))
    if bring_in_to is not None:
        out.append(m.LegalChoice(kind=ActionKind.BRING_IN, min_to_chips=bring_in_to, max_to_chips=bring_in_to,
                                 is_all_in=bring_in_is_all_in))
    if raise_min_to is not None and raise_max_to is not None:
        out.append(m.LegalChoice(kind=ActionKind.RAISE, min_to_chips=raise_min_to, max_to_chips=raise_max_to,
                                 is_all_in=raise_is_all_in,
                                 is_range=raise_is_range))
    return tuple(out)


def round_info(state: HandState) -> tuple[int, int]:
    """(bet size of the round, raises left or -1 when uncapped)."""
    raises_left = state.raises_left
    return state.bet_size_chips, -1 if raises_left is None else raises_left


def own_down_cards(state: HandState, engine_seat: int) -> tuple[Card, ...]:
    return tuple(c for c, up in zip(state.cards[engine_seat], state.is_up[engine_seat], strict=True)
                 if not up)


_NO_WILD: Final[tuple[tuple[int, ...], tuple[int, ...]]] = ((), ())


def seat_wild_ranks(state: HandState, seat: int) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """The ranks wild for ``seat``'s hand now, (for high, for low): the engine's
    :func:`~arena.engine.describe_wild.seat_wild`, in rank order."""
    wild = seat_wild(state.variant, state.rules, state.cards[seat], state.is_up[seat])
    return _NO_WILD if wild is NO_WILD else (tuple(sorted(wild.high)), tuple(sorted(wild.low)))
