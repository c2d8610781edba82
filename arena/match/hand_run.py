"""One hand in play at a live table: its state, feed and the per-seat counts its record keeps."""

from __future__ import annotations

from dataclasses import dataclass, field

from arena.engine.state import HandState
from arena.engine.strategy_log import StrategyRecord
from arena.match.feed import HandFeed
from arena.match.records import DecisionTimings, HandContext, PlayedHand


@dataclass(eq=False)
class HandRun:
    """A hand being dealt by :class:`~arena.match.live.LiveTable` (mutable while it runs)."""

    index: int
    state: HandState
    feed: HandFeed
    ctx: HandContext
    action_seconds: list[float] = field(default_factory=list)
    think_seconds: list[float] = field(default_factory=list)
    wire_seconds: list[float] = field(default_factory=list)
    action_seats: list[int] = field(default_factory=list)  # engine seat of each answered decision
    timeouts: list[int] = field(default_factory=list)
    absent: list[int] = field(default_factory=list)
    rejected: list[int] = field(default_factory=list)
    disconnects: list[int] = field(default_factory=list)
    sdk_fallbacks: list[int] = field(default_factory=list)
    fault_lines: list[tuple[int, str]] = field(default_factory=list)  # see DecisionTimings
    decisions: int = 0
    trigger: float | None = None
    strategies: list[StrategyRecord] = field(default_factory=list)  # issue 40: the draws


def rounded(seconds: list[float]) -> tuple[float, ...]:
    """A hand's timings as its record keeps them: to 0.1 ms (-1.0, "unknown", stays -1.0).
    Rounded when a sink records the hand, not per decision (a table without a sink never
    reads them)."""
    return tuple([round(x, 4) for x in seconds])


def played_hand(run: HandRun, *, void_reason: str) -> PlayedHand:
    """The record a sink is given of a finished (or voided) hand."""
    timings = DecisionTimings(
        action_seconds=rounded(run.action_seconds), wire_seconds=rounded(run.wire_seconds),
        think_seconds=rounded(run.think_seconds), timeouts=tuple(run.timeouts),
        absent=tuple(run.absent), action_seats=tuple(run.action_seats),
        rejected=tuple(run.rejected), disconnects=tuple(run.disconnects),
        sdk_fallbacks=tuple(run.sdk_fallbacks), fault_lines=tuple(run.fault_lines))
    return PlayedHand(run.ctx, run.state, timings, void_reason, tuple(run.strategies))
