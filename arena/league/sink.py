"""The league's sink for one table: each hand committed to the store, appended to the match's PHH
and JSONL logs and counted, by the league's writer thread; the table deals its next hand only
when the writer has committed the last one and marked the next as in flight (:meth:`ready`);
at the match's end it awaits the last hand's commit (:meth:`settle`) before its synchronous end,
so that a commit's latency never stops the dealer's thread (every other table on it).
"""

from __future__ import annotations

import contextlib
import dataclasses
import logging
from collections.abc import Callable
from datetime import UTC, datetime
from functools import partial
from pathlib import Path

import trio

from arena.engine.phh import dumps_hand
from arena.league.progress import Progress
from arena.league.schedule import ScheduledMatch
from arena.match.messages import Notice
from arena.match.records import MatchSummary, PlayedHand, phh_fields
from arena.metrics import ArenaMetrics
from arena.server.eventrecord import LogRecords
from arena.storage.errors import LeaseLost
from arena.storage.matchlog import MatchLog
from arena.storage.records import HandRecord, MatchStatus, SeatResult, VoidHand
from arena.storage.sqlstore import InFlightBook
from arena.storage.store import ResultsStore
from arena.storage.writer import After, Job, Writer

log = logging.getLogger("arena.league")
# A finished hand as the writer takes it: the hand, its events, when it started and ended.
_Finished = tuple[PlayedHand, list[tuple[Notice, list[int], float]], datetime, datetime]


def _now() -> datetime:
    return datetime.now(UTC)


def hand_facts(hand: PlayedHand) -> tuple[str, str, int, int, tuple[SeatResult, ...]]:
    """What the store keeps of a hand: its PHH text (the store's copy and the log's), game,
    small bet, button (engine seat) and each seat's result."""
    ctx = hand.context
    state = hand.state
    players = ctx.players
    button_engine = ctx.order.index(ctx.button_seat) if ctx.button_seat in ctx.order else 0
    seats = tuple(SeatResult(k, players[k], state.stacks[k] - state.starting_stacks[k], state.stacks[k],
                             *hand.timings.faults(k)) for k in range(len(players)))
    return (dumps_hand(phh_fields(hand)), state.variant.code.value, state.stakes.small_bet,
            button_engine, seats)


