"""What a match hands on: a typed record per played (or voided) hand, the match summary, and
the sink protocol through which both reach the match log, the results store and the metrics."""

from __future__ import annotations

from collections import deque
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from arena.engine.cards import Card
from arena.engine.phh import hand_fields
from arena.engine.rules import Rules
from arena.engine.state import HandState
from arena.engine.strategy_log import COPY_FIELD, STRATEGIES_FIELD, StrategyRecord
from arena.match.messages import MatchSeatResult


@dataclass(frozen=True, slots=True)
class HandContext:
    """Where a hand sits in its match; seats are physical table seats unless named otherwise."""

    match_id: str
    hand_id: str
    hand_number: int
    game_hand_number: int
    hands_per_game: int
    button_seat: int
    order: tuple[int, ...]  # engine seat -> physical seat
    names: tuple[str, ...]  # by physical seat
    bot_ids: tuple[str, ...]  # by physical seat
    table_stacks: tuple[int, ...]  # by physical seat, before the hand
    rules: Rules
    deal_id: str
    copy_index: int = 0  # duplicate: which copy of the deal set (0 otherwise)

    @property
    def players(self) -> tuple[str, ...]:
        """Seat names in engine (PHH) order."""
        return tuple(self.names[p] for p in self.order)


@dataclass(frozen=True, slots=True)
class DecisionTimings:
    """How the seats' decisions went; lists are in decision order, counts by engine seat."""

    action_seconds: tuple[float, ...]  # prompt -> accepted reply, per answered decision
    wire_seconds: tuple[float, ...]  # network time the bot reported (-1 when it did not)
    think_seconds: tuple[float, ...]  # think time the bot reported (-1 when it did not)
    timeouts: tuple[int, ...]  # automatic actions after the deadline, per engine seat
    absent: tuple[int, ...]  # automatic actions for a disconnected seat, per engine seat
    action_seats: tuple[int, ...] = ()  # the engine seat of each answered decision
    rejected: tuple[int, ...] = ()  # replies refused as invalid, per engine seat
    disconnects: tuple[int, ...] = ()  # connections lost during the hand, per engine seat
    # Accepted replies the bot's SDK sent in place of its code's, per engine seat.
    sdk_fallbacks: tuple[int, ...] = ()
    # (line of the PHH ``actions`` from 1, "timeout" | "absent" | "fallback"): the actions the
    # dealer took for a seat, and those its SDK's fallback chose; replays mark them.
    fault_lines: tuple[tuple[int, str], ...] = ()

    def faults(self, engine_seat: int) -> tuple[int, int, int, int, int]:
        """(timeouts, absent decisions, rejected replies, disconnects, SDK fallbacks) of one
        engine seat: `arena.storage.records.SeatResult`'s order."""

        def at(counts: tuple[int, ...]) -> int:
            return counts[engine_seat] if engine_seat < len(counts) else 0

        return (at(self.timeouts), at(self.absent), at(self.rejected), at(self.disconnects),
                at(self.sdk_fallbacks))


@dataclass(frozen=True, slots=True)
class PlayedHand:
    """One hand as the match layer hands it on: played out, or voided (docs/house-rules.md §6)."""

    context: HandContext
    state: HandState  # the engine state as the hand ended (or stopped, when voided)
    timings: DecisionTimings
    void_reason: str = ""  # empty unless the hand was voided
    strategies: tuple[StrategyRecord, ...] = ()  # issue 40: its strategy-answered decisions

    @property
    def voided(self) -> bool:
        return bool(self.void_reason)

    @property
    def match_id(self) -> str:
        return self.context.match_id

    @property
    def hand_number(self) -> int:
        return self.context.hand_number


def phh_fields(hand: PlayedHand) -> dict[str, Any]:
    """The hand's PHH fields: the standard ones, then the arena's ``_``-prefixed fields."""
    ctx = hand.context
    timings = hand.timings
    extra: dict[str, Any] = {
        "_match_id": ctx.match_id,
        "_hand_id": ctx.hand_id,
        "_hand": ctx.hand_number,
        "_game_hand": ctx.game_hand_number,
        "_button_seat": ctx.button_seat,
        "_seats": list(ctx.order),
        "_bot_ids": [ctx.bot_ids[p] for p in ctx.order],
        "_deal_id": ctx.deal_id,
        "_decision_seconds": ctx.rules.decision_seconds,
        "_time_bank_seconds": ctx.rules.time_bank_seconds,
        "_action_seconds": list(timings.action_seconds),
        "_wire_seconds": list(timings.wire_seconds),
        "_think_seconds": list(timings.think_seconds),
        "_timeouts": list(timings.timeouts),
        "_absent": list(timings.absent),
        "_rejected": list(timings.rejected),
        "_disconnects": list(timings.disconnects),
        "_sdk_fallbacks": list(timings.sdk_fallbacks),
    }
    if timings.fault_lines:
        extra["_fault_lines"] = [[line, why] for line, why in timings.fault_lines]
    if hand.strategies:
        extra[COPY_FIELD] = ctx.copy_index
        extra[STRATEGIES_FIELD] = [r.to_phh() for r in hand.strategies]
    if hand.voided:
        extra["_voided"] = True
        extra["_void_reason"] = hand.void_reason
    return hand_fields(hand.state, players=list(ctx.players), extra=extra)


