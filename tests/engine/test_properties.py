"""Property tests of the hand engine over random games, tables, stacks, rules and actions.

Invariants (docs/house-rules.md section in brackets):

* chips are conserved: while a hand runs every seat's stack plus what it committed equals its
  starting stack; at the end the final stacks add up to the starting stacks and the awards to
  what was committed [§3, §4 side pots, §5 "stacks change only through pots"];
* stacks, bets and commitments never go negative [§3 all-in];
* every hand ends within a bound on the number of actions derived from the caps and stacks
  [§3: one bet and at most three raises, unlimited heads-up only up to the stacks];
* an illegal action (wrong seat, wrong kind, wrong amount, malformed, after the end) raises
  and changes nothing at all [§5 "It never changes the state"].

What each seat may see [§8] is tested on the implementation that ships, the match layer's
feed, in ``tests/match/test_seat_views.py``.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from arena.engine.actions import ActionKind, LegalActions
from arena.engine.errors import ArenaError
from arena.engine.rules import Rules
from arena.engine.state import HandState
from tests.hands import ENGINE_GAMES, SETTINGS, assert_rejected, play_drawn, tables


@given(data=st.data(), table=tables(ENGINE_GAMES))
@settings(SETTINGS, max_examples=400)
def test_chips_are_conserved_and_hands_end(data: st.DataObject,
                                           table: tuple[str, list[int], Rules, int]) -> None:
    """docs/house-rules.md §3-§6: no chip appears or disappears; every hand ends in bounded actions."""
    state = play_drawn(data, table)
    result = state.result
    assert result is not None
    assert sum(state.stacks) == sum(state.starting_stacks)
    assert tuple(state.stacks) == result.final_stacks
    assert sum(a.amount_chips for a in result.awards) == sum(state.committed)
    assert sum(p.amount_chips for p in result.pots) == sum(state.committed)
    for award in result.awards:
        assert sum(award.amounts_chips) == award.amount_chips
    assert sum(result.net_chips) == 0


# --------------------------------------------------------------------------- illegal actions


def illegal_actions(state: HandState,
                    legal: LegalActions) -> Iterator[tuple[int, ActionKind, int | None]]:
    seat = legal.seat
    for other in range(state.seat_count):
        if other != seat:
            yield other, ActionKind.CHECK, None  # not this seat's turn
            yield other, ActionKind.FOLD, None
            break
    if not legal.can_check:
        yield seat, ActionKind.CHECK, None
    if legal.call_to_chips is None:
        yield seat, ActionKind.CALL, None
    if legal.bring_in_to_chips is None:
        yield seat, ActionKind.BRING_IN, None
    if not legal.can_fold:
        yield seat, ActionKind.FOLD, None
    yield seat, ActionKind.RAISE, None  # a raise needs an amount
    yield seat, ActionKind.FOLD, 40  # only a raise takes an amount
    if legal.call_to_chips is not None:
        yield seat, ActionKind.CALL, legal.call_to_chips
    top = max(state.bets)
    if legal.raise_min_to is None or legal.raise_max_to is None:
        yield seat, ActionKind.RAISE, top + state.stakes.small_bet
        yield seat, ActionKind.RAISE, top + state.stakes.big_bet
    else:
        yield seat, ActionKind.RAISE, legal.raise_min_to - 1
        yield seat, ActionKind.RAISE, legal.raise_max_to + 1
        yield seat, ActionKind.RAISE, 0
        yield seat, ActionKind.RAISE, -legal.raise_min_to
        if legal.raise_max_to - legal.raise_min_to > 1 and not legal.raise_is_range:
            yield seat, ActionKind.RAISE, legal.raise_min_to + 1  # fixed limit: two amounts only
    yield seat, ActionKind.EXCHANGE, None  # an exchange names its cards (HandState.exchange)
    yield state.seat_count, ActionKind.CHECK, None  # no such seat
    yield -1, ActionKind.FOLD, None


@given(data=st.data(), table=tables(ENGINE_GAMES))
@SETTINGS
def test_illegal_actions_raise_and_change_nothing(
        data: st.DataObject, table: tuple[str, list[int], Rules, int]) -> None:
    """docs/house-rules.md §6: an invalid action is rejected with an error and never changes the state."""

    def probe(state: HandState, legal: LegalActions) -> None:
        for seat, kind, amount in illegal_actions(state, legal):
            assert_rejected(state, seat, kind, amount)
        assert state.legal_actions() == legal

    state = play_drawn(data, table, probe)
    for seat in range(state.seat_count):  # after the end every action is refused
        for kind in (ActionKind.FOLD, ActionKind.CHECK, ActionKind.CALL):
            assert_rejected(state, seat, kind, None)
        assert_rejected(state, seat, ActionKind.RAISE, 40)
    with pytest.raises(ArenaError):
        state.legal_actions()
