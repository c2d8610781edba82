"""Action terms of the luck adjustment (issue 40): for decisions answered by a declared strategy,
E[V over the distribution] - V after the drawn action. Exactly zero-mean over the draw, zero-sum
over the seats, none for deterministic replies; unbiased over many seeds for strategies that
depend on the cards; a bot gains nothing by what it declares."""

from __future__ import annotations

import math
import statistics
from collections.abc import Iterator

import pytest

from arena.engine.actions import ActionKind, LegalActions
from arena.engine.cards import derive_seed
from arena.engine.events import ActionTaken
from arena.engine.luck import HandLuck, LuckSettings, ValueFunction, hand_luck
from arena.engine.rules import Rules
from arena.engine.state import HandState
from arena.engine.strategy import StrategyDecision
from arena.match.simulate import rules_for_game
from arena.match.strategy_sim import Entries, SimBot, SimHand, mixed, play, strength

SETTINGS = {v: LuckSettings(value=v, samples=120, exact_limit=200) for v in ValueFunction}
PROJECTED = SETTINGS[ValueFunction.PROJECTED_POT_EQUITY]


def luck(hand: SimHand, seed: int, settings: LuckSettings = PROJECTED, *,
         decisions: dict[int, StrategyDecision] | None = None) -> HandLuck:
    state = hand.state
    return hand_luck(state.variant, state.events, state.seat_count,
                     hand_seed=derive_seed(seed, "hand", hand.hand_number - 1), settings=settings,
                     small_bet_chips=state.stakes.small_bet, big_bet_chips=state.stakes.big_bet,
                     decisions=hand.decisions if decisions is None else decisions)


def hands(bots: list[SimBot], *, game: str = "FT", seeds: range,
          per_seed: int) -> Iterator[tuple[int, SimHand]]:
    rules = rules_for_game(game, Rules())
    for seed in seeds:
        for hand in play(bots, rules=rules, game=game, hands=per_seed, seed=seed):
            yield seed, hand


@pytest.mark.parametrize("value", list(ValueFunction))
def test_terms_sum_to_zero_over_the_seats_one_per_strategy_decision(value: ValueFunction) -> None:
    checked = 0
    for seed, hand in hands([SimBot(strategy=mixed(0.8)), SimBot(strategy=mixed(0.4))],
                            seeds=range(3), per_seed=20):
        result = luck(hand, seed, SETTINGS[value])
        assert [t.action_index for t in result.action_terms] == sorted(hand.decisions)
        for term in result.action_terms:
            assert sum(term.luck_chips) == pytest.approx(0.0, abs=1e-9)
            assert term.seat == hand.decisions[term.action_index].seat
            checked += 1
        assert result.luck_chips == pytest.approx(tuple(
            sum(t.luck_chips[s] for t in (*result.terms, *result.action_terms)) for s in range(2)))
    assert checked > 50


@pytest.mark.parametrize("seats", [2, 3])
@pytest.mark.parametrize("value", list(ValueFunction))
def test_the_expectation_over_every_possible_draw_is_exactly_zero(value: ValueFunction,
                                                                  seats: int) -> None:
    """Each decision valued as if each entry had been drawn (the term is fixed before the
    action's chips go in, so the hand up to it, then the pretended action, is enough): the
    terms weighted by the declared probabilities add up to zero for every seat."""
    checked = folds = 0
    bots = [SimBot(strategy=mixed(0.8)), SimBot(strategy=mixed(0.4)), SimBot(strategy=mixed(0.6))]
    for seed, hand in hands(bots[:seats], seeds=range(2), per_seed=15):
        events = hand.state.events
        taken = [k for k, e in enumerate(events) if isinstance(e, ActionTaken)]
        for index, decision in hand.decisions.items():
            total = [0.0] * seats
            folds += any(o.is_fold and o.probability > 0 for o in decision.options)
            for k, option in enumerate(decision.options):
                pretended = ActionTaken(decision.seat, 0, ActionKind.FOLD if option.is_fold
                                        else ActionKind.CALL, 0, option.added_chips, option.is_all_in)
                result = hand_luck(hand.state.variant, [*events[:taken[index]], pretended], seats,
                                   hand_seed=derive_seed(seed, "hand", hand.hand_number - 1),
                                   settings=SETTINGS[value], small_bet_chips=20, big_bet_chips=40,
                                   decisions={index: StrategyDecision(
                                       seat=decision.seat, options=decision.options, drawn=k)})
                for s in range(seats):
                    total[s] += option.probability * result.action_terms[-1].luck_chips[s]
                assert sum(result.action_terms[-1].luck_chips) == pytest.approx(0.0, abs=1e-9)
            assert total == pytest.approx([0.0] * seats, abs=1e-9)
            checked += 1
    assert checked > 20 and folds > 5


