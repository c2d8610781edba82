"""Scoring units (docs/house-rules.md §8): results in milli-big-blinds (mbb), the big blind being the
small bet, per hand, with 95% confidence intervals; shared by match summaries and leaderboards.

Intervals use Student's t with n - 1 degrees of freedom (`arena.engine.student`), not the normal
1.96, so they hold at small samples too; below two observations there is no interval."""

from __future__ import annotations

import math
import statistics
from collections.abc import Sequence
from statistics import NormalDist

from arena.engine.student import t_95

MBB_PER_BB = 1000.0
Z_95 = NormalDist().inv_cdf(0.975)  # 1.959963984540054: the large-sample limit of `t_95`


def mbb(chips: float, small_bet_chips: int) -> float:
    """Chips as milli-big-blinds (big blind = small bet)."""
    return chips * (MBB_PER_BB / small_bet_chips)


def mbb_per_hand(nets_chips: Sequence[int], small_bet_chips: int) -> tuple[float, float]:
    """Mean result in mbb/hand and the half-width of its 95% confidence interval
    (t(0.975, n - 1) * s / sqrt(n), s the sample standard deviation; 0 below two hands)."""
    if not nets_chips:
        return 0.0, 0.0
    scale = MBB_PER_BB / small_bet_chips
    mean = statistics.fmean(nets_chips) * scale
    if len(nets_chips) < 2:
        return mean, 0.0
    multiplier = t_95(len(nets_chips))
    assert multiplier is not None
    return mean, multiplier * statistics.stdev(nets_chips) * scale / math.sqrt(len(nets_chips))
