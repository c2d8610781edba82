"""Strategy replies (issue 40, docs/house-rules.md §19): validation with the state unchanged,
the draw from a per-copy key, and draws that say nothing about another copy's."""

from __future__ import annotations

import math
import statistics

import pytest
from hypothesis import given
from hypothesis import strategies as st

from arena.engine.actions import Action, ActionKind
from arena.engine.errors import IllegalAction, MalformedAction, NotYourTurn
from arena.engine.games import GameCode, variant_for
from arena.engine.rules import Rules
from arena.engine.state import HandState
from arena.engine.strategy import (
    MAX_STRATEGY_ACTIONS,
    SUM_TOLERANCE,
    Strategy,
    WeightedAction,
    action_count,
    draw_index,
    draw_strategy,
    draw_uniform,
    strategy_key,
    validate_strategy,
)
from arena.match.simulate import rules_for_game

F, X, C, R = ActionKind.FOLD, ActionKind.CHECK, ActionKind.CALL, ActionKind.RAISE


def holdem(game: str = "FT", seed: int = 5) -> HandState:
    rules = rules_for_game(game, Rules())
    return HandState(variant_for(GameCode(game)), [rules.starting_stack] * 2, rules=rules, seed=seed)


def test_a_valid_strategy_is_kept_as_declared() -> None:
    state = holdem()
    legal = state.legal_actions()  # the small blind owes: fold, call, raise
    assert legal.raise_min_to is not None
    strategy = validate_strategy([(F, None, 0.2), (C, 123, 0.5), (R, legal.raise_min_to, 0.3)], legal)
    assert [e.action for e in strategy.entries] == [Action(F), Action(C), Action(R, legal.raise_min_to)]
    assert strategy.probabilities == pytest.approx((0.2, 0.5, 0.3))
    assert math.fsum(strategy.probabilities) == pytest.approx(1.0, abs=1e-15)


@pytest.mark.parametrize(("entries", "error", "words"), [
    ([], MalformedAction, "no action"),
    ([(F, None, math.nan), (C, None, 1.0)], MalformedAction, "not finite"),
    ([(F, None, math.inf), (C, None, 1.0)], MalformedAction, "not finite"),
    ([(F, None, -0.5), (C, None, 1.5)], MalformedAction, "negative"),
    ([(F, None, 0.5), (C, None, 0.4)], MalformedAction, "sum to"),
    ([(F, None, 0.5), (C, None, 0.5 + 10 * SUM_TOLERANCE)], MalformedAction, "sum to"),
    ([(F, None, 0.5), (F, None, 0.5)], MalformedAction, "twice"),
    ([(None, None, 1.0)], MalformedAction, "no action kind"),
    ([(F, None, "0.5"), (C, None, 0.5)], MalformedAction, "not a number"),
    ([(X, None, 1.0)], IllegalAction, "check is not legal"),
    ([(R, 7, 1.0)], IllegalAction, "raise to 7 is not legal"),
    ([(R, None, 1.0)], IllegalAction, "raise to None"),
    ([(F, None, 1.0 / (MAX_STRATEGY_ACTIONS + 1))] * (MAX_STRATEGY_ACTIONS + 1), MalformedAction,
     "at most"),
])
def test_malformed_strategies_are_rejected_with_the_state_unchanged(
        entries: list[tuple[ActionKind | None, int | None, float]], error: type[Exception],
        words: str) -> None:
    state = holdem()
    before = (list(state.events), list(state.bets), list(state.stacks), state.actor,
              state.legal_actions())
    actor = state.actor
    assert actor is not None
    with pytest.raises(error, match=words):
        draw_strategy(state, actor, entries, key=strategy_key(1, 0), hand_number=1)
    assert (list(state.events), list(state.bets), list(state.stacks), state.actor,
            state.legal_actions()) == before


def test_weights_within_the_tolerance_are_accepted_and_huge_counts_bounded() -> None:
    legal = holdem().legal_actions()
    validate_strategy([(F, None, 0.5), (C, None, 0.5 + SUM_TOLERANCE / 2)], legal)
    assert MAX_STRATEGY_ACTIONS == 64


def test_only_the_seat_to_act_may_declare() -> None:
    state = holdem()
    assert state.actor is not None
    with pytest.raises(NotYourTurn):
        draw_strategy(state, 1 - state.actor, [(F, None, 1.0)], key=1, hand_number=1)


def test_no_limit_strategies_list_amounts_in_the_range() -> None:
    state = holdem("NT")
    legal = state.legal_actions()
    assert legal.raise_min_to is not None and legal.raise_max_to is not None
    middle = (legal.raise_min_to + legal.raise_max_to) // 2
    strategy = validate_strategy([(C, None, 0.25), (R, legal.raise_min_to, 0.25), (R, middle, 0.25),
                                  (R, legal.raise_max_to, 0.25)], legal)
    assert len(strategy.entries) == 4
    with pytest.raises(IllegalAction, match="any amount from"):
        validate_strategy([(R, legal.raise_max_to + 1, 1.0)], legal)


