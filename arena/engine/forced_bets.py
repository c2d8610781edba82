"""Forced bets: each seat's ante and the posting of antes and blinds at the start of a hand."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from arena.engine.errors import IllegalAction
from arena.engine.events import ForcedBetPosted
from arena.engine.games import AnteKind, ForcedBet

if TYPE_CHECKING:
    from arena.engine.state import HandState


def antes_of(hand: HandState, antes: Sequence[int] | None) -> tuple[int, ...]:
    """Each seat's ante: every seat in stud; in the blind games by ``ante_kind`` (docs/house-rules.md
    §4: none, each seat, or the big blind for the whole table) or as a hand history says
    (in PHH order, reversed heads-up like the blinds)."""
    n = hand.seat_count
    ante = hand.stakes.ante
    if hand._blind_plan is None:
        return (ante,) * n
    if antes is not None:
        if len(antes) != n:
            raise IllegalAction(f"{len(antes)} antes for {n} seats")
        return tuple(reversed(antes)) if n == 2 else tuple(antes)
    kind = hand.rules.ante_kind
    if kind is AnteKind.NONE or not ante:
        return (0,) * n
    if kind is AnteKind.EACH:
        return (ante,) * n
    out = [0] * n
    out[hand._blind_plan.big_blind_seat] = ante * n
    return tuple(out)


def post_forced_bets(hand: HandState) -> None:
    """Post the antes, then the blinds, as :func:`antes_of` and the blind plan say."""
    antes = hand.antes
    if any(antes):
        # Antes first, before the blinds (a short stack antes first, as PokerKit does).
        stacks = hand.stacks
        committed = hand.committed
        events = hand.events
        dead = hand.dead_antes
        kind = ForcedBet.BIG_BLIND_ANTE if dead else ForcedBet.ANTE
        for seat in range(hand.seat_count):
            ante = antes[seat]
            if not ante:
                continue
            stack = stacks[seat]
            amount = ante if ante < stack else stack
            stacks[seat] = stack - amount
            if dead:
                hand.dead_chips += amount
            else:
                committed[seat] += amount
            events.append(ForcedBetPosted(seat, kind, amount, amount == stack))
    if hand._blind_plan is not None:
        stacks = hand.stacks
        for seat, amount, kind in hand._blind_plan.posts:
            if not stacks[seat]:
                continue  # all in on the ante
            posted = min(amount, stacks[seat])
            hand._put(seat, posted)
            hand.events.append(ForcedBetPosted(seat, kind, posted, stacks[seat] == 0))
