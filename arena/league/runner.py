"""`arena league run`: play a league's schedule against connected bots, resumably.

Every completed hand is committed to the results store in its own transaction before the next
hand of its table starts, and appended to the match's PHH log. A hand in flight when the dealer
dies is voided on restart (RULES.md §5), and play resumes with the next hand.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import sys
from collections.abc import Callable, Coroutine
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any, TextIO

from arena.engine import phh
from arena.engine.errors import ConfigError
from arena.engine.phh import dumps_hand
from arena.league.config import LeagueConfig
from arena.league.leaderboard import (
    CSV_TABLES,
    faults_csv,
    render_faults,
    render_table,
    to_csv,
    to_json,
)
from arena.league.luck import update_luck
from arena.league.progress import Progress, ProgressDisplay
from arena.league.schedule import ScheduledMatch, build_schedule
from arena.league.secret import (
    describe_secret,
    league_secret,
    publish_commitment,
    reveal_league_secret,
    without_tokens,
)
from arena.league.significance import PairTests, pair_of
from arena.league.sprt import SprtBounds
from arena.league.stats import Leaderboard, compute_leaderboard
from arena.match.messages import Notice
from arena.match.records import MatchSink, MatchSummary, PlayedHand, phh_fields
from arena.match.rotation import game_for_hand
from arena.match.spec import MatchSpec, SeatSpec
from arena.match.spectator import Spectator, TeeSink
from arena.metrics import ArenaMetrics, MetricsServer, rejection_reason, start_metrics_server
from arena.server.config import BotEntry, ServerConfig
from arena.storage.errors import NotFound

if TYPE_CHECKING:
    from arena.server.app import DealerServer
from arena.storage.matchlog import (
    MatchLog,
    MatchLogPaths,
    catch_up,
    clear_in_flight,
    hand_in_flight,
    last_sequence,
    make_private_dir,
    reveal_seed,
    write_private,
)
from arena.storage.records import FaultCounts, HandRecord, League, MatchStatus, SeatResult, VoidHand
from arena.storage.sqlite import SqliteStore


def _now() -> datetime:
    return datetime.now(UTC)


class LeagueSink:
    """A :class:`~arena.match.records.MatchSink` for one scheduled copy: store, match log, metrics."""

    def __init__(self, *, store: SqliteStore, store_match_id: int, scheduled: ScheduledMatch,
                 log_dir: Path, progress: Progress, metrics: ArenaMetrics | None,
                 on_copy_finished: Callable[[ScheduledMatch, MatchSummary], None],
                 result_extra: dict[str, object]) -> None:
        self.store = store
        self.store_match_id = store_match_id
        self.scheduled = scheduled
        self.progress = progress
        self.metrics = metrics
        self.on_copy_finished = on_copy_finished
        self.log = MatchLog(log_dir, scheduled.match_id, resumable=True, events=True,
                            reveal_seed=False, result_extra=result_extra)
        self.event_log = self.log.events
        self._started_at = _now()
        self._table_open = False

    def event_sent(self, seat: int, notice: Notice) -> None:
        """Log an event as ``seat`` received it (the JSONL event log)."""
        assert self.event_log is not None
        self.event_log.sent(seat, notice)

    def hand_started(self, match_id: str, hand_number: int) -> None:
        self._started_at = _now()
        self.log.hand_started(match_id, hand_number)
        if not self._table_open and self.metrics is not None:
            self.metrics.table_started()
        self._table_open = True

    def hand_finished(self, hand: PlayedHand) -> None:
        ctx = hand.context
        state = hand.state
        players = ctx.players
        button_engine = ctx.order.index(ctx.button_seat) if ctx.button_seat in ctx.order else 0
        text = dumps_hand(phh_fields(hand))  # a one-hand .phh: the store's copy and the log's
        game = state.variant.code.value
        small_bet = state.stakes.small_bet
        if hand.voided:
            self.store.void_hand(VoidHand(
                match_id=self.store_match_id, hand_number=hand.hand_number,
                copy_index=self.scheduled.copy_index, deal_id=ctx.deal_id, game_code=game,
                small_bet_chips=small_bet, button_seat=button_engine, reason=hand.void_reason,
                phh_text=text, started_at=self._started_at, voided_at=_now()))
            self.log.write_hand(hand, text)
            return
        seats = tuple(SeatResult(k, players[k], state.stacks[k] - state.starting_stacks[k],
                                 state.stacks[k], *hand.timings.faults(k))
                      for k in range(len(players)))
        self.store.record_hand(HandRecord(
            match_id=self.store_match_id, hand_number=hand.hand_number,
            copy_index=self.scheduled.copy_index, deal_id=ctx.deal_id, game_code=game,
            small_bet_chips=small_bet, button_seat=button_engine, seats=seats, phh_text=text,
            started_at=self._started_at, finished_at=_now()))
        # Right after the commit; a kill in between is repaired on resume (matchlog.catch_up).
        self.log.write_hand(hand, text)
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
        for seat, bot in enumerate(players):
            timeouts, absent, _rejected, disconnects = timings.faults(seat)
            for _ in range(timeouts):
                metrics.timeout("timeout", bot=bot)
            for _ in range(absent):
                metrics.timeout("absent", bot=bot)
            for _ in range(disconnects):
                metrics.disconnected(bot=bot)

    def match_finished(self, summary: MatchSummary) -> None:
        self.log.match_finished(summary)
        if self._table_open and self.metrics is not None:
            self.metrics.table_ended()
        if summary.not_started == "forfeited":  # absent = "forfeit": never dealt, never resumed
            self.progress.forfeited.append(f"{self.scheduled.match_id} ({', '.join(summary.absent_bots)})")
            if self.store.get_match(self.store_match_id).status is MatchStatus.RUNNING:
                self.store.abort_match(self.store_match_id)
        elif not summary.aborted:
            self.on_copy_finished(self.scheduled, summary)


@dataclass
class PreparedLeague:
    league: League
    specs: list[MatchSpec]
    sinks: dict[str, LeagueSink]
    progress: Progress
    store_ids: dict[str, int]  # deal set -> store match id


class LeagueRun:
    """Prepare (resume) a league from its store, then play what is left."""

    def __init__(self, config: LeagueConfig, *, out: TextIO = sys.stdout) -> None:
        self.config = config
        self.out = out
        make_private_dir(config.log_dir)
        config.store.parent.mkdir(parents=True, exist_ok=True)
        if not config.store.exists():  # owner-only; SQLite gives its -wal and -shm the same mode
            os.close(os.open(config.store, os.O_WRONLY | os.O_CREAT, 0o600))
        self.secret = league_secret(config)
        self.store = SqliteStore(config.store)
        self.metrics = ArenaMetrics() if config.metrics_port is not None else None
        if self.metrics is not None:
            for bot in config.bots:
                self.metrics.register_bot(bot.name)
        self.schedule = build_schedule(
            [b.name for b in config.bots], fmt=config.format,
            seats_per_table=config.seats_per_table, duplicate=config.duplicate,
            seed=self.secret.value,
            tables=config.tables, hero=config.hero, rounds=config.rounds)
        self._copies_left: dict[str, int] = {}
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

    def close(self) -> None:
        self.store.close()

    def _league(self) -> League:
        config = self.config
        league = self.store.find_league(config.name)
        if league is None:
            league = self.store.create_league(
                config.name, without_tokens(config.source_toml, config) or "name = ''\n")
        for bot in config.bots:
            try:
                self.store.get_bot(bot.name)
            except NotFound:
                self.store.register_bot(bot.name, bot.token)
                continue
            if not self.store.verify_bot_token(bot.name, bot.token):
                raise ConfigError(f"bot {bot.name!r}: the token differs from the one this league "
                                  "registered; a bot keeps its token for the whole league")
        return league

    def prepare(self) -> PreparedLeague:
        config = self.config
        league = self._league()
        existing = self.store.list_matches(league.league_id)
        deal_sets: list[str] = []
        for scheduled in self.schedule:
            if scheduled.deal_set not in deal_sets:
                deal_sets.append(scheduled.deal_set)
        store_ids: dict[str, int] = {}
        finished: set[str] = set()
        for k, deal_set in enumerate(deal_sets):
            first = next(s for s in self.schedule if s.deal_set == deal_set)
            if k < len(existing):
                match = existing[k]
            else:
                match = self.store.create_match(
                    league.league_id, seat_bots=first.seats, games=config.rules.games,
                    is_duplicate=config.duplicate)
            store_ids[deal_set] = match.match_id
            if match.status is not MatchStatus.RUNNING:
                finished.add(deal_set)
        progress = Progress(total_hands=len(self.schedule) * config.hands_per_match,
                            small_bet_chips=config.rules.stakes.small_bet)
        specs: list[MatchSpec] = []
        sinks: dict[str, LeagueSink] = {}
        for scheduled in self.schedule:
            store_id = store_ids[scheduled.deal_set]
            done = len([h for h in self.store.completed_hands(store_id)
                        if h.copy_index == scheduled.copy_index])
            for hand in self.store.completed_hands(store_id):
                if hand.copy_index == scheduled.copy_index:
                    for seat in hand.seats:
                        progress.add(seat.bot, seat.net_chips)
            progress.done_hands += done
            if scheduled.deal_set in finished:
                continue
            committed = sorted((h for h in self.store.completed_hands(store_id)
                                if h.copy_index == scheduled.copy_index),
                               key=lambda h: h.hand_number)
            catch_up(MatchLogPaths.of(config.log_dir, scheduled.match_id),
                     [h.phh_text for h in committed])
            next_number = self.store.next_hand_number(store_id, copy_index=scheduled.copy_index)
            next_number = self._void_interrupted(scheduled, store_id, next_number)
            self._copies_left[scheduled.deal_set] = self._copies_left.get(scheduled.deal_set, 0) + 1
            if next_number > config.hands_per_match:
                self._copies_left[scheduled.deal_set] -= 1  # all played; only the result was lost
                continue
            sinks[scheduled.match_id] = LeagueSink(
                store=self.store, store_match_id=store_id, scheduled=scheduled,
                log_dir=config.log_dir, progress=progress, metrics=self.metrics,
                on_copy_finished=self._copy_finished,
                result_extra={"deal_set": scheduled.deal_set,
                              "seed_commitment": self.secret.commitment,
                              "seed_configured": self.secret.configured})
            initial_stacks = None
            if not config.rules.reset_stacks and next_number > 1:
                initial_stacks = self._carried_stacks(store_id, scheduled)
            specs.append(MatchSpec(
                scheduled.match_id, tuple(SeatSpec(n, n) for n in scheduled.seats), config.rules,
                config.hands_per_match, scheduled.seed, config.start_timeout_seconds,
                first_hand=next_number - 1, copy_index=scheduled.copy_index,
                copies_total=scheduled.copies, deal_set_id=scheduled.deal_set,
                initial_stacks=initial_stacks, absent=config.absent, reveal_seed=False,
                first_sequence=last_sequence(MatchLogPaths.of(config.log_dir,
                                                              scheduled.match_id))))
        self._store_ids = store_ids
        for deal_set, left in list(self._copies_left.items()):
            if left == 0:
                self._finish_deal_set(deal_set)
        return PreparedLeague(league, specs, sinks, progress, store_ids)

    def _carried_stacks(self, store_id: int, scheduled: ScheduledMatch) -> tuple[int, ...]:
        """Stacks per seat after the last completed hand (a voided hand gave every chip back)."""
        hands = [h for h in self.store.completed_hands(store_id)
                 if h.copy_index == scheduled.copy_index]
        stacks = [0] * len(scheduled.seats)  # a seat missing from the last hand had busted
        if not hands:
            return (self.config.rules.starting_stack,) * len(scheduled.seats)
        last = max(hands, key=lambda h: h.hand_number)
        fields = phh.loads(last.phh_text, name=f"match {store_id} hand {last.hand_number}")[0].fields
        for engine_seat, seat in enumerate(fields["_seats"]):
            stacks[int(seat)] = int(fields["finishing_stacks"][engine_seat])
        return tuple(stacks)

    def _void_interrupted(self, scheduled: ScheduledMatch, store_id: int, next_number: int) -> int:
        """A hand that was dealt but neither finished nor voided: void it (RULES.md §5)."""
        paths = MatchLogPaths.of(self.config.log_dir, scheduled.match_id)
        number = hand_in_flight(paths, unreadable=next_number)
        if number is None:
            return next_number
        if number >= next_number:
            game = game_for_hand(self.config.rules, number - 1, len(scheduled.seats))
            self.store.void_hand(VoidHand(
                match_id=store_id, hand_number=number, copy_index=scheduled.copy_index,
                deal_id=f"{scheduled.deal_set}/deal-{number}", game_code=game,
                small_bet_chips=self.config.rules.stakes.small_bet, button_seat=0,
                reason="misdeal: the dealer stopped during this hand; every chip went back",
                phh_text="", started_at=_now(), voided_at=_now()))
            next_number = number + 1
        clear_in_flight(paths)
        return next_number

    def _copy_finished(self, scheduled: ScheduledMatch, summary: MatchSummary) -> None:
        left = self._copies_left.get(scheduled.deal_set, 1) - 1
        self._copies_left[scheduled.deal_set] = left
        if left <= 0:
            self._finish_deal_set(scheduled.deal_set, seed=summary.seed)
            observer = self.deal_set_observer
            if observer is not None and observer(self._store_ids[scheduled.deal_set]) and self._server:
                self._server.stop()
        if self.metrics is not None:
            ended = [self._store_ids[scheduled.deal_set]] if left <= 0 else []
            self.metrics.update_leaderboard(self.leaderboard(luck_matches=ended))

    def _finish_deal_set(self, deal_set: str, seed: int | None = None) -> None:
        match_seed = seed if seed is not None else next(
            s.seed for s in self.schedule if s.deal_set == deal_set)
        match_id = self._store_ids[deal_set]
        if self.store.get_match(match_id).status is MatchStatus.RUNNING:
            self.store.finish_match(match_id, str(match_seed))
        # Every copy has ended: now the deal set's seed may be published (RULES.md §1).
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
        from arena.server.app import serve

        prepared = self.prepare()
        config = self.config
        publish_commitment(config, self.secret)
        self.out.write(f"deals: {describe_secret(self.secret)}\n")
        metrics_server: MetricsServer | None = None
        if self.metrics is not None and config.metrics_port is not None:
            metrics_server = start_metrics_server(config.metrics_port, self.metrics.registry)
            self.out.write(f"metrics: {metrics_server.url}\n")
        if not prepared.specs:
            self.out.write("league: every match is already played\n")
            if metrics_server is not None:
                metrics_server.stop()
            reveal_league_secret(config, self.secret)
            return True
        server_config = ServerConfig(
            listen=config.listen,
            bots=tuple(BotEntry(b.name, b.name, b.token) for b in config.bots),
            matches=tuple(prepared.specs))
        display: list[asyncio.Task[None]] = []
        holder: list[DealerServer] = []

        view = ProgressDisplay(prepared.progress, self.out)

        async def show_progress() -> None:
            while True:
                await asyncio.sleep(view.interval_seconds)
                if holder:
                    prepared.progress.waiting_for = tuple(sorted(
                        {name for table in holder[0].tables if table.waiting
                         for name in table.missing_bots()}))
                view.update()
                if self.metrics is not None and holder:
                    connected = sum(1 for b in config.bots
                                    if holder[0].lobby.presence(b.name).is_connected)
                    self.metrics.set_connected_bots(connected)

        def started(server: DealerServer) -> None:
            holder.append(server)
            self._server = server
            if self.metrics is not None:
                metrics = self.metrics
                server.lobby.rejection_observers.append(
                    lambda bot, error: metrics.invalid_action(rejection_reason(error), bot=bot))
            display.append(asyncio.get_running_loop().create_task(show_progress()))
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
                                     max_tables_at_once=config.tables_at_once, on_server=started)
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
            view.close()
            if metrics_server is not None:
                metrics_server.stop()
        self.forfeited = prepared.progress.forfeited
        if complete:
            reveal_league_secret(config, self.secret)
        return complete

    def write_leaderboard_files(self, board: Leaderboard) -> list[Path]:
        """``leaderboard.json``, ``.txt`` and one CSV per table: ``leaderboard.csv`` (results),
        ``leaderboard-crosstable.csv``, ``leaderboard-rankings.csv``, ``leaderboard-faults.csv``."""
        base = self.config.log_dir / "leaderboard"
        faults = self.faults()
        written = {Path(f"{base}.json"): to_json(board, faults=faults),
                   Path(f"{base}.txt"): render_table(board) + "\n" + render_faults(faults)
                   + f"\ndeals: {describe_secret(self.secret)}\n"}
        for table in CSV_TABLES:
            name = f"{base}.csv" if table == "results" else f"{base}-{table}.csv"
            written[Path(name)] = to_csv(board, table=table)
        written[Path(f"{base}-faults.csv")] = faults_csv(faults)
        for path, text in written.items():
            write_private(path, text)
        return list(written)

    def faults(self) -> list[FaultCounts]:
        """Per bot and match: timeouts, absent decisions, rejected replies, disconnects."""
        return self.store.fault_counts(self._league().league_id)
