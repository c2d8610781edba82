"""Student's t intervals (issue 40.3): quantiles against published tables, the tail against its
own quantile, and coverage on simulated small samples, where the normal 1.96 undercovers."""

from __future__ import annotations

import math
import random
import statistics

import pytest

from arena.engine.student import SERIES_MAX_DF, t_95, t_quantile, two_sided_inside, two_sided_p
from arena.engine.units import Z_95, mbb_per_hand
from arena.league.stats import compute_leaderboard
from arena.storage.records import ResultRow

# t(0.975, df) from the standard tables (e.g. Abramowitz & Stegun table 26.10), to 4-6 decimals.
TABLE_975 = {1: 12.7062, 2: 4.30265, 3: 3.18245, 4: 2.77645, 5: 2.57058, 9: 2.26216, 10: 2.22814,
             19: 2.09302, 29: 2.04523, 30: 2.04227, 60: 2.00030, 120: 1.97993, 1000: 1.96234}


@pytest.mark.parametrize(("df", "expected"), sorted(TABLE_975.items()))
def test_quantiles_match_the_tables(df: int, expected: float) -> None:
    assert t_quantile(0.975, df) == pytest.approx(expected, abs=6e-5)


def test_tail_at_the_quantile_is_the_probability() -> None:
    for df in (1, 2, 3, 7, 8, 50, 51, SERIES_MAX_DF, SERIES_MAX_DF + 1, 10**6):
        for p in (0.9, 0.975, 0.995):
            assert two_sided_inside(t_quantile(p, df), df) == pytest.approx(2 * p - 1, abs=1e-9)


def test_large_df_tends_to_the_normal_and_is_continuous_at_the_series_limit() -> None:
    assert t_quantile(0.975, 10**7) == pytest.approx(Z_95, abs=1e-6)
    below, above = t_quantile(0.975, SERIES_MAX_DF), t_quantile(0.975, SERIES_MAX_DF + 1)
    assert 0 < below - above < 1e-6


def test_p_value_two_sided() -> None:
    assert two_sided_p(0.0, 5) == 1.0
    assert two_sided_p(2.0, 10) == pytest.approx(0.073388, abs=1e-6)  # tables
    assert two_sided_p(-2.0, 10) == two_sided_p(2.0, 10)
    assert two_sided_p(math.inf, 3) == 0.0


def test_no_interval_below_two_observations_and_bad_arguments() -> None:
    assert t_95(0) is None and t_95(1) is None and t_95(2) == pytest.approx(12.7062, abs=1e-4)
    with pytest.raises(ValueError):
        t_quantile(0.975, 0)
    with pytest.raises(ValueError):
        t_quantile(0.4, 5)
    with pytest.raises(ValueError):
        two_sided_inside(1.0, 0)


def poker_like(rng: random.Random) -> int:
    """A heads-up hand's net in chips (small bet 20): mostly blinds won or lost, now and then a
    big pot; symmetric, so the true mean is 0."""
    size = rng.choices((10, 20, 60, 200), weights=(40, 30, 20, 10))[0]
    return size if rng.random() < 0.5 else -size


def coverage(hands: int, trials: int, *, seed: int, use_t: bool) -> float:
    rng = random.Random(seed)
    hits = 0
    for _ in range(trials):
        nets = [poker_like(rng) for _ in range(hands)]
        if use_t:
            mean, half = mbb_per_hand(nets, 20)
        else:
            mean = statistics.fmean(nets) * 50
            half = Z_95 * statistics.stdev(nets) * 50 / math.sqrt(hands)
        hits += abs(mean) <= half
    return hits / trials


@pytest.mark.parametrize("hands", [5, 10, 20])
def test_match_intervals_cover_95_percent_at_small_samples(hands: int) -> None:
    trials = 4000
    tolerance = 3 * math.sqrt(0.95 * 0.05 / trials)  # three binomial standard errors: 0.0103
    with_t = coverage(hands, trials, seed=hands, use_t=True)
    with_z = coverage(hands, trials, seed=hands, use_t=False)
    assert with_t >= 0.95 - tolerance, with_t
    assert with_z < with_t  # the same samples: the normal 1.96 undercovers where t holds


def test_per_game_leaderboard_intervals_cover_95_percent_at_20_deals() -> None:
    rng = random.Random(20)
    trials, hands, hits, z_hits = 1500, 20, 0, 0
    for trial in range(trials):
        rows = [ResultRow("hero", "FT", poker_like(rng), 20, trial, f"d{i}") for i in range(hands)]
        stats = compute_leaderboard(rows).stat("hero", "FT")
        assert stats is not None and stats.duplicate.ci_half_width_mbb is not None
        assert stats.duplicate.stderr_mbb is not None
        hits += abs(stats.mean_mbb) <= stats.duplicate.ci_half_width_mbb
        z_hits += abs(stats.mean_mbb) <= Z_95 * stats.duplicate.stderr_mbb
    tolerance = 3 * math.sqrt(0.95 * 0.05 / trials)
    assert hits / trials >= 0.95 - tolerance, hits / trials
    assert z_hits < hits
