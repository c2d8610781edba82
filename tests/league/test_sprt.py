"""The sequential test: its error rates on simulated results with a known true difference, its
log-likelihood ratio against the direct formula, and bad bounds."""

from __future__ import annotations

import math
import random
import statistics

import pytest

from arena.league.sprt import MIN_OBSERVATIONS, Decision, Sprt, SprtBounds

pytestmark = pytest.mark.no_dealer  # never runs the dealer: not in the fast-paths-off pass


def _error_rate(true_mean: float, runs: int, seed: int, bounds: SprtBounds) -> tuple[float, float]:
    rng = random.Random(seed)
    wrong = 0
    lengths = []
    wrong_side = Decision.HIGH if true_mean <= bounds.low_mbb else Decision.LOW
    for _ in range(runs):
        test = Sprt(bounds)
        while test.add(rng.gauss(true_mean, 1000.0)) is None:
            pass
        wrong += test.decision is wrong_side
        lengths.append(test.count)
    return wrong / runs, statistics.fmean(lengths)


@pytest.mark.parametrize(("alpha", "beta"), [(0.05, 0.05), (0.1, 0.2)])
def test_error_rates_match_alpha_and_beta(alpha: float, beta: float) -> None:
    """With the true mean at LOW, HIGH is accepted with probability alpha; at HIGH, LOW with
    probability beta (within 3 standard errors of 600 simulated tests)."""
    bounds = SprtBounds(0.0, 200.0, alpha, beta)
    runs = 600
    for true_mean, rate in ((0.0, alpha), (200.0, beta)):
        observed, mean_length = _error_rate(true_mean, runs, 7, bounds)
        assert abs(observed - rate) < 3 * math.sqrt(rate * (1 - rate) / runs), (true_mean, observed)
        assert mean_length > MIN_OBSERVATIONS
    # Far from both bounds the test is right nearly always, and quickly.
    observed, mean_length = _error_rate(-300.0, 200, 8, bounds)
    assert observed < 0.01 and mean_length < 60


def test_llr_is_the_normal_log_likelihood_ratio() -> None:
    rng = random.Random(3)
    values = [rng.gauss(50, 300) for _ in range(40)]
    test = Sprt(SprtBounds(-20.0, 80.0))
    for v in values[:5]:
        test.add(v)
    variance = statistics.variance(values[:5])
    direct = sum(((v + 20.0) ** 2 - (v - 80.0) ** 2) / (2 * variance) for v in values[:5])
    assert test.llr == pytest.approx(direct)
    assert test.decision is None  # never before MIN_OBSERVATIONS
    assert "LLR" in test.status()


def test_decision_sticks_and_bad_input_is_refused() -> None:
    test = Sprt(SprtBounds(0.0, 100.0))
    for _ in range(MIN_OBSERVATIONS):
        test.add(1000.0)
        test.add(1100.0)
    assert test.decision is Decision.HIGH
    assert test.add(-5000.0) is Decision.HIGH
    with pytest.raises(ValueError):
        test.add(float("nan"))
    for text in ("1", "a,b", "5,1", "0,inf", "1,2,3"):
        with pytest.raises(ValueError):
            SprtBounds.parse(text)
    for alpha in (0.0, 0.5, float("nan")):
        with pytest.raises(ValueError):
            SprtBounds(0.0, 1.0, alpha=alpha)
    assert SprtBounds.parse("-10,25.5", alpha=0.01) == SprtBounds(-10.0, 25.5, 0.01, 0.05)
