"""`arena.match.decimals`: the float operations give what Python's decimal rounding gives, ties
and edges included (a recorded hand's timings, README "League")."""

from __future__ import annotations

import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from arena.match.decimals import round4, scaled_round

# Decimal ties (a value whose exact binary expansion ends at half a unit of the 4th decimal,
# such as 1/32 = 0.03125, or is the nearest double to one), dyadic fractions, every size.
_VALUES = (st.floats(0, 2.0**33) | st.floats(-1e6, 1e6) | st.floats()
           | st.integers(0, 2**40).map(lambda n: n / 2**20)
           | st.integers(0, 2**33 * 10**4).map(lambda n: (n + 0.5) / 10**4)
           | st.integers(0, 10**9).map(lambda n: n / 10**4))


def _same(a: float, b: float) -> bool:
    return (math.isnan(a) and math.isnan(b)) or (a == b and math.copysign(1, a) == math.copysign(1, b))


@given(_VALUES)
def test_round4_is_round_to_four_decimals(value: float) -> None:
    assert _same(round4(value), round(value, 4))


@pytest.mark.parametrize("value", [
    -1.0, 0.0, -0.0, 1 / 32, 3 / 32, 5 / 32, 0.00005, 0.00015, 0.12345, 2.675, 1.00005,
    8589934591.99995, 8589934592.0, 2.0**53, 1e300, 5e-324, math.nan, math.inf, -math.inf])
def test_round4_edges(value: float) -> None:
    """The "unknown" timing (-1.0) stays -1.0; exact ties go to even (1/32 -> 0.0312)."""
    assert _same(round4(value), round(value, 4))


def test_a_tie_goes_to_even() -> None:
    assert scaled_round(1 / 32, 1e4) == 312  # 312.5 exactly
    assert scaled_round(3 / 32, 1e4) == 938  # 937.5 exactly
    assert scaled_round(0.0, 1e4) == scaled_round(-2.0, 1e4) == scaled_round(math.nan, 1e4) == -1
