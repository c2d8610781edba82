"""`arena tournament run`: a tournament over gRPC through the dealer, resumable after a kill.

The format (pure, `arena.tourney`) decides the events; each event's tables deal hand for
hand, every hand a one-hand :class:`~arena.match.live.LiveTable` with the level's stakes, the
carried stacks and the seating the event chose. The tournament state is saved (atomically,
owner-only) before every deal and after every hand, so a killed tournament resumes: finished
hands stay, the hands in flight are voided and every chip committed to them goes back.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import json
import sys
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any, TextIO

import trio

from arena.engine.errors import ArenaError, ConfigError
from arena.engine.phh import dumps_hand
from arena.league.hosting import build_packages, dealer_config, hosting
from arena.match.live import LiveTable
from arena.match.lobby import Lobby
from arena.match.messages import TournamentInfo
from arena.match.records import MatchSummary, PlayedHand, phh_fields
from arena.match.spec import MatchSpec, SeatSpec
from arena.metrics import GAME_LABELS, ArenaMetrics, TournamentSnapshot
from arena.server.commands import serving_metrics
from arena.storage.botlogs import DEFAULT_MAX_BYTES
from arena.storage.matchlog import PhhAppender, make_private_dir
from arena.storage.phhappend import open_private
from arena.tourney.config import TournamentConfig
from arena.tourney.event import EventSpec, EventState, HandOutcome, HandPlan, RoundReport
from arena.tourney.formats import FormatResult, run_format
from arena.tourney.levels import rules_for_level
from arena.tourney.results import results_document, write_private, write_results
from arena.tourney.store import TournamentStore, hand_entry, tournament_placings

STATE_FILE = "state.json"
MAX_VOIDS_PER_EVENT = 50  # a dealer that cannot finish hands ends the run instead of looping


@dataclass(eq=False)
class _HandSink:
    """Collects one hand's record, appends it to its table's PHH log, and applies its result
    to the event before the bots are told the match ended (so `MatchSeatResult.place` is
    known)."""

    run: TournamentRun
    state: EventState
    plan: HandPlan
    lobby: Lobby
    absent: tuple[str, ...] = ()
    recorded: bool = False

    def hand_started(self, match_id: str, hand_number: int) -> None:
        self.absent = tuple(p for p in self.plan.players
                            if not self.lobby.presence(p).is_connected)

    def hand_finished(self, hand: PlayedHand) -> None:
        plan = self.plan
        fields = phh_fields(hand)
        fields.update(_event=plan.event_id, _table=plan.table, _table_hand=plan.hand,
                      _round=plan.round, _level=plan.level_index + 1,
                      _players_left=plan.players_left)
        self.run.hand_done(plan, fields, voided=hand.voided)

    async def seat_places(self, final_stacks: tuple[int, ...]) -> list[int]:
        """Record the finished hand, wait for the round (hand for hand: bots out in the same
        round across tables are placed together), then each seat's place (0: still in)."""
        plan, state = self.plan, self.state
        self.run.record_outcome(state, HandOutcome(plan.table, plan.hand, final_stacks,
                                                   self.absent))
        self.recorded = True
        await self.run.round_over(state.spec.event_id, plan.round).wait()
        places = state.places()
        return [places.get(player, 0) for player in plan.players]

    def match_finished(self, summary: MatchSummary) -> None:
        return None


