"""Rounding a float to a fixed number of decimals without formatting it: what ``round(x, 4)``
and ``"%.6f"`` compute through a decimal string (``_Py_dg_dtoa``, ~2,000 instructions), done
with a few float operations. Compiled by mypyc with the dealer (arena/host/compiled.py): a
recorded hand rounds each of its decisions' timings (`arena.match.live`), and the event log
spells each line's time (`arena.storage.eventtext`).
"""

from __future__ import annotations

from typing import Final

_SPLIT: Final = 134217729.0  # 2**27 + 1: splits a double into a high 26 bits and a low part
_LIMIT: Final = 8589934592.0  # 2**33: value * scale stays below 2**53 for scales up to 1e6


def scaled_round(value: float, scale: float) -> int:
    """``value * scale`` rounded to the nearest integer (a tie to even) from the exact binary
    value of ``value``, for 0 < value < 2**33 and ``scale`` a power of ten up to 1e6; -1 for
    any other value (0.0, -0.0, negatives, NaN and the infinities are the caller's).

    ``value * scale`` is the double nearest the exact product; the exact product is that double
    plus an error found by Dekker's product and Knuth's sum (``scale`` has at most 14
    significant bits, each half of ``value`` at most 27: both halves' products are exact),
    which settles the rounding where the double's fraction is one half."""
    if not 0.0 < value < _LIMIT:
        return -1
    high = value * _SPLIT
    high = high - (high - value)
    high_part = high * scale
    low_part = (value - high) * scale
    product = high_part + low_part
    low_in_sum = product - high_part
    error = (high_part - (product - low_in_sum)) + (low_part - low_in_sum)
    whole = int(product)  # product < 2**53: its fraction is exact
    fraction = product - whole
    if fraction > 0.5 or (fraction == 0.5 and (error > 0.0 or (error == 0.0 and whole % 2 == 1))):
        return whole + 1
    return whole


def round4(value: float) -> float:
    """``round(value, 4)``, exactly (the double nearest the rounded decimal is the quotient
    of its integer by 1e4, correctly rounded by the division)."""
    tenths_of_ms = scaled_round(value, 1e4)
    if tenths_of_ms >= 0:
        return tenths_of_ms / 10000.0
    return round(value, 4)
