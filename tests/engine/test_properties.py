"""Property tests of the hand engine over random games, tables, stacks, rules and actions.

Invariants (RULES.md section in brackets):

* chips are conserved: while a hand runs every seat's stack plus what it committed equals its
  starting stack; at the end the final stacks add up to the starting stacks and the awards to
  what was committed [§3, §4 side pots, §5 "stacks change only through pots"];
* stacks, bets and commitments never go negative [§3 all-in];
* every hand ends within a bound on the number of actions derived from the caps and stacks
  [§3: one bet and at most three raises, unlimited heads-up only up to the stacks];
* an illegal action (wrong seat, wrong kind, wrong amount, malformed, after the end) raises
  and changes nothing at all [§5 "It never changes the state"];
* a seat's view and its event stream never show a card the seat has not been shown: its own
  cards, every up card, the board and hands shown at showdown are visible, everything else
  is HIDDEN (-1) or absent [§8].
"""

from __future__ import annotations

import copy
import dataclasses
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from arena.engine.actions import ActionKind, LegalActions
from arena.engine.errors import ArenaError
from arena.engine.events import HandShown
from arena.engine.games import GameCode, variant_for
from arena.engine.rules import Rules
from arena.engine.state import HandState
from arena.engine.view import HIDDEN, events_for_seat, seat_view

GAMES = [code.value for code in GameCode]

SETTINGS = settings(
    max_examples=100,
    deadline=None,
    derandomize=True,  # deterministic in CI; raise max_examples locally to search harder
    database=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)


@st.composite
def tables(draw: st.DrawFn) -> tuple[str, list[int], Rules, int]:
    """A game, 2-8 seats (RULES.md §2), stacks from one chip to deep, rules keys, a seed."""
    code = draw(st.sampled_from(GAMES))
    n = draw(st.integers(2, 8))
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
    if state.rules.uncapped_heads_up:
        raises = chips // state.stakes.small_bet + 1 + n
    return len(state.variant.streets) * (raises + 1) * (n + 1)


def play(data: st.DataObject, table: tuple[str, list[int], Rules, int],
         on_decision: Callable[[HandState, LegalActions], None] | None = None) -> HandState:
    """Play one hand with drawn actions, checking the chip invariants after every step."""
    code, stacks, rules, seed = table
    state = HandState(variant_for(code), stacks, rules=rules, seed=seed)
    bound = action_bound(state)
    steps = 0
    check_chips(state)
    while not state.is_over:
        legal = state.legal_actions()
        if on_decision is not None:
            on_decision(state, legal)
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


@given(data=st.data(), table=tables())
@settings(SETTINGS, max_examples=400)
def test_chips_are_conserved_and_hands_end(data: st.DataObject,
                                           table: tuple[str, list[int], Rules, int]) -> None:
    """RULES.md §3-§5: no chip appears or disappears; every hand ends in bounded actions."""
    state = play(data, table)
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


def _frozen(value: Any) -> Any:
    if isinstance(value, list | tuple):
        return tuple(_frozen(v) for v in value)
    if isinstance(value, dict | set):  # pragma: no cover - none today, deep-copied if added
        return copy.deepcopy(value)
    return value  # ints, bools, None, strings and frozen dataclasses (events, rules, variant)


def snapshot(state: HandState) -> tuple[dict[str, Any], int]:
    """Everything the hand holds (its card source only by size: it holds an RNG)."""
    values = {k: _frozen(v) for k, v in vars(state).items() if k != "source"}
    return values, len(state.source)


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
        if legal.raise_max_to - legal.raise_min_to > 1:
            yield seat, ActionKind.RAISE, legal.raise_min_to + 1  # fixed limit: two amounts only
    yield state.seat_count, ActionKind.CHECK, None  # no such seat
    yield -1, ActionKind.FOLD, None


