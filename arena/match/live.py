"""The live table runner: one trio task per match, and one timer for its decisions' deadlines.

A :class:`LiveTable` deals the hands of one match to the bots of a :class:`~arena.match.lobby.Lobby`.
Every decision waits until its deadline (docs/house-rules.md §6): the decision time plus the seat's time
bank, kept by the table's :class:`~arena.match.timer.DecisionTimer`. A seat that is absent, or
silent past its deadline, checks or folds (forced bets are always posted). Invalid replies are
refused without changing anything and the seat may answer again while its time lasts. If the
match is cancelled (shutdown) or the dealer fails, the running hand is voided: every committed
chip goes back (docs/house-rules.md §6).
"""

from __future__ import annotations

import json
import logging
import time
from collections.abc import Awaitable, Callable, Iterable
from dataclasses import dataclass, field
from typing import Final

import trio

from arena.engine.actions import ActionKind
from arena.engine.cards import Card, Deck, derive_seed
from arena.engine.errors import ArenaError, MalformedAction
from arena.engine.games import GameCode, max_seats, variant_for
from arena.engine.phhtext import phh_action_lines
from arena.engine.rules import Rules
from arena.engine.state import HandState
from arena.engine.strategy_log import StrategyRecord
from arena.engine.units import mbb_per_hand
from arena.match import messages as m
from arena.match.clock import DecisionClock, Now, clock_reader
from arena.match.explain import explained
from arena.match.faults import BotFault, CloseReason, DecisionClosed, FaultKind
from arena.match.feed import FeedItem, HandFeed, Private
from arena.match.lobby import Lobby, Presence, SeatRef
from arena.match.records import (
    DecisionTimings,
    HandContext,
    MatchSink,
    MatchSummary,
    PlayedHand,
    TableStats,
)
from arena.match.rotation import engine_order, game_for_hand, next_button, rotation_place
from arena.match.spec import AbsentPolicy, MatchSpec
from arena.match.strategy_draw import StrategyDrawer
from arena.match.timer import DecisionTimer

log = logging.getLogger("arena.match")

# What seats that get requests and results only are told besides their own cards (and a
# HandSummary for HandEnded): the rest is in their decision requests.
_RESULTS: Final = (m.MatchStarted, m.DuplicateCopyStarted, m.GameChanged, m.HandStarted,
            m.ShowdownAnnounced, m.HandEnded, m.MatchEnded)


@dataclass(eq=False)
class _HandRun:
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


_ACTED: Final = {ActionKind.CHECK: "checked", ActionKind.FOLD: "folded",
                 ActionKind.BRING_IN: "posted the bring-in"}


def _rounded(seconds: list[float]) -> tuple[float, ...]:
    """A hand's timings as its record keeps them: to 0.1 ms (-1.0, "unknown", stays -1.0).
    Rounded when a sink records the hand, not per decision (a table without a sink never
    reads them)."""
    return tuple([round(x, 4) for x in seconds])


class _NotStarted(Exception):
    def __init__(self, kind: str, absent: list[str]) -> None:
        super().__init__(kind)
        self.kind = kind
        self.absent = tuple(absent)


