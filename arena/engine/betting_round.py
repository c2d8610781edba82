"""The start of a betting round: the bet size, the cap, the seats to act and the first of them."""

from __future__ import annotations

from typing import TYPE_CHECKING

from arena.engine.cards import rank_of
from arena.engine.dealing import stud_opener

if TYPE_CHECKING:
    from arena.engine.state import HandState


def begin_round(hand: HandState) -> None:
    """Set up the betting round of the current street, or skip it when nobody can bet."""
    n = hand.seat_count
    street_index = hand.street_index
    variant = hand.variant
    is_stud = variant.is_stud
    stakes = hand.stakes
    folded = hand.folded
    stacks = hand.stacks
    bets = hand.bets
    fixed = hand._fixed
    if fixed:
        is_big_bet = variant.streets[street_index].is_big_bet
        unit = hand._unit = stakes.big_bet if is_big_bet else stakes.small_bet
    else:
        unit = hand._unit = 0  # no full raise yet this round (the pre-flop blind: below)
        hand._short_all_in_chips = 0
    hand._big_allowed = False
    hand._last_aggressor = None
    # The seats able to bet: live, with chips behind. They are all to act, unless a stud
    # bring-in is due (below).
    able = [False] * n
    able_count = 0
    for i in range(n):
        if not folded[i] and stacks[i] > 0:
            able[i] = True
            able_count += 1
    hand._able_count = able_count
    hand._live_count = n - folded.count(True)
    rules = hand.rules
    if not fixed or (rules.uncapped_heads_up and able_count == 2):
        hand._cap = None
    else:
        hand._cap = 1 + rules.max_raises
    hand._acted_full = [False] * n
    hand._bring_in_seat = None
    if street_index == 0 and not is_stud:
        level = hand._level = max(bets)
        assert hand._blind_plan is not None
        bb_seat = hand._blind_plan.big_blind_seat
        big = bets[bb_seat]
        # The big blind is the opening bet; a short one counts only if at least half a bet.
        hand._full_level = big if big * 2 >= unit else 0
        hand._bet_count = 1 if hand._full_level else 0
        if not fixed:
            hand._unit = level  # docs/house-rules.md §4: the big blind is the pre-flop opening bet
        first = (bb_seat + 1) % n
    else:
        level = hand._level = 0
        hand._full_level = 0
        hand._bet_count = 0
        first = stud_opener(hand) if is_stud else 0
    if able_count < 2 and (able_count == 0 or bets[able.index(True)] >= level):
        hand._to_act = [False] * n  # nobody is to act
        hand._end_round()
        return
    if street_index == 0 and is_stud:
        # A seat all in on its ante cannot bring it in: the next seat with chips does.
        while stacks[first] == 0:
            first = (first + 1) % n
        if stakes.bring_in > 0:
            hand._bring_in_seat = first
            able = [False] * n
            able[first] = True
    to_act = hand._to_act = able
    if (street_index == 1 and variant.open_pair_big_bet and rules.stud_open_pair_big_bet
            and _any_open_pair(hand)):
        hand._big_allowed = True
    # The first seat to act: ``first`` or the next seat clockwise that is to act.
    actor: int | None = None
    for i in range(first, n):
        if to_act[i]:
            actor = i
            break
    else:
        for i in range(first):
            if to_act[i]:
                actor = i
                break
    hand.actor = hand._first_actor = actor


def _any_open_pair(hand: HandState) -> bool:
    folded = hand.folded
    for seat, up in enumerate(hand._up):
        ranks = {rank_of(c) for c in up}
        if not folded[seat] and len(ranks) != len(up):
            return True
    return False
