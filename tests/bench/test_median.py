"""bench.median: the distribution-free interval of a median of benchmark rounds."""

from __future__ import annotations

import random

import pytest

from bench.median import coverage, median_interval


def test_the_coverage_of_the_extremes_is_one_minus_two_halves_to_the_n() -> None:
    assert coverage(5, 1) == pytest.approx(1 - 2 / 32)  # 93.75%: min to max of five
    assert coverage(10, 2) == pytest.approx(1 - 2 * 11 / 1024)
    assert coverage(10, 3) == pytest.approx(1 - 2 * 56 / 1024)  # 89.1%: under 90%


def test_the_narrowest_interval_with_enough_coverage_is_chosen() -> None:
    rounds = [0.72, 0.77, 0.80, 0.83, 0.89, 0.89, 0.91, 0.96, 0.97, 0.99]
    low, high, covered = median_interval(list(reversed(rounds))) or (0, 0, 0)
    assert (low, high) == (0.77, 0.97) and covered == pytest.approx(0.9785, abs=1e-4)
    assert median_interval([0.85, 0.79, 0.87, 0.84, 0.85]) == (0.79, 0.87, 0.9375)  # 1 - 2/32
    assert median_interval([0.9, 0.8, 0.7, 0.6]) is None  # four rounds: 87.5% at best
    assert median_interval([1.0, 2.0, 3.0], confidence=0.5) == (1.0, 3.0, 0.75)


def test_the_interval_holds_the_median_as_often_as_it_says() -> None:
    """Skewed rounds (a lognormal, median 1): the 90% interval of 9 misses the median in about
    1 - coverage of 4,000 samples."""
    rng = random.Random(13)
    misses = 0
    trials = 4000
    interval = None
    for _ in range(trials):
        interval = median_interval([rng.lognormvariate(0, 0.5) for _ in range(9)])
        assert interval is not None
        misses += not interval[0] <= 1.0 <= interval[1]
    assert interval is not None
    expected = (1 - interval[2]) * trials  # k = 2 of 9: 96.1% coverage, ~156 misses
    assert abs(misses - expected) < 4 * (expected ** 0.5)


@pytest.mark.parametrize("bad", [0.0, 1.0, -0.5, float("nan")])
def test_a_confidence_outside_zero_to_one_is_refused(bad: float) -> None:
    with pytest.raises(ValueError, match="confidence"):
        median_interval([1.0] * 9, confidence=bad)


def test_an_order_statistic_outside_the_sample_is_refused() -> None:
    with pytest.raises(ValueError, match="k must be"):
        coverage(5, 4)