def _adjusted(bots: list[SimBot], *, seeds: range, per_seed: int, game: str = "FT",
              ) -> tuple[list[float], list[float], list[float]]:
    """Bot 0's raw result, its action terms and its total luck, in small bets per hand."""
    raw: list[float] = []
    action: list[float] = []
    total: list[float] = []
    for seed, hand in hands(bots, game=game, seeds=seeds, per_seed=per_seed):
        assert hand.state.result is not None
        seat = hand.order.index(0)
        result = luck(hand, seed)
        small = hand.state.stakes.small_bet
        raw.append(hand.state.result.net_chips[seat] / small)
        action.append(sum(t.luck_chips[seat] for t in result.action_terms) / small)
        total.append(result.luck_chips[seat] / small)
    return raw, action, total


def _within(values: list[float], sigmas: float = 3.0) -> bool:
    mean = statistics.fmean(values)
    return abs(mean) <= sigmas * statistics.stdev(values) / math.sqrt(len(values))


@pytest.mark.parametrize("game", ["FT", "NT"])
def test_luck_adjusted_mean_equals_raw_mean_for_card_dependent_strategies(game: str) -> None:
    """A strong and a weak strategy, both declared and depending on their cards: over 720
    hands of 24 seeds the adjusted mean is the raw mean within its standard error (the luck,
    chance and action terms, averages to zero), and the adjustment removes variance."""
    raw, action, total = _adjusted([SimBot(strategy=mixed(0.9)), SimBot(strategy=mixed(0.3))],
                                   seeds=range(24), per_seed=30, game=game)
    assert _within(action) and _within(total)
    adjusted = [r - t for r, t in zip(raw, total, strict=True)]
    assert statistics.stdev(adjusted) < 0.75 * statistics.stdev(raw)


def test_a_bot_declaring_degenerate_distributions_has_no_action_terms() -> None:
    def pure(state: HandState, seat: int, legal: LegalActions) -> Entries:
        entries = mixed(0.5)(state, seat, legal)
        best = max(entries, key=lambda e: e[2])
        return [(best[0], best[1], 1.0)]

    for seed, hand in hands([SimBot(strategy=pure), SimBot(strategy=mixed(0.5))],
                            seeds=range(3), per_seed=20):
        result = luck(hand, seed)
        for term in result.action_terms:
            if hand.decisions[term.action_index].seat == hand.order.index(0):
                assert term.luck_chips == pytest.approx((0.0, 0.0), abs=1e-9)


def test_a_bot_declaring_extreme_distributions_gains_nothing_in_expectation() -> None:
    """Declaring 99.9% / 0.1% (rarely drawn, hugely weighted terms): its action terms still
    average to zero, so its adjusted score is its raw score in expectation."""
    def extreme(state: HandState, seat: int, legal: LegalActions) -> Entries:
        s = strength(state, seat)
        kinds = [k for k in legal.kinds() if k is not ActionKind.RAISE] + (
            [ActionKind.RAISE] if legal.raise_min_to is not None else [])
        strong = kinds[-1] if s > 0.6 else kinds[0]
        rare = 0.001 / (len(kinds) - 1) if len(kinds) > 1 else 0.0
        return [(k, legal.raise_min_to if k is ActionKind.RAISE else None,
                 1.0 - 0.001 if k is strong or len(kinds) == 1 else rare) for k in kinds]

    _raw, action, total = _adjusted([SimBot(strategy=extreme), SimBot(strategy=mixed(0.5))],
                                   seeds=range(30), per_seed=30)
    assert _within(action) and _within(total)


def test_deterministic_replies_keep_todays_luck() -> None:
    for seed, hand in hands([SimBot(strategy=mixed(0.8), declares=False),
                             SimBot(strategy=mixed(0.4), declares=False)], seeds=range(2), per_seed=20):
        assert hand.decisions == {}
        with_none = luck(hand, seed)
        assert with_none.action_terms == ()
        assert with_none.luck_chips == pytest.approx(tuple(
            sum(t.luck_chips[s] for t in with_none.terms) for s in range(2)))


def test_a_decision_that_does_not_match_its_action_is_an_error() -> None:
    for seed, hand in hands([SimBot(strategy=mixed(0.8)), SimBot(strategy=mixed(0.4))],
                            seeds=range(1), per_seed=10):
        for index, decision in hand.decisions.items():
            others = [k for k, o in enumerate(decision.options)
                      if o != decision.options[decision.drawn]]
            if not others:
                continue
            wrong = StrategyDecision(seat=decision.seat, options=decision.options, drawn=others[0])
            with pytest.raises(ValueError, match="not the action taken"):
                luck(hand, seed, decisions={**hand.decisions, index: wrong})
            wrong_seat = StrategyDecision(seat=1 - decision.seat, options=decision.options,
                                          drawn=decision.drawn)
            with pytest.raises(ValueError, match="strategy of seat"):
                luck(hand, seed, decisions={**hand.decisions, index: wrong_seat})
            return
    pytest.fail("no decision with two different options")


@pytest.mark.slow
@pytest.mark.parametrize("game", ["FT", "NT", "FR"])
def test_unbiased_over_many_seeds(game: str) -> None:
    """Opt-in soak: 4000 hands of 200 seeds per game, each mean at 99.9%."""
    _raw, action, total = _adjusted([SimBot(strategy=mixed(0.9)), SimBot(strategy=mixed(0.3))],
                                    seeds=range(200), per_seed=20, game=game)
    assert _within(action, 3.29) and _within(total, 3.29)
