"""Chance-only AIVAT terms: zero-mean per chance event for every game, zero-sum per event,
seeded (a replay of the log recomputes them), unbiased luck-adjusted results.

The chance model is docs/house-rules.md §1 (one shuffled deck; folded hands are dead) and the pot shares
docs/house-rules.md §5, through `arena.engine.equity`.
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Iterator

import pytest

from arena.engine.actions import ActionKind
from arena.engine.equity import equity
from arena.engine.events import ActionTaken, BoardDealt, HoleCardsDealt
from arena.engine.games import HORSE, variant_for
from arena.engine.luck import (
    ChanceTerm,
    LuckSettings,
    ValueFunction,
    chance_seed,
    hand_luck,
)
from arena.engine.phh import dumps_hand, hand_fields, iter_replays, loads
from arena.engine.rules import Rules
from arena.engine.state import HandState
from arena.match.simulate import iter_hands, rules_for_game

FAST = LuckSettings(value=ValueFunction.POT_EQUITY, samples=120, exact_limit=200)


def _hands(game: str, *, players: int, hands: int, seed: int, policy: str = "random",
           ) -> Iterator[tuple[HandState, int]]:
    rules = rules_for_game(game, Rules())
    for state, _order, index in iter_hands(rules=rules, players=players, hands=hands, seed=seed,
                                           policy=policy):
        yield state, index


def _luck(state: HandState, hand_seed: int, settings: LuckSettings = FAST) -> tuple[ChanceTerm, ...]:
    return hand_luck(state.variant, state.events, state.seat_count, hand_seed=hand_seed,
                     settings=settings, small_bet_chips=state.stakes.small_bet,
                     big_bet_chips=state.stakes.big_bet).terms


@pytest.mark.parametrize("game", HORSE)
def test_the_last_chance_event_has_zero_mean_over_every_outcome(game: str) -> None:
    """Exactly: before the last card(s) the equity is the average of the equities after every
    possible outcome, so the term averages to zero over all of them (docs/house-rules.md §1 deck)."""
    checked = 0
    for state, _index in _hands(game, players=2, hands=60, seed=3, policy="call"):
        hole = [list(c) for c in state.cards]
        board = list(state.board)
        variant = state.variant
        # Take the last card away from each seat (stud) or the river from the board (flop games).
        if variant.is_stud:
            if len(state.board):
                continue  # a common card: not in heads-up play
            before_hands = [h[:-1] for h in hole]
            missing = 2
        else:
            before_hands, board, missing = hole, board[:-1], 1
        before = equity(game, before_hands, board=board, exact_limit=10**6)
        assert before.is_exact
        used = {c for h in before_hands for c in h} | set(board)
        stub = [c for c in range(52) if c not in used]
        total = [0.0, 0.0]
        count = 0
        if missing == 1:
            for card in stub:
                after = equity(game, before_hands, board=[*board, card])
                total = [t + a for t, a in zip(total, after.totals, strict=True)]
                count += 1
        else:
            for a in stub:
                for b in stub:
                    if a != b:
                        after = equity(game, [before_hands[0] + [a], before_hands[1] + [b]])
                        total = [t + x for t, x in zip(total, after.totals, strict=True)]
                        count += 1
        assert [t / count for t in total] == pytest.approx(before.totals, abs=1e-9)
        checked += 1
        if checked == 2:
            break
    assert checked == 2


@pytest.mark.parametrize("game", HORSE)
def test_terms_are_zero_mean_per_chance_event_on_simulated_hands(game: str) -> None:
    """Over simulated hands each chance event's term of seat 0 averages to 0 within its CI,
    while the raw result's event-by-event equity changes are real (non-zero) luck."""
    by_event: dict[int, list[float]] = {}
    for state, index in _hands(game, players=3, hands=100 if game == "FO/8" else 150, seed=11):
        for k, term in enumerate(_luck(state, index)):
            by_event.setdefault(k, []).append(term.luck_chips[0] / state.stakes.small_bet)
    assert len(by_event) >= 2
    for k, values in by_event.items():
        if len(values) < 30:
            continue
        mean = statistics.fmean(values)
        se = statistics.stdev(values) / math.sqrt(len(values))
        assert se > 0, (game, k)
        assert abs(mean) < 4.5 * se, (game, k, mean, se)


def test_terms_sum_to_zero_over_the_seats_and_follow_the_events() -> None:
    for state, index in _hands("FO/8", players=4, hands=20, seed=2):
        terms = _luck(state, index)
        chance_events = sum(1 for e in state.events if isinstance(e, BoardDealt))
        chance_events += len({e.street for e in state.events if isinstance(e, HoleCardsDealt)})
        assert len(terms) == chance_events
        for term in terms:
            assert sum(term.luck_chips) == pytest.approx(0.0, abs=1e-6)
            assert sum(term.after) == pytest.approx(1.0)
        assert terms[0].before == pytest.approx([0.25] * 4)  # nothing dealt: all alike


