"""A distribution-free confidence interval for a median, from the order statistics of a sample.

For ``n`` independent rounds of one continuous quantity, the interval from the ``k``-th smallest
to the ``k``-th largest value holds the true median with probability ``1 - 2 P(B < k)``, where
``B`` is binomial(``n``, 1/2), whatever the quantity's distribution. Rounds of a benchmark on a
shared machine are skewed and heavy-tailed, so this, not a mean's t-interval, is the honest
spread of a median of rounds.
"""

from __future__ import annotations

import math
from collections.abc import Sequence


def coverage(n: int, k: int) -> float:
    """The probability that the ``k``-th smallest to ``k``-th largest of ``n`` holds the median."""
    if not 1 <= k <= (n + 1) // 2:
        raise ValueError(f"k must be 1 to {(n + 1) // 2} for {n} values, not {k}")
    below: float = sum(math.comb(n, i) for i in range(k)) / 2**n
    return 1.0 - 2.0 * below


def median_interval(values: Sequence[float], confidence: float = 0.9) -> tuple[float, float, float] | None:
    """(low, high, its coverage): the narrowest order-statistic interval holding the median with
    at least ``confidence``; None when there are too few values for it (fewer than 5 at 90%)."""
    if not 0 < confidence < 1:
        raise ValueError(f"confidence must be between 0 and 1, not {confidence!r}")
    ordered = sorted(values)
    n = len(ordered)
    best = None
    for k in range(1, (n + 1) // 2 + 1):
        covered = coverage(n, k)
        if covered < confidence:
            break
        best = (ordered[k - 1], ordered[n - k], covered)
    return best
