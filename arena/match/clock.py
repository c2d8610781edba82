"""Decision clocks (docs/house-rules.md §6): a per-decision limit plus a time bank spent by overruns.

Times are floats on the table's clock (``trio.current_time()``), so a fake clock in the tests
drives them; this module does the arithmetic, and reads that clock for the hot path
(:func:`clock_reader`).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import trio

from arena.match.fastinit import fast_init_interpreted

Now = Callable[[], float]  # the table's clock: seconds, as trio.current_time() gives them


def clock_reader() -> Now:
    """The running trio clock's own ``current_time`` (call inside trio): the values of
    ``trio.current_time()`` in one call instead of three (its public wrapper and the runner's
    method each read the clock through another Python call; a few per decision)."""
    return trio.lowlevel.current_clock().current_time


@dataclass(frozen=True, slots=True)
class TimeControl:
    decision_seconds: float
    time_bank_seconds: float


@dataclass(frozen=True, slots=True, init=False)
class DecisionClock:
    """The clock of one open decision: its own time limit, then the seat's remaining bank.

    One per decision: its own ``__init__`` makes it a native class when compiled (mypyc gives
    a dataclass's generated ``__init__`` a Python call); interpreted, :func:`fast_init`'s."""

    opened_at: float
    decision_seconds: float
    bank_seconds: float  # the seat's bank when the decision opened

    def __init__(self, opened_at: float, decision_seconds: float, bank_seconds: float) -> None:
        self.opened_at = opened_at  # type: ignore[misc]
        self.decision_seconds = decision_seconds  # type: ignore[misc]
        self.bank_seconds = bank_seconds  # type: ignore[misc]

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


fast_init_interpreted(DecisionClock)
