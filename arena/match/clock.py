"""Decision clocks (docs/house-rules.md §6): a per-decision limit plus a time bank spent by overruns.

Times are floats on the table's clock (``trio.current_time()``), so a fake clock in the tests
drives them; this module does the arithmetic, and reads that clock for the hot path
(:func:`clock_reader`).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import trio

Now = Callable[[], float]  # the table's clock: seconds, as trio.current_time() gives them


def clock_reader() -> Now:
    """The running trio clock's own ``current_time`` (call inside trio): the values of
    ``trio.current_time()`` in one call instead of three (its public wrapper and the runner's
    method each read the clock through another Python call; a few per decision)."""
    return trio.lowlevel.current_clock().current_time


@dataclass(frozen=True, slots=True, kw_only=True)
class DecisionClock:
    """The clock of one open decision (one per decision): its own time limit, then the seat's
    remaining bank."""

    opened_at: float  # the table's clock when the decision opened
    decision_seconds: float  # the decision's own limit
    bank_seconds: float  # the seat's bank when the decision opened

    @property
    def own_deadline(self) -> float:
        return self.opened_at + self.decision_seconds

    @property
    def deadline(self) -> float:
        """When the dealer stops waiting and acts for the seat."""
        return self.own_deadline + self.bank_seconds

    def decision_left(self, now: float) -> float:
        return max(0.0, self.own_deadline - now)

    def bank_left(self, now: float) -> float:
        """The bank as it stands at ``now``: reduced by however far ``now`` is past the limit."""
        return max(0.0, self.bank_seconds - max(0.0, now - self.own_deadline))

    def total_left(self, now: float) -> float:
        return max(0.0, self.deadline - now)