def test_folded_seats_have_no_luck_after_folding() -> None:
    checked = 0
    for state, index in _hands("FT", players=6, hands=30, seed=4):
        terms = _luck(state, index)
        folded_on = {e.seat: e.street for e in state.events
                     if isinstance(e, ActionTaken) and e.kind is ActionKind.FOLD}
        for seat, street in folded_on.items():
            for term in terms:
                if term.street > street:
                    assert term.luck_chips[seat] == 0.0 and term.after[seat] == 0.0
                    checked += 1
    assert checked > 10


def test_seeded_and_recomputed_from_the_phh_log() -> None:
    """A replay of the hand history gives the same events, hence the same luck values; another
    seed gives other Monte Carlo values."""
    rules = rules_for_game("horse", Rules())
    differs = 0
    for state, _order, index in iter_hands(rules=rules, players=3, hands=10, seed=9, policy="random"):
        live = _luck(state, chance_seed(5, index))
        text = dumps_hand(hand_fields(state))
        [(_hand, replayed, error)] = list(iter_replays(loads(text), rules))
        assert error is None and replayed is not None
        assert _luck(replayed, chance_seed(5, index)) == live
        other = _luck(state, chance_seed(6, index))
        differs += [t.luck_chips for t in other] != [t.luck_chips for t in live]
    assert differs > 0


def test_projected_weight_adds_the_bets_to_come() -> None:
    state, index = next(_hands("FT", players=2, hands=1, seed=1, policy="call"))
    plain = _luck(state, index)
    projected = _luck(state, index, LuckSettings(ValueFunction.PROJECTED_POT_EQUITY, 120, 200))
    # Pre-flop: two players, one small bet pre-flop and flop, one big bet turn and river each.
    assert projected[0].weight_chips == plain[0].weight_chips + 2 * (20 + 20 + 40 + 40)
    assert projected[-1].weight_chips == plain[-1].weight_chips + 2 * 40


def test_bad_settings_and_events_are_value_errors() -> None:
    with pytest.raises(ValueError, match="samples"):
        LuckSettings(samples=0)
    with pytest.raises(ValueError, match="value function"):
        LuckSettings(value="pot")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="seats"):
        hand_luck(variant_for("FT"), [], 1, hand_seed=0)
    bad = [HoleCardsDealt(7, 0, (1, 2), (False, False))]
    with pytest.raises(ValueError, match="seat 7"):
        hand_luck(variant_for("FT"), bad, 2, hand_seed=0)


def _adjusted_means(policy: str, game: str, hands: int, seed: int) -> tuple[list[float], list[float]]:
    """Player 0's raw and luck-adjusted results in small bets; the button alternates."""
    raw: list[float] = []
    adjusted: list[float] = []
    rules = rules_for_game(game, Rules())
    for state, order, index in iter_hands(rules=rules, players=2, hands=hands, seed=seed,
                                          policy=policy):
        assert state.result is not None
        seat = order.index(0)
        net = state.result.net_chips[seat]
        luck = hand_luck(state.variant, state.events, 2, hand_seed=index, settings=FAST,
                         small_bet_chips=20, big_bet_chips=40).luck_chips[seat]
        raw.append(net / 20)
        adjusted.append((net - luck) / 20)
    return raw, adjusted


@pytest.mark.parametrize("policy", ["call", "random"])
def test_equal_bots_have_a_luck_adjusted_mean_near_zero(policy: str) -> None:
    """Identical bots (never-fold, and random) in heads-up hold'em: the 99% CI covers 0, and
    the adjustment shrinks the spread where the result follows the cards (never-fold)."""
    raw, adjusted = _adjusted_means(policy, "FT", 400, 21)
    mean = statistics.fmean(adjusted)
    half = 2.58 * statistics.stdev(adjusted) / math.sqrt(len(adjusted))
    assert abs(mean) <= half + 1e-9
    if policy == "call":
        assert statistics.stdev(adjusted) < 0.5 * statistics.stdev(raw)


@pytest.mark.slow
@pytest.mark.parametrize("game", HORSE)
def test_equal_bots_unbiased_over_many_hands(game: str) -> None:
    """Ten intervals in all (raw and adjusted, five games): each at 99.9%."""
    raw, adjusted = _adjusted_means("random", game, 4000, 31)
    for values in (raw, adjusted):
        mean = statistics.fmean(values)
        half = 3.29 * statistics.stdev(values) / math.sqrt(len(values))
        assert abs(mean) <= half