SAMPLES = 100_000  # the latest timing samples kept per table


def _samples() -> deque[float]:
    return deque(maxlen=SAMPLES)


def percentile(values: Sequence[float], fraction: float) -> float:
    """Nearest-rank percentile (0 for no values)."""
    return sorted_percentile(sorted(values), fraction)


def sorted_percentile(ordered: Sequence[float], fraction: float) -> float:
    """`percentile` of values sorted already (several percentiles of one sort)."""
    if not ordered:
        return 0.0
    index = min(len(ordered) - 1, max(0, round(fraction * (len(ordered) - 1))))
    return ordered[index]


@dataclass
class TableStats:
    """Counters and the latest timing samples of one table, read by reports and benchmarks."""

    prompts: int = 0
    answered: int = 0
    rejected: int = 0
    rejected_no_open_decision: int = 0  # replies to a closed or unknown decision of the match
    timeouts: int = 0
    absent_actions: int = 0
    sdk_fallbacks: int = 0  # accepted replies the bot's SDK sent in place of its code's
    strategy_replies: int = 0  # issue 40: answered replies that declared a strategy (in answered)
    lateness_seconds: deque[float] = field(default_factory=_samples)  # auto action - deadline
    answer_seconds: deque[float] = field(default_factory=_samples)  # prompt -> accepted reply

    def summary(self) -> dict[str, float]:
        """Counts and percentiles, as the match's results file gives them (at a match's end, on
        the dealer's thread: each sample list is sorted once)."""
        answers = sorted(self.answer_seconds)
        lateness = sorted(self.lateness_seconds)
        return {
            "prompts": self.prompts, "answered": self.answered, "rejected": self.rejected,
            "rejected_no_open_decision": self.rejected_no_open_decision,
            "timeouts": self.timeouts, "absent_actions": self.absent_actions,
            "sdk_fallbacks": self.sdk_fallbacks,
            "strategy_replies": self.strategy_replies,
            "answer_seconds_p50": sorted_percentile(answers, 0.5),
            "answer_seconds_p99": sorted_percentile(answers, 0.99),
            "timeout_lateness_seconds_p50": sorted_percentile(lateness, 0.5),
            "timeout_lateness_seconds_p99": sorted_percentile(lateness, 0.99),
            "timeout_lateness_seconds_max": lateness[-1] if lateness else 0.0,
        }


@dataclass(frozen=True, slots=True)
class MatchSummary:
    match_id: str
    seed: int
    hands_played: int
    results: tuple[MatchSeatResult, ...]
    aborted: bool
    abort_reason: str
    button_draw: tuple[tuple[int, Card], ...]  # (seat, card) of the first-button draw
    stats: TableStats
    # Not started because bots were missing at the start timeout: "postponed" (it will be
    # dealt later) or "forfeited"; ``absent_bots`` names them. No hand was dealt.
    not_started: str = ""
    absent_bots: tuple[str, ...] = ()

    @property
    def postponed(self) -> bool:
        return self.not_started == "postponed"


class MatchSink(Protocol):
    """Where finished hands and the match result go (hand logs, results store).

    The table calls these on the dealer's thread, which serves every table of the dealer: they
    must return at once. A sink may also have (the table looks them up with ``getattr``):

    - ``event_sent(seat, notice)``: every event as sent to each seat (the league's JSONL log:
      a seat that takes requests and results only is told the events it is sent, not those it
      is not); with it, ``event_sent_to_all(notice, seat_count)``: an event sent to every seat
      as one object, told once (as ``event_sent`` for each seat in turn);
    - ``event_watched(notice)``: every event once, whether or not a seat is sent it, as a seat
      that does not own it sees it, and an event with a copy per seat as seat 0's copy
      (spectators: `arena.match.spectator.TeeSink`);
    - ``async ready()``: awaited after ``hand_started``, before the hand's first card (the league
      commits the last hand and marks the next in flight meanwhile); it may raise to stop the
      table;
    - ``async settle()``: awaited once every hand is played, before ``match_finished``, so that
      ``match_finished`` finds the last hand written and does not wait for it on the dealer's
      thread; it must not raise. A table cancelled or failing skips it (it cannot await):
      ``match_finished`` must then still wait for what it needs itself;
    - ``async seat_places(final_stacks)``: the seats' places once the hands are played
      (tournaments).
    """

    def hand_started(self, match_id: str, hand_number: int) -> None: ...

    def hand_finished(self, hand: PlayedHand) -> None: ...

    def match_finished(self, summary: MatchSummary) -> None: ...