def test_the_draw_is_a_pure_function_of_key_hand_and_action() -> None:
    key = strategy_key(123456789, 0)
    assert draw_uniform(key, 3, 4) == draw_uniform(key, 3, 4)
    assert len({draw_uniform(key, h, a) for h in range(1, 20) for a in range(10)}) == 190
    assert strategy_key(123456789, 0) == key
    assert strategy_key(123456789, 1) != key and strategy_key(123456788, 0) != key
    assert all(0.0 <= draw_uniform(key, h, 0) < 1.0 for h in range(1, 1000))


def test_the_drawn_actions_follow_the_declared_frequencies() -> None:
    strategy = Strategy(entries=(WeightedAction(action=Action(F), weight=0.2),
                                 WeightedAction(action=Action(X), weight=0.0),
                                 WeightedAction(action=Action(C), weight=0.5),
                                 WeightedAction(action=Action(R, 40), weight=0.3)))
    key = strategy_key(99, 0)
    draws = 20_000
    counts = [0, 0, 0, 0]
    for h in range(draws):
        counts[draw_index(strategy, draw_uniform(key, h + 1, 0))] += 1
    assert counts[1] == 0  # weight zero: never drawn
    for count, p in zip(counts, (0.2, 0.0, 0.5, 0.3), strict=True):
        assert abs(count / draws - p) <= 4 * math.sqrt(p * (1 - p) / draws) + 1e-12
    assert draw_index(strategy, 0.0) == 0 and draw_index(strategy, math.nextafter(1.0, 0.0)) == 3
    with pytest.raises(ValueError):
        draw_index(strategy, 1.0)


def test_the_draw_is_applied_through_the_engine_and_counted_per_action() -> None:
    state = holdem()
    actor = state.actor
    assert actor is not None
    legal = state.legal_actions()
    draw = draw_strategy(state, actor, [(C, None, 0.5), (R, legal.raise_min_to, 0.5)],
                         key=strategy_key(7, 0), hand_number=1)
    assert draw.action_index == action_count(state.events) == 0
    state.act(actor, draw.action.kind, draw.action.raise_to_chips)
    assert action_count(state.events) == 1
    option = draw.decision.options[draw.drawn]
    assert option.added_chips == state.events[-1].added_chips  # type: ignore[union-attr]


def test_draws_of_one_copy_say_nothing_about_another() -> None:
    """The same decisions (hand, action) in two copies of a deal set: a bot that recorded copy
    1's draws and declares in copy 2 as if they repeated gains nothing: the copies' uniform
    numbers are uncorrelated and a copied guess of "the draw is below 1/2" is right half the time."""
    seed = 2 ** 200 + 12345  # a match seed (secret until every copy has ended)
    first, second = strategy_key(seed, 0), strategy_key(seed, 1)
    positions = [(h, a) for h in range(1, 201) for a in range(20)]
    u1 = [draw_uniform(first, h, a) for h, a in positions]
    u2 = [draw_uniform(second, h, a) for h, a in positions]
    n = len(positions)
    assert abs(statistics.correlation(u1, u2)) < 4 / math.sqrt(n)
    agree = sum((a < 0.5) == (b < 0.5) for a, b in zip(u1, u2, strict=True))
    assert abs(agree / n - 0.5) < 4 * 0.5 / math.sqrt(n)


_weights = st.floats(allow_nan=True, allow_infinity=True) | st.sampled_from(
    [0.0, -0.0, 1.0, 0.5, 1e-300, 1e300, -1e-9, 1.0 + 1e-7, 1.0 - 1e-7])
_kinds = st.sampled_from([None, *ActionKind])
_amounts = st.none() | st.integers(-5, 5000) | st.sampled_from([2 ** 63, -(2 ** 63)])


@given(entries=st.lists(st.tuples(_kinds, _amounts, _weights), max_size=70),
       game=st.sampled_from(["FT", "NT", "F7S"]), seed=st.integers(0, 50), key=st.integers(0, 2 ** 256 - 1))
def test_any_declared_strategy_is_refused_cleanly_or_drawn_legally(
        entries: list[tuple[ActionKind | None, int | None, float]], game: str, seed: int,
        key: int) -> None:
    """Property: whatever a bot declares, the dealer either refuses it with an arena error and
    changes nothing, or draws an entry of positive weight that the engine then accepts."""
    state = holdem(game, seed)
    actor = state.actor
    assert actor is not None
    events = len(state.events)
    try:
        draw = draw_strategy(state, actor, entries, key=key, hand_number=1)
    except (MalformedAction, IllegalAction):
        assert len(state.events) == events and state.actor == actor
        return
    assert len(draw.strategy.entries) <= MAX_STRATEGY_ACTIONS
    assert all(math.isfinite(e.weight) and e.weight >= 0 for e in draw.strategy.entries)
    assert abs(draw.strategy.total_weight - 1.0) <= SUM_TOLERANCE
    assert draw.strategy.entries[draw.drawn].weight > 0
    state.act(actor, draw.action.kind, draw.action.raise_to_chips)  # the one legality path
    assert len(state.events) > events