class LeagueSink:
    """A :class:`~arena.match.records.MatchSink` for one scheduled copy: store, match log, metrics.

    On the dealer's thread it only keeps the hand's events and hands the finished hand to the
    ``writer`` (with the next hand's in-flight mark, as one job); the PHH text, the JSON lines,
    the store's transaction and the in-flight mark are made on the writer's thread, in order.
    """

    def __init__(self, *, store: ResultsStore, store_match_id: int, scheduled: ScheduledMatch,
                 log_dir: Path, progress: Progress, metrics: ArenaMetrics | None,
                 on_copy_finished: Callable[[ScheduledMatch, MatchSummary], None],
                 result_extra: dict[str, object], writer: Writer, in_flight: InFlightBook) -> None:
        self.store = store
        self.in_flight = in_flight
        self.store_match_id = store_match_id
        self.scheduled = scheduled
        self.progress = progress
        self.metrics = metrics
        self.on_copy_finished = on_copy_finished
        self.writer = writer
        self.log = MatchLog(log_dir, scheduled.match_id, resumable=True, events=LogRecords(),
                            reveal_seed=False, result_extra=result_extra)
        event_log = self.log.events
        assert event_log is not None
        self.event_log = event_log
        # Log an event as ``seat`` received it (the event log), at the cost of one call.
        self.event_sent: Callable[[int, Notice], None] = event_log.sent
        self.event_sent_to_all: Callable[[Notice, int], None] = event_log.sent_to_all
        self.failed: Exception | None = None  # a write that failed: the table stops (see ready)
        self._started_at = _now()
        self._table_open = False
        self._ticket = 0
        self._guard = in_flight.guard(store_match_id)
        self._finished: _Finished | None = None  # a hand ended, not yet given to the writer

    # ------------------------------------------------------------ on the dealer's thread

    def hand_started(self, match_id: str, hand_number: int) -> None:
        finished = self._finished
        self._finished = None
        self._started_at = _now()
        if not self._table_open and self.metrics is not None:
            self.metrics.table_started()
        self._table_open = True
        self._hand_over(finished, hand_number)

    async def ready(self) -> None:
        """Return once the writer has committed all this table gave it (the last hand, the next
        marked in flight; its log lines may still be waiting); raise what it failed with."""
        await self._writer_reached(self._ticket, logged=False)
        if self.failed is not None:
            raise self.failed

    async def settle(self) -> None:
        """(The table's hands are all played; :meth:`match_finished` comes next.) Hand the writer
        the last hand and return once it is written, logs included, so that `match_finished`
        finds it done and does not block the dealer's thread (and every other table on it) for
        the commit. Never raises: `match_finished` tells a failure, as before. A table that
        cannot await (cancelled, or voiding its hand) skips this: `match_finished` waits then."""
        try:
            self._submit_finished()
        except Exception as exc:  # the writer cannot take the last hand (closed): the match
            self._failed(exc)  # ends as failed (aborted; it goes on when resumed), never finished
            return  # one hand short
        await self._writer_reached(self._ticket, logged=True)

    def hand_finished(self, hand: PlayedHand) -> None:
        """Keep the hand for the next hand's start (one job for both), or the match's end."""
        self._submit_finished()
        self._finished = (hand, self.event_log.take(), self._started_at, _now())

    def match_finished(self, summary: MatchSummary) -> None:
        self._submit_finished()
        self.writer.wait(self._ticket)  # the last hand's commit: done already after settle
        self.log.match_finished(summary if self.failed is None else self.as_failed(summary))
        if self._table_open and self.metrics is not None:
            self.metrics.table_ended()
        if summary.not_started == "forfeited":  # absent = "forfeit": never dealt, never resumed
            self.progress.forfeited.append(f"{self.scheduled.match_id} ({', '.join(summary.absent_bots)})")
            if self.store.get_match(self.store_match_id).status is MatchStatus.RUNNING:
                self.store.abort_match(self.store_match_id)
        elif not summary.aborted and self.failed is None:
            self.on_copy_finished(self.scheduled, summary)

    def as_failed(self, summary: MatchSummary) -> MatchSummary:
        """The summary of a table whose last write failed: aborted (it goes on when resumed)."""
        if self.failed is None or summary.aborted:
            return summary
        return dataclasses.replace(summary, aborted=True,
                                   abort_reason=f"the results store failed: {self.failed}")

    async def _writer_reached(self, ticket: int, *, logged: bool) -> None:
        """Return once the writer has committed ``ticket`` (``logged``: and run its steps, the
        log lines)."""
        writer = self.writer
        reached, when = ((writer.done, writer.when_done) if logged
                         else (writer.committed, writer.when_committed))
        if not reached(ticket):
            event, token = trio.Event(), trio.lowlevel.current_trio_token()
            if when(ticket, partial(_wake, token, event)):
                await event.wait()

    def _submit(self, job: Job) -> None:
        self._ticket = self.writer.submit(partial(self._guarded, job))

    def _submit_finished(self) -> None:
        """Hand the writer a finished hand kept for the next hand's start (if any)."""
        finished = self._finished
        if finished is not None:
            self._finished = None
            self._hand_over(finished, 0)

    def _hand_over(self, finished: _Finished | None, mark: int) -> None:
        """One job: the finished hand's commit (if any) and hand ``mark``'s in-flight mark (0:
        none); the dealer hands over both with no await between, the table waits for both."""
        self._submit(partial(self._mark_in_flight, mark) if finished is None
                     else partial(self._write_hand_then_mark, finished, mark) if mark
                     else partial(self._write_hand, *finished))

    # ------------------------------------------------------------ on the writer's thread

    def _guarded(self, job: Job) -> After | None:
        if self.failed is not None:
            return None  # the table stops at the first failure, as if the dealer had stopped there
        try:
            after = job()
        except Exception as exc:
            self._failed(exc)
            return None
        return None if after is None else partial(self._guarded_after, after)

    def _guarded_after(self, after: After) -> None:
        try:
            after()
        except Exception as exc:
            self._failed(exc)

    def _failed(self, exc: Exception) -> None:
        if isinstance(exc, LeaseLost):
            log.warning("match %s: stopped: %s", self.scheduled.match_id, exc)
        else:
            log.error("match %s: writing failed: %s", self.scheduled.match_id, exc, exc_info=exc)
        self.failed = exc

    def _mark_in_flight(self, hand_number: int) -> None:
        self.in_flight.hand_started(self.store_match_id, self.scheduled.copy_index, hand_number)

    def _write_hand_then_mark(self, finished: _Finished, hand_number: int) -> After:
        """The last hand's commit (`_write_hand`), then the next hand marked in flight."""
        after = self._write_hand(*finished)
        self._mark_in_flight(hand_number)
        return after

    def _write_hand(self, hand: PlayedHand, events: list[tuple[Notice, list[int], float]],
                    started_at: datetime, finished_at: datetime) -> After:
        """Commit the hand (in the writer's batch); returns what follows the commit: the hand and
        its events appended to the logs, the progress and the metrics."""
        ctx = hand.context
        text, game, small_bet, button_engine, seats = hand_facts(hand)
        if hand.voided:
            self.store.void_hand(VoidHand(
                match_id=self.store_match_id, hand_number=hand.hand_number,
                copy_index=self.scheduled.copy_index, deal_id=ctx.deal_id, game_code=game,
                small_bet_chips=small_bet, button_seat=button_engine, reason=hand.void_reason,
                phh_text=text, started_at=started_at, voided_at=finished_at), guard=self._guard)
            return partial(self.log.write_hand, hand, text, events=events)
        self.store.record_hand(HandRecord(
            match_id=self.store_match_id, hand_number=hand.hand_number,
            copy_index=self.scheduled.copy_index, deal_id=ctx.deal_id, game_code=game,
            small_bet_chips=small_bet, button_seat=button_engine, seats=seats, phh_text=text,
            started_at=started_at, finished_at=finished_at), guard=self._guard)

        def committed() -> None:
            # Right after the commit; a kill in between is repaired on resume (matchlog.catch_up).
            self.log.write_hand(hand, text, events=events)
            self._count(hand, seats)

        return committed

    def _count(self, hand: PlayedHand, seats: tuple[SeatResult, ...]) -> None:
        """A committed hand in the progress and the metrics."""
        for seat in seats:
            self.progress.add(seat.bot, seat.net_chips)
        self.progress.done_hands += 1
        self.progress.played_this_run += 1
        if self.metrics is not None:
            self._observe(hand)

    def _observe(self, hand: PlayedHand) -> None:
        metrics = self.metrics
        assert metrics is not None
        players = hand.context.players
        timings = hand.timings
        metrics.hand_played(hand.state.variant.code.value)
        seats = timings.action_seats or (None,) * len(timings.action_seconds)
        for total, think, seat in zip(timings.action_seconds, timings.think_seconds, seats,
                                      strict=False):
            # The bot reports its think time (-1 when it does not); the rest is the network.
            think_s = think if think >= 0 else 0.0
            bot = players[seat] if seat is not None and seat < len(players) else None
            metrics.decision(think_s, max(0.0, total - think_s), bot=bot)
        for record in hand.strategies:  # issue 40: the share of strategy replies per bot
            if record.seat < len(players):
                metrics.strategy_reply(bot=players[record.seat])
        for seat, bot in enumerate(players):
            timeouts, absent, _rejected, disconnects, fallbacks = timings.faults(seat)
            for _ in range(timeouts):
                metrics.timeout("timeout", bot=bot)
            for _ in range(absent):
                metrics.timeout("absent", bot=bot)
            for _ in range(disconnects):
                metrics.disconnected(bot=bot)
            for _ in range(fallbacks):
                metrics.sdk_fallback(bot=bot)


def _wake(token: trio.lowlevel.TrioToken, event: trio.Event) -> None:
    """(The writer's thread) set ``event`` soon on trio's thread, if its run goes on."""
    with contextlib.suppress(trio.RunFinishedError):
        token.run_sync_soon(event.set)