class TournamentRun:
    def __init__(self, config: TournamentConfig, *, out: TextIO = sys.stdout) -> None:
        self.config = config
        self.out = out
        make_private_dir(config.log_dir)  # hole cards and the state: owner-only, as a league's
        self.state_path = config.log_dir / STATE_FILE
        self.done: list[list[dict[str, Any]]] = []
        self.current: list[EventState] = []
        self.elapsed: dict[str, float] = {}
        self.result: FormatResult | None = None
        self.finished = False
        self._appenders: dict[Path, PhhAppender] = {}
        self._voids: dict[str, int] = {}
        self._rounds: dict[tuple[str, int], trio.Event] = {}
        self._saved_current: list[dict[str, Any]] | None = None
        # Finished hands whose PHH text is not yet in the logs: saved with the state (the commit
        # point), so a kill between the two never loses or doubles a logged hand.
        self.unlogged: list[tuple[str, str]] = []
        self.store: TournamentStore | None = None
        self.metrics = ArenaMetrics() if config.metrics_port is not None else None
        if self.metrics is not None:
            for bot in config.bots:
                self.metrics.register_bot(bot.name)
        self._load()

    # ------------------------------------------------------------------ persistence

    def _load(self) -> None:
        if not self.state_path.exists():
            return
        try:
            data = json.loads(self.state_path.read_text(encoding="utf-8"))
            if data.get("players") != list(self.config.format.players) \
                    or data.get("format") != self.config.format.kind:
                raise ConfigError(f"{self.state_path}: saved for other bots or another format; "
                                  "use a new log_dir for a new tournament")
            self.done = list(data["done"])
            self._saved_current = data.get("current")
            self.elapsed = {str(k): float(v) for k, v in data.get("elapsed", {}).items()}
            self.finished = bool(data.get("finished", False))
            self.unlogged = [(str(name), str(text)) for name, text in data.get("unlogged", [])]
        except (ValueError, KeyError, TypeError) as exc:
            raise ConfigError(f"{self.state_path}: unreadable tournament state: {exc}") from None

    def save(self) -> None:
        data = {"name": self.config.name, "format": self.config.format.kind,
                "players": list(self.config.format.players), "done": self.done,
                "current": [s.to_json() for s in self.current] if self.current else None,
                "elapsed": self.elapsed, "finished": self.finished, "unlogged": self.unlogged}
        write_private(self.state_path, json.dumps(data, separators=(",", ":")))

    def commit(self) -> None:
        """Save the state (the commit point), then write what it committed to the logs."""
        self.save()
        self.flush_logs()

    def flush_logs(self) -> None:
        """Append the committed hands to their PHH logs (once: a resumed run checks the tail)."""
        for name, text in self.unlogged:
            if name == "@store":
                if self.store is not None:
                    self.store.record(json.loads(text))
                continue
            path = self.config.log_dir / name
            if not name.endswith(".phhs"):
                if not (path.exists() and path.read_text(encoding="utf-8").endswith(text)):
                    with open_private(path, "a") as fh:
                        fh.write(text)
                continue
            appender = self._appenders.get(path)
            if appender is None:
                appender = self._appenders[path] = PhhAppender(path, fresh=False)
                if path.exists() and path.read_text(encoding="utf-8").endswith(text):
                    continue  # logged just before the kill
            appender.append(text)
        self.unlogged = []

    def hand_done(self, plan: HandPlan, fields: dict[str, Any], *, voided: bool) -> None:
        suffix = ".void.phhs" if voided else ".phhs"
        text = dumps_hand(fields)
        self.unlogged.append((f"{plan.event_id}-t{plan.table}{suffix}", text))
        if not voided:
            entry = hand_entry(hand_id=plan.hand_id, fields=fields, phh_text=text, seed=plan.seed,
                               finished_at=time.time(), big_blind=plan.level.big_blind)
            self.unlogged.append(("@store", json.dumps(entry, separators=(",", ":"))))
        if self.metrics is not None and not voided:
            if plan.game in GAME_LABELS:
                self.metrics.hand_played(plan.game)
            for key, reason in (("_timeouts", "timeout"), ("_absent", "absent")):
                for seat, count in enumerate(fields.get(key, [])):
                    for _ in range(int(count)):
                        self.metrics.timeout(reason, bot=plan.players[seat])
            for seat, count in enumerate(fields.get("_sdk_fallbacks", [])):
                for _ in range(int(count)):
                    self.metrics.sdk_fallback(bot=plan.players[seat])

    def log_event(self, kind: str, **values: Any) -> None:
        """Queue a line for ``tournament.jsonl``; it is written after the next save."""
        line = json.dumps({"at": round(time.time(), 3), "kind": kind, **values},
                          separators=(",", ":"))
        self.unlogged.append(("tournament.jsonl", line + "\n"))

    # ------------------------------------------------------------------ the driver (trio)

    async def drive(self, lobby: Lobby) -> None:
        """Play the format to its end; resumes from the saved state."""
        self.flush_logs()
        await self._wait_for_bots(lobby)
        fmt = run_format(self.config.format)
        played: list[EventState] = []
        batch = next(fmt)
        for k in itertools.count():
            if k < len(self.done):
                states = [EventState.from_json(spec, data)
                          for spec, data in zip(batch, self.done[k], strict=True)]
            else:
                states = self._open_batch(batch)
                async with trio.open_nursery() as nursery:
                    for state in states:
                        nursery.start_soon(self._play_event, state, lobby)
                self.done.append([s.to_json() for s in states])
                self.current = []
                self.commit()
            played.extend(states)
            try:
                batch = fmt.send(states)
            except StopIteration as stop:
                self.result = stop.value
                break
        assert self.result is not None
        doc = results_document(name=self.config.name, kind=self.config.format.kind,
                               result=self.result, events=played)
        write_results(self.config.log_dir, doc)
        if self.store is not None:
            self.store.record_placings(tournament_placings(self.result, played))
        self.finished = True
        self.commit()
        self._publish(played[-1] if played else None)

    def _open_batch(self, batch: list[EventSpec]) -> list[EventState]:
        saved = self._saved_current
        self._saved_current = None
        if saved is not None and [d.get("event_id") for d in saved] == [s.event_id for s in batch]:
            states = [EventState.from_json(spec, data)
                      for spec, data in zip(batch, saved, strict=True)]
            for state in states:
                for plan in state.void_unreported():
                    self.log_event("voided", event=plan.event_id, hand=plan.hand_id,
                                   reason="misdeal: the dealer stopped during this hand; "
                                   "every chip went back")
                    self.out.write(f"{plan.hand_id}: voided (in flight when the dealer stopped)\n")
        else:
            states = [EventState.start(spec) for spec in batch]
            for state in states:
                self.log_event("event_started", event=state.spec.event_id,
                               title=state.spec.title, players=list(state.spec.players),
                               tables=[t.to_json() for t in state.tables.values()])
        self.current = states
        self.commit()
        return states

    async def _wait_for_bots(self, lobby: Lobby) -> None:
        names = [b.name for b in self.config.bots]
        with trio.move_on_after(self.config.start_timeout_seconds):
            while not all(lobby.presence(n).is_connected for n in names):
                await trio.sleep(0.05)
        missing = [n for n in names if not lobby.presence(n).is_connected]
        if missing:
            self.out.write(f"not connected (blinded away while absent): {', '.join(missing)}\n")
            self.out.flush()

    async def _play_event(self, state: EventState, lobby: Lobby) -> None:
        event_id = state.spec.event_id
        started = trio.current_time() - self.elapsed.get(event_id, 0.0)
        level = -1
        while not state.is_over:
            elapsed = trio.current_time() - started
            plans = state.plans(elapsed_seconds=elapsed)
            self.elapsed[event_id] = elapsed
            show = bool(plans) and plans[0].level_index != level
            if show:
                self.log_event("level", event=event_id, level=plans[0].level_index + 1,
                               stakes=plans[0].level.label(), game=plans[0].game)
            self.commit()  # the pending hands are on disk before they are dealt
            if show:
                level = plans[0].level_index
                self.out.write(f"{event_id}: level {level + 1} ({plans[0].level.label()}, "
                               f"{plans[0].game}), {state.players_left} left\n")
                self.out.flush()
            async with trio.open_nursery() as nursery:
                for plan in plans:
                    nursery.start_soon(self._play_hand, state, plan, elapsed, lobby)
        self.log_event("event_finished", event=event_id, places=state.places(),
                       survivors=[list(pc) for pc in state.survivors()])
        self.commit()

    def round_over(self, event_id: str, round_number: int) -> trio.Event:
        """Set when every table of the event has reported its hand of this round."""
        key = (event_id, round_number)
        event = self._rounds.get(key)
        if event is None:
            event = self._rounds[key] = trio.Event()
        return event

    def record_outcome(self, state: EventState, outcome: HandOutcome) -> None:
        """Apply a table's hand to the event; at the round's end log it, commit, tell."""
        round_number = state.pending[outcome.table].round
        report = state.record(outcome)
        if report is not None:
            self._log_round(state, report)
        self.commit()
        if report is not None:
            self._show_round(state, report)
            event_id = state.spec.event_id
            self.round_over(event_id, round_number).set()
            for key in [k for k in self._rounds if k[0] == event_id and k[1] < round_number]:
                del self._rounds[key]  # its waiters hold the event; nobody asks for it again

    def _info(self, state: EventState, plan: HandPlan, elapsed_seconds: float) -> TournamentInfo:
        """What the bots are told of the tournament with this hand (`MatchStarted.tournament`)."""
        level, clock = plan.level, state.clock
        at_round = clock.started_hand + level.hands + 1 if level.hands is not None else 0
        in_seconds = (max(0.0, clock.started_seconds + level.seconds - elapsed_seconds)
                      if level.seconds is not None and level.hands is None else 0.0)
        return TournamentInfo(
            tournament=self.config.name, event_id=plan.event_id,
            event_title=state.spec.title or plan.event_id, table=plan.table,
            table_hand=plan.hand, round=plan.round, level=plan.level_index + 1,
            small_blind_chips=level.small_blind, big_blind_chips=level.big_blind,
            ante_chips=level.ante, next_level_at_round=at_round, next_level_in_seconds=in_seconds,
            players_left=plan.players_left, tables=len(state.tables),
            moves=tuple((m.player, m.from_table, m.to_table, r, m.reason) for r, m in state.moves),
            placings=tuple((e.player, e.place, e.round) for e in state.eliminations))

    async def _play_hand(self, state: EventState, plan: HandPlan, elapsed_seconds: float,
                         lobby: Lobby) -> None:
        """Deal one table's hand of the round; a voided hand is dealt again at once (new cards)
        so that the round, which the other tables' bots wait on for their places, ends."""
        while True:
            info = self._info(state, plan, elapsed_seconds)
            rules = rules_for_level(self.config.rules, plan.level, plan.game)
            spec = MatchSpec(plan.hand_id, tuple(SeatSpec(p, p) for p in plan.players), rules,
                             1, plan.seed, 0.0, initial_stacks=plan.stacks,
                             deal_set_id=plan.hand_id, button_seat=len(plan.players) - 1,
                             tournament=info)
            sink = _HandSink(self, state, plan, lobby)
            summary = await LiveTable(spec, lobby, sink=sink).run()
            if sink.recorded:  # the hand counted (its result went to the event)
                return
            if not summary.aborted and summary.hands_played == 1:
                finals = tuple(r.final_stack_chips for r in summary.results)
                self.record_outcome(state, HandOutcome(plan.table, plan.hand, finals,
                                                       sink.absent))
                return
            count = self._voids[plan.event_id] = self._voids.get(plan.event_id, 0) + 1
            if count > MAX_VOIDS_PER_EVENT:
                raise ArenaError(f"{plan.event_id}: {count} hands voided; giving up")
            self.log_event("voided", event=plan.event_id, hand=plan.hand_id,
                           reason=summary.abort_reason)
            self.record_outcome(state, HandOutcome(plan.table, plan.hand, plan.stacks,
                                                   voided=True))
            plan = state.pending[plan.table]

    def _log_round(self, state: EventState, report: RoundReport) -> None:
        event_id = state.spec.event_id
        if report.eliminations or report.moves:
            self.log_event(
                "round", event=event_id, round=report.round,
                eliminations=[e.to_json() for e in report.eliminations],
                moves=[asdict(m) for m in report.moves],
                broken_tables=list(report.broken_tables), final_table=report.final_table)

    def _show_round(self, state: EventState, report: RoundReport) -> None:
        event_id = state.spec.event_id
        for e in report.eliminations:
            absent = "" if e.was_present else " (absent)"
            self.out.write(f"{event_id}: {e.player} out in place {e.place} "
                           f"(table {e.table} hand {e.hand}){absent}\n")
        for m in report.moves:
            self.out.write(f"{event_id}: {m.player} moves from table {m.from_table} to "
                           f"table {m.to_table} ({m.reason})\n")
        if report.final_table:
            self.out.write(f"{event_id}: final table\n")
        self.out.flush()
        self._publish(state)

    def _publish(self, state: EventState | None) -> None:
        if self.metrics is None or state is None:
            return
        places = dict(state.places())
        points: dict[str, int] = {}
        if self.result is not None:
            places = {s.player: s.place for s in self.result.standings}
            points = {s.player: s.points for s in self.result.standings}
        plan = state.spec.plan.level(state.clock.index)
        self.metrics.update_tournament(TournamentSnapshot(
            event=state.spec.event_id, players_left=state.players_left,
            level=state.clock.index + 1, big_blind_chips=plan.big_blind,
            tables=len(state.tables), chips=dict(state.stacks), places=places, points=points))

    # ------------------------------------------------------------------ running

    def run(self, *, on_ready: Callable[[int], None] | None = None) -> bool:
        """Play (or resume) the tournament; True when it has ended."""
        from arena.server.app import DealerServer, serve

        if self.finished:
            self.out.write("tournament: already played\n")
            return True
        config = self.config
        # Hosted bots (a package each): built now, then one sandboxed instance per bot for the
        # whole tournament (no duplicate copies here), its seats' bot id its name.
        seats = [(k, b.name, b.name) for k, b in enumerate(config.bots)]

        async def drive(server: DealerServer) -> None:
            async with (contextlib.nullcontext() if hosted is None
                        else hosted.session("tournament", seats, server.service)):
                await self.drive(server.lobby)

        with serving_metrics(self.metrics, config.metrics_port, self.out):
            self.store = TournamentStore(config.store, name=config.name,
                                         source_toml=config.source_toml, bots=config.bots)
            try:
                build_packages(config.bots, self.out)
                with hosting(config.bots, log_dir=config.log_dir, max_log_bytes=DEFAULT_MAX_BYTES
                             ) as hosted:
                    result = asyncio.run(serve(dealer_config(config.listen, config.bots, hosted),
                                               on_ready=on_ready, driver=drive))
            finally:
                for appender in self._appenders.values():
                    appender.close()
                self.store.close()
        return self.finished and not result.stopped_early
