"""Shared test helpers for hands: scripted play (``play``, ``passive``), the whole-state
``snapshot`` and ``assert_rejected``, and hypothesis strategies for random games, tables,
rules keys and actions (``tables``, ``choices``, ``play_drawn``)."""

from __future__ import annotations

import copy
from collections.abc import Callable, Sequence
from typing import Any

import pytest
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st

from arena.engine.actions import ActionKind, LegalActions
from arena.engine.errors import ArenaError
from arena.engine.games import Betting, EngineGame, GameCode, variant_for
from arena.engine.rules import Rules
from arena.engine.state import HandState

GAMES = [code.value for code in GameCode]
# The games only the engine deals so far (docs/games.md; not yet on the wire or in logs).
ENGINE_GAMES = [*GAMES, *(code.value for code in EngineGame)]

# Whole hands per example; the deadline and the search come from the profile (tests/conftest.py).
SETTINGS = settings(
    max_examples=100,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)


@st.composite
def tables(draw: st.DrawFn, games: Sequence[str] = GAMES) -> tuple[str, list[int], Rules, int]:
    """A game, 2 seats to its most (docs/house-rules.md §2, docs/house-rules.md §20), stacks from one
    chip to deep, rules keys, a seed."""
    code = draw(st.sampled_from(games))
    n = draw(st.integers(2, variant_for(code).max_seats))
    stack = st.one_of(st.integers(1, 12), st.integers(13, 200), st.integers(200, 3000))
    stacks = draw(st.lists(stack, min_size=n, max_size=n))
    rules = Rules.from_mapping({
        "max_raises": draw(st.integers(0, 4)),
        "uncapped_heads_up": draw(st.booleans()),
        "stud_open_pair_big_bet": draw(st.booleans()),
        "stud_tie_break": draw(st.sampled_from(["suit", "seat"])),
        "burn_before_hole_cards": draw(st.booleans()),
    })
    seed = draw(st.integers(0, 2**32))
    return code, stacks, rules, seed


def choices(legal: LegalActions) -> list[tuple[ActionKind, int | None]]:
    """Every legal (kind, raise_to) of a decision; raises at each allowed amount."""
    out: list[tuple[ActionKind, int | None]] = [(kind, None) for kind in legal.kinds()
                                                 if kind is not ActionKind.RAISE]
    out += [(ActionKind.RAISE, amount) for amount in legal.raise_amounts()]
    return out


def action_bound(state: HandState) -> int:
    """Most actions a hand can take: per street, raises are capped (or, uncapped, limited by
    the chips: each full raise adds a small bet at least, each short one goes all in), and
    between two raises every seat acts at most once."""
    n = state.seat_count
    chips = sum(state.starting_stacks)
    raises = min(state.rules.max_raises + 1, chips // state.stakes.small_bet + 1) + n
    if state.rules.uncapped_heads_up or state.variant.betting is not Betting.FIXED:
        raises = chips // state.stakes.small_bet + 1 + n
    exchanges = sum(n for street in state.variant.streets if street.exchange_max_cards)
    return len(state.variant.streets) * (raises + 1) * (n + 1) + exchanges


def play_drawn(data: st.DataObject, table: tuple[str, list[int], Rules, int],
         on_decision: Callable[[HandState, LegalActions], None] | None = None, *,
         state: HandState | None = None) -> HandState:
    """Play one hand of ``table`` (or ``state``, dealt from it) with drawn actions, checking
    the chip invariants after every step."""
    code, stacks, rules, seed = table
    if state is None:
        state = HandState(variant_for(code), stacks, rules=rules, seed=seed)
    bound = action_bound(state)
    steps = 0
    check_chips(state)
    while not state.is_over:
        legal = state.legal_actions()
        if on_decision is not None:
            on_decision(state, legal)
        if legal.can_exchange:  # docs/house-rules.md §21: give away any of the seat's cards
            discards = data.draw(st.lists(st.sampled_from(legal.exchangeable), unique=True,
                                          max_size=legal.exchange_max_cards), label="exchange")
            state.exchange(legal.seat, discards)
        else:
            kind, amount = data.draw(st.sampled_from(choices(legal)), label="action")
            state.act(legal.seat, kind, amount)
        steps += 1
        assert steps <= bound, f"{steps} actions and the hand is not over (bound {bound})"
        check_chips(state)
    assert state.actor is None
    assert state.result is not None
    return state


def check_chips(state: HandState) -> None:
    assert all(s >= 0 for s in state.stacks), state.stacks
    assert all(b >= 0 for b in state.bets), state.bets
    assert all(c >= 0 for c in state.committed), state.committed
    if not state.is_over:
        for seat in range(state.seat_count):
            assert state.stacks[seat] + state.committed[seat] == state.starting_stacks[seat]
            assert state.bets[seat] <= state.committed[seat]


# --------------------------------------------------------------------------- scripted hands

Move = tuple[int, ActionKind] | tuple[int, ActionKind, int]


def play(state: HandState, *moves: Move) -> None:
    """Apply (seat, kind[, raise_to]) moves, asserting each seat is the one to act."""
    for move in moves:
        seat, kind = move[0], move[1]
        assert state.actor == seat, f"expected seat {seat} to act, actor is {state.actor}"
        state.act(seat, kind, move[2] if len(move) == 3 else None)


def passive(state: HandState) -> None:
    """Post the bring-in, call or check to the end of the hand."""
    while not state.is_over:
        state.check_or_call()


def _frozen(value: Any) -> Any:
    if isinstance(value, list | tuple):
        return tuple(_frozen(v) for v in value)
    if isinstance(value, dict | set):  # pragma: no cover - none today, deep-copied if added
        return copy.deepcopy(value)
    return value  # ints, bools, None, strings and frozen dataclasses (events, rules, variant)


def snapshot(state: HandState) -> tuple[dict[str, Any], int]:
    """Everything the hand holds (its card source only by size: it holds an RNG), with the
    legal actions of the seat to act computed first so that a cache cannot differ."""
    if state.actor is not None:
        state.legal_actions()
    names = [n for cls in type(state).__mro__ for n in getattr(cls, "__slots__", ())]
    values = {k: _frozen(getattr(state, k)) for k in names if k != "source"}
    return values, len(state.source)


def assert_rejected(state: HandState, seat: int, kind: ActionKind, amount: int | None = None,
                    *, error: type[Exception] = ArenaError, match: str | None = None) -> None:
    """The action raises ``error`` (with a message matching ``match``) and changes nothing."""
    before = snapshot(state)
    with pytest.raises(error, match=match):
        state.act(seat, kind, amount)
    assert snapshot(state) == before, f"{kind} {amount} by seat {seat} changed the state"