class LiveTable:
    """One match at one table. Create it, then run :meth:`run` in a nursery."""

    def __init__(self, spec: MatchSpec, lobby: Lobby, *, sink: MatchSink | None = None) -> None:
        most = max_seats(spec.rules.games)  # docs/house-rules.md §20: by the games it deals
        if not 2 <= len(spec.seats) <= most:
            raise ArenaError(f"match {spec.match_id}: a table dealing "
                             f"{', '.join(spec.rules.games)} seats 2 to {most} bots")
        self.spec = spec
        self.rules: Rules = spec.rules
        self.sink = sink
        # A sink may also record every event as sent to each seat (the league's JSONL log) ...
        self._tap: Callable[[int, m.Notice], None] | None = getattr(sink, "event_sent", None)
        # ... with a public event sent to every seat (one object) told once for all seats ...
        self._tap_all: Callable[[m.Notice, int], None] | None = (
            getattr(sink, "event_sent_to_all", None) if self._tap is not None else None)
        # ... and be told every event once, whoever is sent it, as a seat that does not own it
        # sees it (spectators of the live web page).
        self._watch: Callable[[m.Notice], None] | None = getattr(sink, "event_watched", None)
        # ... and be awaited before each hand's first card (the league commits the last hand
        # and marks the next in flight on its writer thread meanwhile).
        self._sink_ready: Callable[[], Awaitable[None]] | None = getattr(sink, "ready", None)
        # ... and once every hand is played, before the match ends (its last hand written): the
        # sink's end then never blocks the dealer's thread, which serves every other table.
        self._sink_settle: Callable[[], Awaitable[None]] | None = getattr(sink, "settle", None)
        self.stats = TableStats()
        self._lobby = lobby
        n = len(spec.seats)
        self._presences: list[Presence] = []
        for seat, seat_spec in enumerate(spec.seats):
            presence = lobby.presence(seat_spec.bot_id)
            presence.seats.append(SeatRef(spec.match_id, seat))
            presence.listeners.append(self._presence_changed)
            self._presences.append(presence)
        self._changed = trio.Event()
        self._connected = [p.is_connected for p in self._presences]
        self._stacks = (list(spec.initial_stacks) if spec.initial_stacks is not None
                        else [spec.rules.starting_stack] * n)
        self._net = [0] * n
        self._hand_nets: list[list[int]] = [[] for _ in range(n)]
        self._bank = [spec.rules.time_bank_seconds] * n
        self._seq = spec.first_sequence
        self._hand: _HandRun | None = None
        self._hands_played = spec.earlier_hands  # a resumed match's result covers the whole match
        for seat, nets in enumerate(spec.earlier_seat_nets[:n]):
            self._net[seat] = sum(nets)
            self._hand_nets[seat] = list(nets)
        self._button_draw: tuple[tuple[int, Card], ...] = ()
        self.summary: MatchSummary | None = None
        self._places: tuple[int, ...] = ()  # MatchSeatResult.place (tournaments)
        self.waiting = False  # True while it waits for its bots before the first hand
        self._timer = DecisionTimer()
        self._now: Now = trio.current_time  # the run's clock_reader() once it runs
        self.postponements = 0  # times this match was put back because bots were missing
        self._drawer = StrategyDrawer(spec.seed, spec.copy_index)  # issue 40

    @property
    def seat_count(self) -> int:
        return len(self.spec.seats)

    def _presence_changed(self) -> None:
        self._changed.set()
        run = self._hand
        for seat, presence in enumerate(self._presences):
            connected = presence.is_connected
            if self._connected[seat] and not connected and run is not None \
                    and seat in run.ctx.order:
                run.disconnects[run.ctx.order.index(seat)] += 1
            self._connected[seat] = connected

    # ------------------------------------------------------------------ running

    async def run(self, *, task_status: trio.TaskStatus[None] = trio.TASK_STATUS_IGNORED
                  ) -> MatchSummary:
        """Play the match; on cancellation void the running hand and end the match aborted."""
        task_status.started()
        self._now = clock_reader()
        reason = "the server is shutting down"
        not_started: _NotStarted | None = None
        try:
            self._timer.start()
            await self._play()
            reason = ""
            await self._settle()
        except _NotStarted as exc:
            not_started = exc
        except Exception as error:  # a dealer bug ends this match only, never the others
            log.exception("match %s failed", self.spec.match_id)
            reason = f"dealer error: {type(error).__name__}: {error}"
        finally:
            self._timer.stop()
            summary = (self._end(reason) if not_started is None
                       else self._end_unstarted(not_started))
        return summary

    async def _play(self) -> None:
        spec = self.spec
        missing = await self._wait_for_seats()
        if missing and spec.absent is not AbsentPolicy.CHECK_FOLD:
            raise _NotStarted("postponed" if spec.absent is AbsentPolicy.WAIT else "forfeited",
                              missing)
        if missing:
            log.info("match %s: dealing without %s (absent = check_fold)", spec.match_id,
                     ", ".join(missing))
        self._publish_each(self._match_started, hand_id="")
        if spec.copies_total > 1:
            self._publish_each(lambda p: m.DuplicateCopyStarted(
                copy_index=spec.copy_index, copies_total=spec.copies_total, deal_set_id=spec.deal_set_id,
                your_seat=p, seats=self._seat_infos()),
                hand_id="")
        previous = ""
        button = -1
        for index in range(spec.hands):
            if index < spec.first_hand:  # resuming: earlier hands are done; move the button on
                everyone = list(range(self.seat_count))
                button = self._draw_button(everyone) if button < 0 else next_button(
                    button, everyone, self.seat_count)
                previous = game_for_hand(self.rules, index, self.seat_count)
                continue
            if self.rules.reset_stacks:
                self._stacks = [self.rules.starting_stack] * self.seat_count
            in_play = [p for p in range(self.seat_count) if self._stacks[p] > 0]
            if len(in_play) < 2:
                break
            eligible = [p for p in in_play if self._presences[p].is_connected] or in_play
            if button < 0 and spec.button_seat is not None:
                button = spec.button_seat  # a tournament seats its tables itself
            else:
                button = self._draw_button(eligible) if button < 0 else next_button(
                    button, eligible, self.seat_count)
            game = game_for_hand(self.rules, index, self.seat_count)
            if game != previous:
                self._publish([m.GameChanged(game=game, previous_game=previous, first_hand_number=index + 1)],
                              hand_id="")
                previous = game
            await self._play_hand(index, game, button, in_play)
        placer = getattr(self.sink, "seat_places", None)  # a tournament hand: places decided
        if placer is not None and self._hands_played:
            self._places = tuple(await placer(tuple(self._stacks)))

    async def _settle(self) -> None:
        """Await the sink's last writes (its ``settle``) before the synchronous end (`_end`, in
        ``run``'s ``finally``, which cannot await): a cancellation meanwhile ends the match as
        played all the same, and the sink's ``match_finished`` waits for them itself."""
        settle = self._sink_settle
        if settle is None:
            return
        try:
            await settle()
        except Exception:  # not the match's fault: every hand is played (the sink waits at its end)
            log.exception("match %s: waiting for the sink's last writes failed", self.spec.match_id)

    def missing_bots(self) -> list[str]:
        """Names of this match's bots that are not connected now."""
        return [seat.name for seat, presence in zip(self.spec.seats, self._presences, strict=True)
                if not presence.is_connected]

    async def _wait_for_seats(self) -> list[str]:
        """Wait up to the start timeout for every bot; the names still missing then."""
        missing = self.missing_bots()
        if missing and not self._quiet_wait():
            log.info("match %s: waiting up to %g s for %s", self.spec.match_id,
                     self.spec.start_timeout_seconds, ", ".join(missing))
        self.waiting = True
        try:
            with trio.move_on_after(self.spec.start_timeout_seconds):
                while not all(p.is_connected for p in self._presences):
                    self._changed = trio.Event()
                    await self._changed.wait()
        finally:
            self.waiting = False
        return self.missing_bots()

    def _draw_button(self, eligible: list[int]) -> int:
        """docs/house-rules.md §2: the highest card of a one-card draw gets the button (suits break ties)."""
        deck = Deck(derive_seed(self.spec.seed, "button"))
        draw = tuple((seat, deck.draw()) for seat in eligible)
        self._button_draw = draw
        return max(draw, key=lambda sc: sc[1])[0]

    # ------------------------------------------------------------------ one hand

    async def _play_hand(self, index: int, game: GameCode, button: int, in_play: list[int]) -> None:
        spec = self.spec
        rules = self.rules
        order = tuple(engine_order(button, in_play))
        entry, in_game = rotation_place(rules, index, self.seat_count)
        per_game = rules.hands_for(entry, self.seat_count)
        hand_id = f"{spec.match_id}-h{index + 1}"
        state = HandState(variant_for(game), [self._stacks[p] for p in order], rules=rules,
                          stakes=rules.stakes_for(entry), seed=derive_seed(spec.seed, "hand", index))
        ctx = HandContext(
            match_id=spec.match_id, hand_id=hand_id, hand_number=index + 1,
            game_hand_number=in_game + 1, hands_per_game=per_game, button_seat=button,
            order=order, names=tuple(s.name for s in spec.seats),
            bot_ids=tuple(s.bot_id for s in spec.seats), table_stacks=tuple(self._stacks),
            rules=rules, deal_id=f"{spec.deal_set_id or spec.match_id}/deal-{index + 1}",
            copy_index=spec.copy_index)
        feed = HandFeed(state, ctx, lambda p: self._presences[p].is_connected)
        n = state.seat_count
        run = _HandRun(index, state, feed, ctx, timeouts=[0] * n, absent=[0] * n,
                       rejected=[0] * n, disconnects=[0] * n, sdk_fallbacks=[0] * n)
        self._hand = run
        if self.sink is not None:
            self.sink.hand_started(spec.match_id, index + 1)
            if self._sink_ready is not None:
                await self._sink_ready()
        self._publish_each(feed.hand_started, hand_id=hand_id)
        self._publish(feed.drain(), hand_id=hand_id)
        while not state.is_over:
            await self._decide(run)
            self._publish(feed.drain(), hand_id=hand_id)
        self._hand = None
        result = state.result
        assert result is not None
        net_chips = result.net_chips  # a property: a new tuple each read
        for e, p in enumerate(order):
            self._stacks[p] = state.stacks[e]
            self._net[p] += net_chips[e]
            self._hand_nets[p].append(net_chips[e])
        self._hands_played += 1
        if self.sink is not None:
            self.sink.hand_finished(self._played_hand(run, void_reason=""))

    async def _decide(self, run: _HandRun) -> None:
        state = run.state
        engine_seat = state.actor
        assert engine_seat is not None
        seat = run.ctx.order[engine_seat]
        presence = self._presences[seat]
        if not presence.is_connected:
            self._act_for(run, engine_seat, m.AutoReason.ABSENT)
            return
        now = self._now()
        clock = DecisionClock(opened_at=now, decision_seconds=self.rules.decision_seconds,
                              bank_seconds=self._bank[seat])
        run.decisions += 1
        prompt = run.feed.prompt(f"{run.ctx.hand_id}-d{run.decisions}", clock, now, run.trigger)
        self.stats.prompts += 1
        decision = self._lobby.open(presence, prompt, clock, self._now)
        replies = decision.replies
        timer = self._timer
        timer.arm(replies)
        closed: CloseReason | None = CloseReason.HAND_STOPPED
        acted: ActionKind | None = None
        try:
            while True:
                reply = await replies.get()
                if reply is None:
                    break
                if self._try_reply(run, engine_seat, reply, clock, presence):
                    closed = None
                    return
            self.stats.lateness_seconds.append(trio.current_time() - clock.deadline)
            self._bank[seat] = 0.0
            reason = m.AutoReason.TIMEOUT if presence.is_connected else m.AutoReason.ABSENT
            acted = self._act_for(run, engine_seat, reason, decision_id=prompt.decision_id)
            closed = CloseReason.TIMEOUT
        finally:
            timer.disarm()
            self._lobby.close(decision, "the seat has acted")
            if closed is not None:
                self._closed(prompt, closed, acted, self._now() - clock.opened_at, presence)
            # Refusals by the lobby count with the table's own (issue 7: counts that add up).
            self.stats.rejected += decision.refused
            run.rejected[engine_seat] += decision.refused

    def _closed(self, prompt: m.Prompt, reason: CloseReason, acted: ActionKind | None,
                open_seconds: float, presence: Presence) -> None:
        """A decision closed without an accepted reply: its bot is told (it drops the work) and
        a timeout is reported as a fault."""
        presence.deliver(DecisionClosed(
            decision_id=prompt.decision_id, match_id=prompt.match_id,
            hand_number=prompt.hand_number, seat=prompt.seat, reason=reason, action=acted,
            open_seconds=open_seconds))
        if reason is CloseReason.TIMEOUT:
            self._lobby.report(BotFault(
                bot_id=presence.bot_id, kind=FaultKind.TIMEOUT, decision_id=prompt.decision_id,
                match_id=prompt.match_id, hand_number=prompt.hand_number, seat=prompt.seat,
                street=prompt.street, seconds=open_seconds,
                detail=f"no answer within {open_seconds:.2f} s; the dealer "
                       f"{_ACTED.get(acted, 'acted') if acted is not None else 'acted'} for the seat"))

    def _try_reply(self, run: _HandRun, engine_seat: int, reply: m.Reply, clock: DecisionClock,
                   presence: Presence) -> bool:
        """Apply a reply if it is legal; otherwise refuse it (the state is unchanged)."""
        state = run.state
        try:
            line = 0  # the PHH line of an SDK fallback's action (DecisionTimings.fault_lines)
            if reply.strategy is not None and not reply.problem:  # issue 40: the dealer draws
                run.strategies.append(self._drawer.apply(state, run.feed, engine_seat, reply,
                                                         run.ctx.hand_number))
                self.stats.strategy_replies += 1
            else:
                if reply.kind is None:
                    raise MalformedAction(reply.problem or "no action")
                raise_to = reply.raise_to_chips if reply.kind is ActionKind.RAISE else None
                run.feed.note_action(reply.decision_id, None)
                line = phh_action_lines(state) + 1 if reply.fallback else 0
                if reply.kind is ActionKind.EXCHANGE:  # docs/house-rules.md §26
                    state.exchange(engine_seat, reply.cards)
                else:
                    state.act(engine_seat, reply.kind, raise_to)
        except ArenaError as exc:
            now = self._now()
            self.stats.rejected += 1
            run.rejected[engine_seat] += 1
            legal = state.legal_actions() if not state.is_over else None
            presence.deliver(m.Rejection(decision_id=reply.decision_id, error=explained(exc, legal,
                                                                                        run.ctx.order),
                                         reply=reply, retry_allowed=True,
                                         time_left_seconds=clock.total_left(now)))
            return False
        if line:
            self.stats.sdk_fallbacks += 1
            run.sdk_fallbacks[engine_seat] += 1
            run.fault_lines.append((line, "fallback"))
        now = self._now()
        seat = run.ctx.order[engine_seat]
        self._bank[seat] = clock.bank_left(now)
        elapsed = now - clock.opened_at
        self.stats.answered += 1
        self.stats.answer_seconds.append(elapsed)
        # Unrounded: only a sink's record of the hand reads them, rounded (``_played_hand``).
        run.action_seconds.append(elapsed)
        run.action_seats.append(engine_seat)
        # A bot's think time is never more than the decision took (issue 7: clamped numbers).
        run.think_seconds.append(min(reply.think_seconds, elapsed)
                                 if reply.think_seconds is not None else -1.0)
        run.wire_seconds.append(reply.wire_seconds if reply.wire_seconds is not None else -1.0)
        run.trigger = reply.received_at or None
        return True

    def _act_for(self, run: _HandRun, engine_seat: int, reason: m.AutoReason,
                 decision_id: str = "") -> ActionKind:
        """docs/house-rules.md §6: check if legal, else fold; a due bring-in is posted. Returns
        the kind."""
        state = run.state
        action = state.legal_actions().default_action()
        run.feed.note_action(decision_id, reason)
        line = phh_action_lines(state) + 1
        if action.kind is ActionKind.EXCHANGE:  # docs/house-rules.md §26: stand pat
            state.exchange(engine_seat, (), automatic=True)
        else:
            state.act(engine_seat, action.kind, action.raise_to_chips, automatic=True)
        if reason is m.AutoReason.TIMEOUT:
            self.stats.timeouts += 1
            run.timeouts[engine_seat] += 1
            run.fault_lines.append((line, "timeout"))
        else:
            self.stats.absent_actions += 1
            run.absent[engine_seat] += 1
            run.fault_lines.append((line, "absent"))
        run.trigger = None
        return action.kind

    # ------------------------------------------------------------------ ending

    def _end(self, reason: str) -> MatchSummary:
        spec = self.spec
        run = self._hand
        if run is not None and not run.feed.ended:
            why = reason or "the hand could not be finished"
            self._publish([run.feed.voided(why)], hand_id=run.ctx.hand_id)
            if self.sink is not None:
                self.sink.hand_finished(self._played_hand(run, void_reason=why))
        self._hand = None
        results = tuple(self._seat_result(p) for p in range(self.seat_count))
        revealed = str(spec.seed) if spec.reveal_seed and not reason else ""
        self._publish([m.MatchEnded(results=results, match_seed=revealed, hands_played=self._hands_played,
                                    aborted=bool(reason),
                                    abort_reason=reason)], hand_id="")
        summary = MatchSummary(spec.match_id, spec.seed, self._hands_played, results,
                               bool(reason), reason, self._button_draw, self.stats)
        self.summary = summary
        self._count_replies_to_no_decision()
        self._release_seats()
        if self.sink is not None:
            self.sink.match_finished(summary)
        return summary

    def _end_unstarted(self, why: _NotStarted) -> MatchSummary:
        """No hand was dealt (and the bots were told nothing): postponed or forfeited."""
        spec = self.spec
        names = ", ".join(why.absent)
        reason = (f"postponed: {names} not connected after {spec.start_timeout_seconds:g} s"
                  if why.kind == "postponed" else f"forfeited: {names} not connected after "
                                                  f"{spec.start_timeout_seconds:g} s")
        if not self._quiet_wait():
            log.info("match %s %s%s", spec.match_id, reason,
                     f" ({self.postponements + 1} times)" if self.postponements else "")
        results = tuple(self._seat_result(p) for p in range(self.seat_count))
        summary = MatchSummary(spec.match_id, spec.seed, 0, results, True, reason, (), self.stats,
                               not_started=why.kind, absent_bots=why.absent)
        self.summary = summary
        self._count_replies_to_no_decision()
        self._release_seats()
        if self.sink is not None and not summary.postponed:  # a postponed match comes back
            self.sink.match_finished(summary)
        return summary

    def _count_replies_to_no_decision(self) -> None:
        """Refusals of replies to no open decision count in the match's results too."""
        refused = self._lobby.refused_unknown_by_match.pop(self.spec.match_id, 0)
        self.stats.rejected_no_open_decision += refused

    def _release_seats(self) -> None:
        for seat, presence in enumerate(self._presences):
            if self._presence_changed in presence.listeners:
                presence.listeners.remove(self._presence_changed)
            ref = SeatRef(self.spec.match_id, seat)
            if ref in presence.seats:
                presence.seats.remove(ref)

    def again(self) -> LiveTable:
        """A fresh table for the same match and sink (after a postponement)."""
        table = LiveTable(self.spec, self._lobby, sink=self.sink)
        table.postponements = self.postponements + 1
        return table

    def _quiet_wait(self) -> bool:
        """Repeated waits are logged the first time and then every tenth time only."""
        return self.postponements % 10 != 0

    def _seat_result(self, seat: int) -> m.MatchSeatResult:
        nets = self._hand_nets[seat]
        mean, ci = mbb_per_hand(nets, self.rules.stakes.small_bet)
        spec = self.spec.seats[seat]
        return m.MatchSeatResult(seat=seat, name=spec.name, bot_id=spec.bot_id, net_chips=self._net[seat],
                                 hands_played=len(nets), mbb_per_hand=mean,
                                 mbb_per_hand_ci95=ci, final_stack_chips=self._stacks[seat],
                                 place=self._places[seat] if seat < len(self._places) else 0)

    @staticmethod
    def _played_hand(run: _HandRun, *, void_reason: str) -> PlayedHand:
        timings = DecisionTimings(
            action_seconds=_rounded(run.action_seconds), wire_seconds=_rounded(run.wire_seconds),
            think_seconds=_rounded(run.think_seconds), timeouts=tuple(run.timeouts),
            absent=tuple(run.absent), action_seats=tuple(run.action_seats),
            rejected=tuple(run.rejected), disconnects=tuple(run.disconnects),
            sdk_fallbacks=tuple(run.sdk_fallbacks), fault_lines=tuple(run.fault_lines))
        return PlayedHand(run.ctx, run.state, timings, void_reason, tuple(run.strategies))

    # ------------------------------------------------------------------ telling the seats

    def _seat_infos(self) -> tuple[m.SeatInfo, ...]:
        """Every seat with its name, bot and starting stack, before the first hand."""
        return tuple(m.SeatInfo(seat=p, name=s.name, bot_id=s.bot_id,
                                stack_chips=self.rules.starting_stack, bet_chips=0,
                                committed_chips=0, up_cards=(), hole_card_count=0,
                                status=m.SeatStatus.ACTIVE if self._presences[p].is_connected
                                else m.SeatStatus.ABSENT)
                     for p, s in enumerate(self.spec.seats))

    def _match_started(self, viewer: int) -> m.MatchStarted:
        rules = self.rules
        per_game = rules.hands_per_game or self.seat_count
        rules_text = {k: json.dumps(v, separators=(",", ":"))
                      for k, v in rules.to_mapping().items()}
        return m.MatchStarted(seats=self._seat_infos(), your_seat=viewer, games=rules.games,
                              hands_per_game=per_game, total_hands=self.spec.hands,
                              stakes=rules.stakes, starting_stack_chips=rules.starting_stack,
                              decision_seconds=rules.decision_seconds,
                              time_bank_seconds=rules.time_bank_seconds, rules=rules_text,
                              duplicate_copies=self.spec.copies_total,
                              tournament=self.spec.tournament)

    def _next_notice(self, hand_id: str, payload: m.Payload) -> m.Notice:
        self._seq += 1
        return m.Notice(match_id=self.spec.match_id, hand_id=hand_id, sequence=self._seq,
                        unix_seconds=time.time(), payload=payload)

    def _publish(self, items: Iterable[FeedItem], *, hand_id: str) -> None:
        """Send each seat the items it is sent, and tell the tap what each seat was sent (the
        event log: as sent) and the watcher every item. Seats that get requests and results
        only are sent only the events of ``_RESULTS``, their own cards and, for the hand's
        end, a ``HandSummary``; an item that no seat is sent and nobody watches is only
        numbered."""
        presences = self._presences
        tap = self._tap
        tap_all = self._tap_all
        watch = self._watch
        told_all: bool | None = None  # whether every seat gets every event (computed once)
        told_any = False  # ... whether some seat does
        for item in items:
            if isinstance(item, Private):
                own = self._next_notice(hand_id, item.own)
                others: m.Notice | None = None  # made once a seat or the watcher needs it
                for seat, presence in enumerate(presences):
                    if seat == item.seat:
                        sent = own
                    elif presence.every_event:
                        if others is None:
                            others = m.Notice(match_id=own.match_id, hand_id=hand_id, sequence=own.sequence,
                                              unix_seconds=own.unix_seconds, payload=item.others)
                        sent = others
                    else:
                        continue  # requests and results only: not sent another's cards
                    presence.deliver(sent)
                    if tap is not None:
                        tap(seat, sent)
                if watch is not None:
                    watch(others if others is not None else m.Notice(
                        match_id=own.match_id, hand_id=hand_id, sequence=own.sequence,
                        unix_seconds=own.unix_seconds, payload=item.others))
                continue
            ended = item if isinstance(item, m.HandEnded) else None
            wanted = ended is None and isinstance(item, _RESULTS)  # sent to every seat
            if told_all is None:
                told_all = all(p.every_event for p in presences)
                told_any = any(p.every_event for p in presences)
            if not (wanted or told_any or ended is not None or watch is not None):
                self._seq += 1  # nobody is sent it (requests-only seats): numbered all the same
                continue
            notice = self._next_notice(hand_id, item)
            if watch is not None:
                watch(notice)
            if wanted or told_all:
                for presence in presences:
                    presence.deliver(notice)
                if tap_all is not None:
                    tap_all(notice, len(presences))
                elif tap is not None:
                    for seat in range(len(presences)):
                        tap(seat, notice)
                continue
            summary: m.Notice | None = None
            for seat, presence in enumerate(presences):
                if presence.every_event:
                    sent = notice
                elif ended is not None:
                    if summary is None:
                        summary = self._summary(notice, ended)
                    sent = summary
                else:
                    continue  # requests and results only
                presence.deliver(sent)
                if tap is not None:
                    tap(seat, sent)

    def _summary(self, notice: m.Notice, ended: m.HandEnded) -> m.Notice:
        """The hand's end with its public record, for seats that get requests and results."""
        run = self._hand
        if run is None:
            return notice
        feed = run.feed
        payload = m.HandSummary(results=ended.results, awards=ended.awards, voided=ended.voided,
                                void_reason=ended.void_reason,
                                went_to_showdown=ended.went_to_showdown, actions=tuple(feed.records),
                                board=tuple(run.state.board), seats=feed.seat_infos())
        return m.Notice(match_id=notice.match_id, hand_id=notice.hand_id, sequence=notice.sequence,
                        unix_seconds=notice.unix_seconds,
                        payload=payload)

    def _publish_each(self, payload_for: Callable[[int], m.Payload], *, hand_id: str) -> None:
        """One event with a different payload per seat (``payload_for(seat)``)."""
        self._seq += 1
        wall = time.time()
        for seat, presence in enumerate(self._presences):
            notice = m.Notice(match_id=self.spec.match_id, hand_id=hand_id, sequence=self._seq,
                              unix_seconds=wall, payload=payload_for(seat))
            presence.deliver(notice)
            if self._tap is not None:
                self._tap(seat, notice)
            if seat == 0 and self._watch is not None:
                self._watch(notice)  # the watcher is told an event once: seat 0's copy
