"""`arena league run`: play a league's schedule against connected bots, resumably.

Every completed hand is committed to the results store in its own transaction before the next
hand of its table starts, and appended to the match's PHH log. A hand in flight when the dealer
dies is voided on restart (docs/house-rules.md §6), and play resumes with the next hand.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import sys
import threading
import time
from collections.abc import Callable, Collection, Coroutine
from dataclasses import dataclass
from datetime import UTC, datetime
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any, TextIO

from arena.engine import phh
from arena.league.config import LeagueConfig
from arena.league.hosting import (
    build_packages,
    dealer_config,
    describe_ends,
    hosting,
    register_league,
    remote_duplicate,
    seat_id,
    trust_note,
)
from arena.league.luck import update_luck
from arena.league.progress import Progress, ProgressDisplay
from arena.league.refresher import Refresher
from arena.league.report import BoardReport
from arena.league.schedule import ScheduledMatch, build_schedule
from arena.league.secret import (
    describe_secret,
    league_secret,
    publish_commitment,
    reveal_league_secret,
    without_tokens,
)
from arena.league.significance import PairTests, pair_of
from arena.league.sink import LeagueSink
from arena.league.sprt import SprtBounds
from arena.league.stats import Leaderboard, compute_leaderboard
from arena.league.strategy_share import StrategyShare, strategy_shares
from arena.match.records import MatchSink, MatchSummary
from arena.match.rotation import game_for_hand
from arena.match.spec import MatchSpec, SeatSpec
from arena.match.spectator import Spectator, TeeSink
from arena.metrics import ArenaMetrics, rejection_reason
from arena.server.commands import serving_metrics
from arena.server.eventrecord import LogRecords, last_sequence
from arena.storage.errors import InvalidRecord

if TYPE_CHECKING:
    from arena.server.app import DealerServer
    from arena.server.hosted import HostedBots
from arena.storage.matchlog import (
    MatchLogPaths,
    catch_up,
    make_private_dir,
    make_private_store,
    reveal_seed,
)
from arena.storage.records import FaultCounts, HandRecord, League, LeftOutHand, MatchStatus, VoidHand
from arena.storage.sqlstore import InFlightBook
from arena.storage.store import Match, ResultsStore, open_store
from arena.storage.writer import After, Writer

# A leaderboard refreshed when the metrics are read is at most this old (Prometheus scrapes every
# 15 s by default); its luck is computed only for the hands that lack it.
BOARD_MAX_AGE_SECONDS = 5.0
log = logging.getLogger("arena.league")


@dataclass
class PreparedLeague:
    specs: list[MatchSpec]
    sinks: dict[str, LeagueSink]
    progress: Progress
    store_ids: dict[str, int]  # deal set -> store match id


@dataclass(frozen=True)
class LeagueStanding:
    """How far a league is, read from its store alone (:meth:`LeagueRun.standing`)."""

    done_hands: int
    total_hands: int
    void_hands: int
    copies_left: int  # scheduled copies not played to their end (those being dealt now included)


class LeagueRun:
    """Prepare (resume) a league from its store, then play what is left."""

    def __init__(self, config: LeagueConfig, *, out: TextIO = sys.stdout,
                 store: ResultsStore | None = None, metrics: ArenaMetrics | None = None,
                 in_flight: InFlightBook | None = None, board_on_scrape: bool = False) -> None:
        """``store``, ``metrics`` and ``in_flight`` are given by a worker that shares them between
        leagues; by default the league opens its own store and metrics. ``board_on_scrape``: the
        metrics' leaderboard is refreshed when they are read (:meth:`board_wanted`, a worker),
        not whenever a deal set ends."""
        self.config = config
        self.out = out
        make_private_dir(config.log_dir)
        self._own_store = store is None
        if store is None:
            if isinstance(config.store, Path):
                make_private_store(config.store)
            store = open_store(config.store)
        self.secret = league_secret(config, store)
        self.store = store
        self.in_flight: InFlightBook = in_flight if in_flight is not None else InFlightBook(store)
        if metrics is None and config.metrics_port is not None:
            metrics = ArenaMetrics()
        self.metrics = metrics
        if self.metrics is not None:
            for bot in config.bots:
                self.metrics.register_bot(bot.name)
        self.schedule = build_schedule(
            [b.name for b in config.bots], fmt=config.format,
            seats_per_table=config.seats_per_table, duplicate=config.duplicate,
            seed=self.secret.value,
            tables=config.tables, hero=config.hero, rounds=config.rounds)
        self._copies_left: dict[str, int] = {}
        self._checked_league: League | None = None
        self.forfeited: list[str] = []  # "match (absent bots)" of this run, absent = "forfeit"
        # Called with the store id of each deal set when all its copies have ended; True stops
        # the league (matches still running end aborted and are played again on a resume).
        self.deal_set_observer: Callable[[int], bool] | None = None
        if config.stop_when_significant:
            self.deal_set_observer = PairTests(
                self.store, config.name, {pair_of(m.seats) for m in self.schedule},
                SprtBounds(config.sprt_low_mbb, config.sprt_high_mbb, config.sprt_alpha,
                           config.sprt_beta), rules=config.rules, luck=config.luck, out=out)
        self._server: DealerServer | None = None
        # Store commits and logs of every table, in order, off the dealer's thread.
        self.writer = Writer(name=f"arena-writer-{config.name}"[:15], batch=store.batch)
        self._board = Refresher(self._refresh_board)  # the metrics' leaderboard, on its own thread
        self._board_on_scrape = board_on_scrape
        self._luck_due: list[int] = []  # deal sets ended here whose luck the next refresh computes
        self._board_asked = -BOARD_MAX_AGE_SECONDS  # time.monotonic() of the last refresh asked
        self._board_lock = threading.Lock()
        self._finish_lock = threading.Lock()
        # The ends of deal sets (store, seeds revealed) off the dealer's thread, in order, on a
        # thread of their own: the copies' commits are done when they are asked for.
        self.finisher = Writer(name=f"arena-finish-{config.name}"[:15], batch=store.batch)
        self._finish_tickets: dict[str, int] = {}  # deal set -> its finisher's job

    def close(self) -> None:
        self.finisher.close()  # first: the end of a deal set asks for a refresh
        self._board.wait(60.0)
        self.writer.close()
        if self._own_store:
            self.store.close()

    def _league(self) -> League:
        if self._checked_league is None:  # tokens are checked once (scrypt is slow on purpose)
            self._checked_league = register_league(
                self.store, self.config.name, without_tokens(self.config.source_toml, self.config),
                self.config.bots)
        return self._checked_league

    def _deal_sets(self) -> list[str]:
        """The schedule's deal sets in order of their first copy: the order of the store's
        matches (the k-th deal set is the league's k-th match)."""
        return list(dict.fromkeys(s.deal_set for s in self.schedule))

    def ensure_matches(self) -> tuple[League, dict[str, Match]]:
        """The league and one store match per deal set (a duplicate block), created when missing."""
        config = self.config
        league = self._league()
        existing = self.store.list_matches(league.league_id)
        matches: dict[str, Match] = {}
        for k, deal_set in enumerate(self._deal_sets()):
            first = next(s for s in self.schedule if s.deal_set == deal_set)
            if k < len(existing):
                match = existing[k]
            else:
                match = self.store.create_match(
                    league.league_id, seat_bots=first.seats, games=config.rules.games,
                    is_duplicate=config.duplicate)
            matches[deal_set] = match
        return league, matches

    def standing(self) -> LeagueStanding:
        """How far the league is, reading the store only: safe while the league runs (unlike
        :meth:`prepare`, which voids the hands in flight and rewrites the logs to resume)."""
        config, store = self.config, self.store
        league = store.find_league(config.name)
        existing = store.list_matches(league.league_id) if league is not None else []
        # Paired with the store's matches as `ensure_matches` pairs them (none created here).
        matches = dict(zip(self._deal_sets(), existing, strict=False))
        voids = sum(len(store.void_hands(match.match_id)) for match in matches.values())
        hands_of: dict[int, list[HandRecord]] = {}
        done = left = 0
        for scheduled in self.schedule:
            match = matches.get(scheduled.deal_set)
            if match is None:
                left += 1
                continue
            if match.match_id not in hands_of:
                hands_of[match.match_id] = store.completed_hands(match.match_id)
            done += sum(1 for h in hands_of[match.match_id] if h.copy_index == scheduled.copy_index)
            if match.status is MatchStatus.RUNNING and store.next_hand_number(
                    match.match_id, copy_index=scheduled.copy_index) <= config.hands_per_match:
                left += 1
        return LeagueStanding(done, len(self.schedule) * config.hands_per_match, voids, left)

    def prepare(self, *, deal_sets: Collection[str] | None = None) -> PreparedLeague:
        """What is left to play (of ``deal_sets`` only, when given: a worker's jobs)."""
        config = self.config
        _league, matches = self.ensure_matches()
        store_ids = {deal_set: match.match_id for deal_set, match in matches.items()}
        finished = {deal_set for deal_set, match in matches.items()
                    if match.status is not MatchStatus.RUNNING}
        schedule = [s for s in self.schedule if deal_sets is None or s.deal_set in deal_sets]
        # Counted afresh: none of these is being played here now (a job claimed again after its
        # table stopped kept the count of its first try). Only these are finished below: another
        # job's deal set may be finishing on the dealer's thread meanwhile.
        preparing = [d for d in dict.fromkeys(s.deal_set for s in schedule) if d not in finished]
        for deal_set in preparing:
            self._copies_left[deal_set] = 0
        progress = Progress(total_hands=len(schedule) * config.hands_per_match,
                            small_bet_chips=config.rules.stakes.small_bet)
        specs: list[MatchSpec] = []
        sinks: dict[str, LeagueSink] = {}
        hands_of: dict[int, list[HandRecord]] = {}  # completed hands by store match (read once)
        for scheduled in schedule:
            store_id = store_ids[scheduled.deal_set]
            if store_id not in hands_of:
                hands_of[store_id] = self.store.completed_hands(store_id)
            committed = sorted((h for h in hands_of[store_id] if h.copy_index == scheduled.copy_index),
                               key=lambda h: h.hand_number)
            for hand in committed:
                for seat in hand.seats:
                    progress.add(seat.bot, seat.net_chips)
            progress.done_hands += len(committed)
            if scheduled.deal_set in finished:
                continue
            catch_up(MatchLogPaths.of(config.log_dir, scheduled.match_id),
                     [h.phh_text for h in committed], records=LogRecords())
            next_number = self.store.next_hand_number(store_id, copy_index=scheduled.copy_index)
            next_number = self._void_interrupted(scheduled, store_id, next_number)
            if next_number > config.hands_per_match:
                continue  # all played; only the result was lost
            self._copies_left[scheduled.deal_set] += 1
            sinks[scheduled.match_id] = LeagueSink(
                store=self.store, store_match_id=store_id, scheduled=scheduled,
                log_dir=config.log_dir, progress=progress, metrics=self.metrics,
                on_copy_finished=self._copy_finished,
                result_extra={"deal_set": scheduled.deal_set,
                              "seed_commitment": self.secret.commitment,
                              "seed_configured": self.secret.configured},
                writer=self.writer, in_flight=self.in_flight)
            resumed = next_number > 1
            specs.append(MatchSpec(
                scheduled.match_id,
                tuple(SeatSpec(n, seat_id(config, n, scheduled.match_id)) for n in scheduled.seats),
                config.rules,
                config.hands_per_match, scheduled.seed, config.start_timeout_seconds,
                first_hand=next_number - 1, copy_index=scheduled.copy_index,
                copies_total=scheduled.copies, deal_set_id=scheduled.deal_set,
                initial_stacks=(_carried_stacks(committed, scheduled, config.rules.starting_stack)
                                if resumed and not config.rules.reset_stacks else None),
                absent=config.absent, reveal_seed=False,
                first_sequence=last_sequence(MatchLogPaths.of(config.log_dir,
                                                              scheduled.match_id).events),
                earlier_hands=len(committed) if resumed else 0,
                earlier_seat_nets=_earlier_nets(committed, scheduled) if resumed else ()))
        self._store_ids = store_ids
        for deal_set in preparing:
            if self._copies_left[deal_set] == 0:
                self._finish_deal_set(deal_set)
        return PreparedLeague(specs, sinks, progress, store_ids)

    def _void_interrupted(self, scheduled: ScheduledMatch, store_id: int, next_number: int) -> int:
        """A hand that was dealt but neither finished nor voided: void it (docs/house-rules.md §6)."""
        number = self.in_flight.hand_in_flight(store_id, scheduled.copy_index)
        if number is not None and number >= next_number:
            game = game_for_hand(self.config.rules, number - 1, len(scheduled.seats))
            now = datetime.now(UTC)
            self.store.void_hand(VoidHand(
                match_id=store_id, hand_number=number, copy_index=scheduled.copy_index,
                deal_id=f"{scheduled.deal_set}/deal-{number}", game_code=game,
                small_bet_chips=self.config.rules.stakes.small_bet, button_seat=0,
                reason="misdeal: the dealer stopped during this hand; every chip went back",
                phh_text="", started_at=now, voided_at=now))
            return number + 1
        return next_number

    def _copy_finished(self, scheduled: ScheduledMatch, summary: MatchSummary) -> None:
        """(The dealer's thread.) A copy ended; the last of its deal set has it finished in the
        store and its seed revealed on the finisher's thread (`_finish_written`; the copies' last
        commits are done: `LeagueSink.match_finished` waits for them), so that the dealer's
        thread (every table on it) never waits for that commit. With a ``deal_set_observer``
        (it may stop the league at once) it is done here, before the observer reads the store,
        as before."""
        left = self._copies_left.get(scheduled.deal_set, 1) - 1
        self._copies_left[scheduled.deal_set] = left
        if left > 0:
            self._deal_sets_ended([])
            return
        ended = [self._store_ids[scheduled.deal_set]]
        observer = self.deal_set_observer
        if observer is None:
            self._finish_tickets[scheduled.deal_set] = self.finisher.submit(
                partial(self._finish_written, scheduled.deal_set, summary.seed, ended))
            return
        self._finish_deal_set(scheduled.deal_set, seed=summary.seed)
        if observer(self._store_ids[scheduled.deal_set]) and self._server:
            self._server.stop(over="the league stopped early: its results are significant")
        self._deal_sets_ended(ended)

    def _finish_written(self, deal_set: str, seed: int, ended: list[int]) -> After | None:
        """(The finisher's thread, in its batch.) The deal set finished in the store; once that is
        committed, its seed revealed (docs/house-rules.md §1) and the leaderboard told. A process killed
        before the commit leaves the match running with every copy played: a resumed league
        finishes it (`prepare`). A failure is logged and left to a resume likewise."""
        try:
            self._finish_in_store(deal_set, seed)
        except Exception:
            log.exception("deal set %s: finishing it in the store failed; a resumed league "
                          "finishes it", deal_set)
            return None

        def committed() -> None:
            self._reveal(deal_set, seed)
            self._deal_sets_ended(ended)

        return committed

    def wait_deal_set_finished(self, deal_set: str, timeout_seconds: float | None = None) -> bool:
        """Block until ``deal_set``, ended here, is finished in the store and its seed revealed
        (by the finisher's thread); False on timeout. (A worker completes its job only then.)"""
        ticket = self._finish_tickets.get(deal_set)
        return ticket is None or self.finisher.wait(ticket, timeout_seconds)

    def _deal_sets_ended(self, ended: list[int]) -> None:
        """The metrics' leaderboard refreshed (with the luck of the deal sets that ``ended``)."""
        if self.metrics is None:
            return
        if self._board_on_scrape:
            with self._board_lock:
                self._luck_due += ended
        else:  # off the dealer's thread: the luck takes seconds of CPU
            self._board.request(ended)

    def board_wanted(self) -> None:
        """The metrics are being read: refresh their leaderboard (with the luck of the deal sets
        that ended here since) on its own thread, unless it was asked less than
        BOARD_MAX_AGE_SECONDS ago. Returns at once: the reader gets the last snapshot."""
        now = time.monotonic()
        with self._board_lock:
            if now - self._board_asked < BOARD_MAX_AGE_SECONDS:
                return
            self._board_asked = now
            ended, self._luck_due = self._luck_due, []
        self._board.request(ended)

    def _refresh_board(self, ended: list[int]) -> None:
        """The metrics' leaderboard, with the luck of the matches that ``ended`` (the refresher's
        thread)."""
        if self.metrics is not None:
            self.metrics.update_leaderboard(self.leaderboard(luck_matches=ended))

    def _finish_deal_set(self, deal_set: str, seed: int | None = None) -> None:
        match_seed = seed if seed is not None else next(
            s.seed for s in self.schedule if s.deal_set == deal_set)
        # A worker's prepare() (another thread) and a copy's end (the dealer's thread) may both
        # finish the same deal set, or another process may have: finished already is done. (The
        # finisher's thread takes no lock: it is inside its store batch, and a race is settled by
        # the status read again after `InvalidRecord`.)
        with self._finish_lock:
            self._finish_in_store(deal_set, match_seed)
        self._reveal(deal_set, match_seed)

    def _finish_in_store(self, deal_set: str, match_seed: int) -> None:
        """The deal set's match finished with its seed, unless it has ended already (here or
        by another thread or process)."""
        match_id = self._store_ids[deal_set]
        if self.store.get_match(match_id).status is MatchStatus.RUNNING:
            try:
                self.store.finish_match(match_id, str(match_seed))
            except InvalidRecord:
                if self.store.get_match(match_id).status is not MatchStatus.FINISHED:
                    raise

    def _reveal(self, deal_set: str, match_seed: int) -> None:
        """Every copy has ended: now the deal set's seed may be published (docs/house-rules.md §1)."""
        for scheduled in self.schedule:
            if scheduled.deal_set == deal_set:
                reveal_seed(MatchLogPaths.of(self.config.log_dir, scheduled.match_id),
                            match_seed)

    def leaderboard(self, *, luck_matches: list[int] | None = None) -> Leaderboard:
        """The league's leaderboard; first the luck of ended matches' hands that lack it is
        computed and stored (only of ``luck_matches`` when given)."""
        league = self._league()
        settings = self.config.luck
        update_luck(self.store, league.league_id, rules=self.config.rules, settings=settings,
                    match_ids=luck_matches)
        return compute_leaderboard(self.store.iter_results(league.league_id,
                                                           value_function=settings.name))

    def run(self, *, on_ready: Callable[[int], None] | None = None,
            spectator: Spectator | None = None,
            background: Callable[[], Coroutine[Any, Any, None]] | None = None) -> bool:
        """Play what is left; True when the whole schedule is done.

        ``spectator`` is told of every event and decision (live tables on the web);
        ``background`` runs as a task on the dealer's loop while the league plays (the web app).
        """

        prepared = self.prepare()
        config = self.config
        if prepared.specs:
            build_packages(config.bots, self.out)  # before anything starts: a failed build stops here
        publish_commitment(config, self.secret)
        self.out.write(f"deals: {describe_secret(self.secret)}\n")
        if trust_note(config):
            self.out.write(f"note: {trust_note(config)}\n")
        with serving_metrics(self.metrics, config.metrics_port, self.out):
            if not prepared.specs:
                self.out.write("league: every match is already played\n")
                reveal_league_secret(config, self.secret)
                return True
            with hosting(config.bots, log_dir=config.log_dir,
                         max_log_bytes=config.bot_log_bytes) as hosted:
                return self._play(prepared, on_ready=on_ready, spectator=spectator,
                                  background=background, hosted=hosted)

    def _play(self, prepared: PreparedLeague, *, on_ready: Callable[[int], None] | None,
              spectator: Spectator | None,
              background: Callable[[], Coroutine[Any, Any, None]] | None,
              hosted: HostedBots | None) -> bool:
        from arena.server.app import serve

        config = self.config
        server_config = dealer_config(config.listen, config.bots, hosted, prepared.specs)
        display: list[asyncio.Task[None]] = []
        view = ProgressDisplay(prepared.progress, self.out)

        async def show_progress(server: DealerServer) -> None:
            while True:
                await asyncio.sleep(view.interval_seconds)
                prepared.progress.waiting_for = tuple(sorted(
                    {name for table in server.tables if table.waiting
                     for name in table.missing_bots()}))
                view.update()
                if self.metrics is not None:
                    self.metrics.set_connected_bots(sum(
                        1 for b in config.bots if server.lobby.presence(b.name).is_connected))

        def started(server: DealerServer) -> None:
            self._server = server
            if self.metrics is not None:
                metrics = self.metrics
                server.lobby.rejection_observers.append(
                    lambda bot, error: metrics.invalid_action(rejection_reason(error), bot=bot))
            display.append(asyncio.get_running_loop().create_task(show_progress(server)))
            if spectator is not None:
                server.lobby.decision_observers.append(spectator.decision_opened)
            if background is not None:
                display.append(asyncio.get_running_loop().create_task(background()))

        def sink_for(spec: MatchSpec) -> MatchSink:
            sink = prepared.sinks[spec.match_id]
            return sink if spectator is None else TeeSink(sink, spectator)

        async def main() -> bool:
            try:
                result = await serve(server_config, on_ready=on_ready,
                                     sink_factory=sink_for,
                                     max_tables_at_once=config.tables_at_once, on_server=started,
                                     instances=hosted.around if hosted is not None else None)
            finally:
                for task in display:
                    task.cancel()
                    with contextlib.suppress(asyncio.CancelledError):
                        await task
            return not result.stopped_early and not any(s.aborted and not s.not_started
                                                        for s in result.summaries)

        try:
            complete = asyncio.run(main())
        finally:
            self.finisher.wait()  # the deal sets ended last are finished, their seeds revealed
            self._board.wait(60.0)  # the leaderboard of the last matches reaches the metrics
            view.close()
        self.forfeited = prepared.progress.forfeited
        for line in describe_ends(hosted):
            self.out.write(f"{line}\n")
        if complete:
            reveal_league_secret(config, self.secret)
        return complete

    def report(self, board: Leaderboard) -> BoardReport:
        """The leaderboard with its faults, left-out hands, strategy shares and trust note."""
        return BoardReport(board=board, faults=self.faults(), left_out=self.left_out(),
                           strategy_shares=self.strategy_shares(),
                           trusted=remote_duplicate(self.config), trust_note=trust_note(self.config))

    def write_leaderboard_files(self, board: Leaderboard | BoardReport) -> list[Path]:
        """``leaderboard.json``, ``.txt`` and one CSV per table beside the logs."""
        report = board if isinstance(board, BoardReport) else self.report(board)
        return report.write_files(self.config.log_dir / "leaderboard",
                                  deals=describe_secret(self.secret))

    def strategy_shares(self) -> tuple[StrategyShare, ...]:
        """Issue 40: per bot, the decisions it answered with a declared strategy."""
        return strategy_shares(self.store.iter_hand_texts(self._league().league_id))

    def faults(self) -> list[FaultCounts]:
        """Per bot and match: timeouts, absent decisions, rejected replies, disconnects."""
        return self.store.fault_counts(self._league().league_id)

    def left_out(self) -> list[LeftOutHand]:
        """The completed hands the leaderboard leaves out: other copies of voided deals."""
        return self.store.left_out_hands(self._league().league_id)


def _carried_stacks(committed: list[HandRecord], scheduled: ScheduledMatch,
                    starting_stack: int) -> tuple[int, ...]:
    """Stacks per seat after the copy's last completed hand (a voided hand gave every chip back)."""
    if not committed:
        return (starting_stack,) * len(scheduled.seats)
    last = committed[-1]
    stacks = [0] * len(scheduled.seats)  # a seat missing from the last hand had busted
    fields = phh.loads(last.phh_text, name=f"match {last.match_id} hand {last.hand_number}")[0].fields
    for engine_seat, seat in enumerate(fields["_seats"]):
        stacks[int(seat)] = int(fields["finishing_stacks"][engine_seat])
    return tuple(stacks)


def _earlier_nets(committed: list[HandRecord], scheduled: ScheduledMatch
                  ) -> tuple[tuple[int, ...], ...]:
    """Per seat, its net chips in each of a resumed copy's completed hands (wherever they were
    dealt), so that its result (``.result.json``, MatchEnded) covers the whole copy, not only
    the part dealt after the resume."""
    seat_of = {name: seat for seat, name in enumerate(scheduled.seats)}
    nets: list[list[int]] = [[] for _ in scheduled.seats]
    for hand in committed:
        for seat in hand.seats:
            if seat.bot in seat_of:
                nets[seat_of[seat.bot]].append(seat.net_chips)
    return tuple(tuple(n) for n in nets)
