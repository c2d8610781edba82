"""Legal actions: the one legality check, the raise range of fixed, pot and no limit, what a
seat may exchange in a draw round, and the shared LegalActions values."""

from __future__ import annotations

from functools import lru_cache
from typing import TYPE_CHECKING

from arena.engine.actions import ActionKind, LegalActions
from arena.engine.cards import Card
from arena.engine.errors import AmountOutOfRange, HandOver, IllegalAction, MalformedAction, NotYourTurn

if TYPE_CHECKING:
    from arena.engine.state import HandState


# LegalActions is an immutable value and the same few values come up decision after decision
# (the same seat owing the same bet): one instance per value is shared (lru_cache) instead of
# building one per decision.
_LEGAL_CACHE_LIMIT = 4096


def compute_legal_actions(hand: HandState, seat: int) -> LegalActions:
    if hand.exchanging:
        return exchange_legal(hand, seat)
    if seat == hand._bring_in_seat:
        bring_in_to = min(hand.stakes.bring_in, hand.stacks[seat])
        raise_min, raise_max, raise_all_in = raise_range(hand, seat)
        if raise_max is not None and raise_max <= bring_in_to:
            raise_min = raise_max = None  # too short to complete: the bring-in is all in
            raise_all_in = False
        return _bring_in_value(seat, bring_in_to, raise_min, raise_max, raise_all_in)
    bet = hand.bets[seat]
    stack = hand.stacks[seat]
    owed = hand._level - bet
    if owed <= 0:
        call_to, call_all_in = None, False
    elif owed < stack:
        call_to, call_all_in = bet + owed, False
    else:
        call_to, call_all_in = bet + stack, True
    raise_min, raise_max, raise_all_in = raise_range(hand, seat)
    return _betting_value(seat, call_to, call_all_in, raise_min, raise_max, raise_all_in,
                          hand._fixed)


@lru_cache(maxsize=_LEGAL_CACHE_LIMIT)
def _betting_value(seat: int, call_to: int | None, call_all_in: bool, raise_min: int | None,
                   raise_max: int | None, raise_all_in: bool, fixed: bool) -> LegalActions:
    """A seat with no bring-in due (fixed limit has no raise range; no-limit and pot-limit
    one whenever raising is allowed)."""
    return LegalActions(seat=seat, can_fold=True, can_check=call_to is None, call_to_chips=call_to,
                        call_is_all_in=call_all_in, bring_in_to_chips=None, raise_min_to=raise_min,
                        raise_max_to=raise_max, raise_is_all_in=raise_all_in,
                        raise_is_range=raise_min is not None and not fixed)


def exchange_legal(hand: HandState, seat: int) -> LegalActions:
    """What ``seat`` may do in an exchange round: exchange up to the street's number of its
    cards (stand pat with none), paying the price when it has the chips (else stand pat)."""
    street = hand.variant.streets[hand.street_index]
    price = hand.exchange_price_chips
    most = street.exchange_max_cards if hand.stacks[seat] >= price else 0
    return _exchange_value(seat, tuple(hand.cards[seat]), most, price if most else 0)


@lru_cache(maxsize=_LEGAL_CACHE_LIMIT)
def _exchange_value(seat: int, cards: tuple[Card, ...], most: int, price: int) -> LegalActions:
    """LegalActions is immutable: one value per (seat, cards, most, price), shared while in use."""
    return LegalActions(
        seat=seat, can_fold=False, can_check=False, call_to_chips=None, call_is_all_in=False,
        bring_in_to_chips=None, raise_min_to=None, raise_max_to=None, raise_is_all_in=False,
        can_exchange=True, exchangeable=cards, exchange_max_cards=most, exchange_price_chips=price)


@lru_cache(maxsize=_LEGAL_CACHE_LIMIT)
def _bring_in_value(seat: int, bring_in_to: int, raise_min: int | None, raise_max: int | None,
                    raise_all_in: bool) -> LegalActions:
    return LegalActions(seat=seat, can_fold=False, can_check=False, call_to_chips=None,
                        call_is_all_in=False, bring_in_to_chips=bring_in_to, raise_min_to=raise_min,
                        raise_max_to=raise_max, raise_is_all_in=raise_all_in)


