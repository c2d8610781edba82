"""Luck adjustment on the SDK's example bots of different strength (played in-process with the
dealer's real decision requests): raw and luck-adjusted means agree within their intervals,
and the adjusted results spread less."""

from __future__ import annotations

import math
import statistics

import pytest

from arena.engine.luck import LuckSettings, hand_luck
from bench.selfplay import iter_duplicate

pytestmark = pytest.mark.no_dealer  # never runs the dealer: not in the fast-paths-off pass

HORSE = ("FT", "FO/8", "FR", "F7S", "F7S/8")


def _results(deals: int, seed: int) -> tuple[list[float], list[float]]:
    raw: list[float] = []
    adjusted: list[float] = []
    settings = LuckSettings(samples=150, exact_limit=300)
    for played in iter_duplicate(["rules", "call"], games=HORSE, deals=deals, seed=seed):
        state = played.state
        assert state.result is not None
        seat = played.bots.index("rules0")
        luck = hand_luck(state.variant, state.events, 2, hand_seed=played.hand_seed, settings=settings,
                         small_bet_chips=20, big_bet_chips=40).luck_chips[seat]
        net = state.result.net_chips[seat]
        raw.append(net / 20)
        adjusted.append((net - luck) / 20)
    return raw, adjusted


def _check(raw: list[float], adjusted: list[float]) -> None:
    se_raw = statistics.stdev(raw) / math.sqrt(len(raw))
    se_adjusted = statistics.stdev(adjusted) / math.sqrt(len(adjusted))
    difference = statistics.fmean(raw) - statistics.fmean(adjusted)
    assert abs(difference) < 2.58 * math.hypot(se_raw, se_adjusted)
    assert statistics.fmean(adjusted) > 0  # the rules bot is the stronger one
    assert statistics.stdev(adjusted) < statistics.stdev(raw)


def test_rules_against_calling_station_raw_and_adjusted_agree() -> None:
    _check(*_results(100, 5))


@pytest.mark.slow
def test_rules_against_calling_station_over_many_hands() -> None:
    _check(*_results(3000, 6))