def assert_rejected(state: HandState, seat: int, kind: ActionKind, amount: int | None) -> None:
    before = snapshot(state)
    with pytest.raises(ArenaError):
        state.act(seat, kind, amount)
    assert snapshot(state) == before, f"{kind} {amount} by seat {seat} changed the state"


@given(data=st.data(), table=tables())
@SETTINGS
def test_illegal_actions_raise_and_change_nothing(
        data: st.DataObject, table: tuple[str, list[int], Rules, int]) -> None:
    """RULES.md §5: an invalid action is rejected with an error and never changes the state."""

    def probe(state: HandState, legal: LegalActions) -> None:
        for seat, kind, amount in illegal_actions(state, legal):
            assert_rejected(state, seat, kind, amount)
        assert state.legal_actions() == legal

    state = play(data, table, probe)
    for seat in range(state.seat_count):  # after the end every action is refused
        for kind in (ActionKind.FOLD, ActionKind.CHECK, ActionKind.CALL):
            assert_rejected(state, seat, kind, None)
        assert_rejected(state, seat, ActionKind.RAISE, 40)
    with pytest.raises(ArenaError):
        state.legal_actions()


# --------------------------------------------------------------------------- information hiding


def _card_fields(value: Any, path: str = "") -> Iterator[tuple[str, int]]:
    """Every card in a view or event: ints inside fields named like cards or the board."""
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        for f in dataclasses.fields(value):
            inner = getattr(value, f.name)
            name = f.name.lower()
            if ("card" in name or name == "board") and not name.endswith("_count"):
                if isinstance(inner, int) and not isinstance(inner, bool):
                    yield f"{path}.{f.name}", inner
                elif isinstance(inner, tuple | list):
                    for i, card in enumerate(inner):
                        assert isinstance(card, int), (path, f.name, card)
                        yield f"{path}.{f.name}[{i}]", card
            else:
                yield from _card_fields(inner, f"{path}.{f.name}")
    elif isinstance(value, tuple | list):
        for i, item in enumerate(value):
            yield from _card_fields(item, f"{path}[{i}]")


def visible_cards(state: HandState, seat: int) -> set[int]:
    """What ``seat`` has been shown (RULES.md §8)."""
    seen = set(state.cards[seat]) | set(state.board)
    for other in range(state.seat_count):
        seen |= set(state.up_cards(other))
    for event in state.events:
        if isinstance(event, HandShown):
            seen |= set(event.cards)
    return seen


def check_views(state: HandState) -> None:
    for seat in range(state.seat_count):
        allowed = visible_cards(state, seat) | {HIDDEN}
        view = seat_view(state, seat)
        for where, card in _card_fields(view, "view"):
            assert card in allowed, f"seat {seat} sees {card} at {where}"
        assert view.hole_cards == tuple(state.cards[seat])
        events = events_for_seat(state, seat)
        assert len(events) == len(state.events)
        for where, card in _card_fields(events, "events"):
            assert card in allowed, f"seat {seat} sees {card} at {where}"
        if state.actor == seat:
            assert view.legal == state.legal_actions()
        else:
            assert view.legal is None


@given(data=st.data(), table=tables())
@SETTINGS
def test_views_never_show_unseen_cards(data: st.DataObject,
                                       table: tuple[str, list[int], Rules, int]) -> None:
    """RULES.md §8: no seat's view or event stream holds a card it was not shown."""
    state = play(data, table, lambda s, _legal: check_views(s))
    check_views(state)  # after the showdown, shown hands are visible, folded ones are not


def test_view_of_other_hole_cards_is_hidden() -> None:
    """RULES.md §8, concretely: hold'em hole cards of other seats are HIDDEN in events."""
    state = HandState(variant_for("FT"), [1000] * 3, seed=5)
    for seat in range(3):
        for event in events_for_seat(state, seat):
            cards = getattr(event, "cards", None)
            if cards is None or getattr(event, "seat", None) is None:
                continue
            if event.seat == seat:
                assert HIDDEN not in cards
            else:
                assert set(cards) == {HIDDEN}