def verify_action(hand: HandState, seat: int | None, kind: ActionKind | None,
                  raise_to: int | None) -> LegalActions:
    """The one legality check (PokerKit's verify/can/do pattern).

    Raises the typed error when ``seat`` may not take the action now, changing nothing;
    returns the legal set it checked against. ``kind=None`` checks only whose turn it is.
    """
    actor = hand.actor
    if actor is None:
        raise HandOver("no seat is to act: the hand is over" if hand.is_over else "no seat is to act")
    if seat != actor:
        raise NotYourTurn(f"seat {seat} acted but seat {actor} is to act")
    legal = hand._legal
    if legal is None:
        legal = hand._legal = compute_legal_actions(hand, actor)
    if kind is None:
        return legal
    if legal.can_exchange:
        if kind is ActionKind.EXCHANGE:
            raise MalformedAction("an exchange names its cards: HandState.exchange(seat, cards)")
        raise IllegalAction(f"seat {seat} may not {kind.value} now: it is an exchange round "
                            f"(exchange cards or stand pat)")
    if kind is ActionKind.RAISE:
        if raise_to is None:
            raise MalformedAction("a raise needs a 'raise to' amount")
        if legal.raise_min_to is None:
            raise IllegalAction(f"seat {seat} may not bet or raise now")
        if raise_to != legal.raise_min_to and raise_to != legal.raise_max_to:
            if not legal.raise_is_range:
                amounts = " or ".join(str(a) for a in legal.raise_amounts())
                raise AmountOutOfRange(f"raise to {raise_to} is not legal; raise to {amounts}")
            assert legal.raise_max_to is not None
            if not legal.raise_min_to <= raise_to <= legal.raise_max_to:
                raise AmountOutOfRange(
                    f"raise to {raise_to} is not legal; raise to {legal.raise_min_to} to "
                    f"{legal.raise_max_to}")
        return legal
    if raise_to is not None:
        raise MalformedAction(f"{kind.value} takes no amount")
    if kind is ActionKind.CHECK:
        if not legal.can_check:
            raise IllegalAction(f"seat {seat} may not check: {hand._level - hand.bets[seat]} to call")
    elif kind is ActionKind.CALL:
        if legal.call_to_chips is None:
            raise IllegalAction(f"seat {seat} has nothing to call; check instead")
    elif kind is ActionKind.FOLD:
        if not legal.can_fold:
            raise IllegalAction(f"seat {seat} may not fold now (post the bring-in or complete)")
    elif kind is ActionKind.BRING_IN:
        if legal.bring_in_to_chips is None:
            raise IllegalAction(f"seat {seat} has no bring-in to post")
    elif kind is ActionKind.EXCHANGE:
        raise IllegalAction(f"seat {seat} may not exchange now: it is a betting round")
    else:
        raise MalformedAction(f"unknown action kind {kind!r}")
    return legal


_NO_RAISE: tuple[None, None, bool] = (None, None, False)


def raise_range(hand: HandState, seat: int) -> tuple[int | None, int | None, bool]:
    """The smallest and largest "raise to" of ``seat`` and whether the largest is all in;
    ``(None, None, False)`` when it may not bet or raise."""
    bets = hand.bets
    stacks = hand.stacks
    bet = bets[seat]
    all_in_to = bet + stacks[seat]
    level = hand._level
    if all_in_to <= level:
        return _NO_RAISE
    fixed = hand._fixed
    if fixed:
        if hand._acted_full[seat]:
            return _NO_RAISE  # docs/house-rules.md §3: no re-raise unless someone raised after them
        cap = hand._cap
        if cap is not None and hand._bet_count >= cap:
            return _NO_RAISE
    elif hand._acted_full[seat]:
        # docs/house-rules.md §4: a seat that acted and faces less than a full raise since (only short
        # all-ins came after it) may call or fold, not raise.
        increment = hand._unit
        short = hand._short_all_in_chips
        if level - bet < increment or 0 < short < increment:
            return _NO_RAISE
    # Another live seat must have chips to put in beyond the level, else a raise is moot.
    folded = hand.folded
    for i in range(hand.seat_count):
        if i != seat and not folded[i] and stacks[i] + bets[i] > level:
            break
    else:
        return _NO_RAISE
    if fixed:
        full_level = hand._full_level
        low_to = full_level + hand._unit
        high_to = full_level + hand.stakes.big_bet if hand._big_allowed else low_to
    else:
        increment = hand._unit
        big_blind = hand.stakes.big_blind
        low_to = level + (increment if increment > big_blind else big_blind)
        if hand._pot_limit:
            # The pot after the call, every chip in the middle counted, on top of the call.
            high_to = 2 * level - bet + sum(hand.committed) + hand.dead_chips
            if high_to < low_to:
                high_to = low_to
        else:
            high_to = all_in_to
    raise_min = low_to if low_to < all_in_to else all_in_to
    raise_max = high_to if high_to < all_in_to else all_in_to
    return raise_min, raise_max, raise_max == all_in_to
