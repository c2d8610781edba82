"""The live table runner: one trio task per match, and one timer for its decisions' deadlines.

A :class:`LiveTable` deals the hands of one match to the bots of a :class:`~arena.match.lobby.Lobby`.
Its decisions are opened and closed by a :class:`~arena.match.decide.DecisionDesk` (deadlines,
refusals, acting for absent or silent seats: docs/house-rules.md §6) and its events sent by a
:class:`~arena.match.publish.SeatPublisher`. If the match is cancelled (shutdown) or the dealer
fails, the running hand is voided: every committed chip goes back (docs/house-rules.md §6).
"""

from __future__ import annotations

import json
import logging
from collections.abc import Awaitable, Callable

import trio

from arena.engine.cards import Card, Deck, derive_seed
from arena.engine.errors import ArenaError
from arena.engine.games import max_seats, variant_for
from arena.engine.rules import Rules
from arena.engine.state import HandState
from arena.engine.units import mbb_per_hand
from arena.match import messages as m
from arena.match.choose import ChoiceDesk
from arena.match.clock import clock_reader
from arena.match.decide import DecisionDesk
from arena.match.feed import HandFeed
from arena.match.hand_run import HandRun, played_hand
from arena.match.lobby import Lobby, Presence, SeatRef
from arena.match.orbits import OrbitChooser
from arena.match.publish import SeatPublisher
from arena.match.records import HandContext, MatchSink, MatchSummary, TableStats
from arena.match.rotation import engine_order, game_for_hand, next_button, rotation_place
from arena.match.spec import AbsentPolicy, MatchSpec
from arena.match.strategy_draw import StrategyDrawer

log = logging.getLogger("arena.match")


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
        if spec.rules.dealers_choice and spec.copies_total > 1:  # docs/house-rules.md §28
            raise ArenaError(f"match {spec.match_id}: dealer's choice cannot be dealt as "
                             f"duplicate copies (each copy's chooser is another bot)")
        self.spec = spec
        self.rules: Rules = spec.rules
        self.sink = sink
        # A sink may record every event as sent (``SeatPublisher``) ...
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
        self._hand: HandRun | None = None
        self._hands_played = spec.earlier_hands  # a resumed match's result covers the whole match
        for seat, nets in enumerate(spec.earlier_seat_nets[:n]):
            self._net[seat] = sum(nets)
            self._hand_nets[seat] = list(nets)
        self._button_draw: tuple[tuple[int, Card], ...] = ()
        self.summary: MatchSummary | None = None
        self._places: tuple[int, ...] = ()  # MatchSeatResult.place (tournaments)
        self.waiting = False  # True while it waits for its bots before the first hand
        self.postponements = 0  # times this match was put back because bots were missing
        self._desk = DecisionDesk(rules=spec.rules, lobby=lobby, presences=self._presences,
                                  bank=self._bank, stats=self.stats,
                                  drawer=StrategyDrawer(spec.seed, spec.copy_index))
        self._herald = SeatPublisher(match_id=spec.match_id, presences=self._presences, sink=sink,
                                     first_sequence=spec.first_sequence,
                                     current_hand=lambda: self._hand)
        self._publish = self._herald.publish
        self._publish_each = self._herald.publish_each
        self._orbits = OrbitChooser(  # dealer's choice (docs/house-rules.md §28)
            ChoiceDesk(match_id=spec.match_id, rules=spec.rules, lobby=lobby,
                       presences=self._presences, stats=self.stats, timer=self._desk.timer,
                       drawer=self._desk.drawer),
            seat_count=n, publish=lambda item: self._publish([item], hand_id=""),
            now=lambda: self._desk.now())

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
        self._desk.now = clock_reader()
        reason = "the server is shutting down"
        not_started: _NotStarted | None = None
        try:
            self._desk.timer.start()
            await self._play()
            reason = ""
            await self._settle()
        except _NotStarted as exc:
            not_started = exc
        except Exception as error:  # a dealer bug ends this match only, never the others
            log.exception("match %s failed", self.spec.match_id)
            reason = f"dealer error: {type(error).__name__}: {error}"
        finally:
            self._desk.timer.stop()
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
                your_seat=p, seats=self._table_seats(before_hands=True)),
                hand_id="")
        previous = ""
        button = -1
        for index in range(spec.hands):
            if index < spec.first_hand:  # resuming: earlier hands are done; move the button on
                everyone = list(range(self.seat_count))
                button = self._draw_button(everyone) if button < 0 else next_button(
                    button, everyone, self.seat_count)
                if self.rules.dealers_choice:  # §28: the choice moves on with every orbit
                    self._orbits.skip(index, button, everyone)
                else:
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
            if self.rules.dealers_choice:  # docs/house-rules.md §28
                place = await self._orbits.place(index, button, in_play, self._table_seats(),
                                                 spec.hands - index)
            else:
                entry, in_game = rotation_place(self.rules, index, self.seat_count)
                place = (entry, in_game, self.rules.hands_for(entry, self.seat_count))
                game = self.rules.games[entry]
                if game != previous:
                    self._publish([m.GameChanged(game=game, previous_game=previous,
                                                 first_hand_number=index + 1)], hand_id="")
                    previous = game
            await self._play_hand(index, place, button, in_play)
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

    async def _play_hand(self, index: int, place: tuple[int, int, int], button: int,
                         in_play: list[int]) -> None:
        """Deal hand ``index`` (from 0); ``place``: its game's entry in `games`, its number
        (from 0) among that game's hands in a row, and how many those are."""
        spec = self.spec
        rules = self.rules
        order = tuple(engine_order(button, in_play))
        entry, in_game, per_game = place
        game = rules.games[entry]
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
        run = HandRun(index, state, feed, ctx, timeouts=[0] * n, absent=[0] * n,
                       rejected=[0] * n, disconnects=[0] * n, sdk_fallbacks=[0] * n)
        self._hand = run
        if self.sink is not None:
            self.sink.hand_started(spec.match_id, index + 1)
            if self._sink_ready is not None:
                await self._sink_ready()
        self._publish_each(feed.hand_started, hand_id=hand_id)
        self._publish(feed.drain(), hand_id=hand_id)
        while not state.is_over:
            await self._desk.decide(run)
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
            self.sink.hand_finished(played_hand(run, void_reason=""))

    # ------------------------------------------------------------------ ending

    def _end(self, reason: str) -> MatchSummary:
        spec = self.spec
        run = self._hand
        if run is not None and not run.feed.ended:
            why = reason or "the hand could not be finished"
            self._publish([run.feed.voided(why)], hand_id=run.ctx.hand_id)
            if self.sink is not None:
                self.sink.hand_finished(played_hand(run, void_reason=why))
        self._hand = None
        results = tuple(self._seat_result(p) for p in range(self.seat_count))
        revealed = str(spec.seed) if spec.reveal_seed and not reason else ""
        self._publish([m.MatchEnded(results=results, match_seed=revealed, hands_played=self._hands_played,
                                    aborted=bool(reason),
                                    abort_reason=reason)], hand_id="")
        return self._ended(MatchSummary(spec.match_id, spec.seed, self._hands_played, results,
                                        bool(reason), reason, self._button_draw, self.stats))

    def _end_unstarted(self, why: _NotStarted) -> MatchSummary:
        """No hand was dealt (and the bots were told nothing): postponed or forfeited."""
        spec = self.spec
        reason = (f"{why.kind}: {', '.join(why.absent)} not connected after "
                  f"{spec.start_timeout_seconds:g} s")
        if not self._quiet_wait():
            log.info("match %s %s%s", spec.match_id, reason,
                     f" ({self.postponements + 1} times)" if self.postponements else "")
        results = tuple(self._seat_result(p) for p in range(self.seat_count))
        return self._ended(MatchSummary(spec.match_id, spec.seed, 0, results, True, reason, (),
                                        self.stats, not_started=why.kind, absent_bots=why.absent))

    def _ended(self, summary: MatchSummary) -> MatchSummary:
        """The match's end: refusals of replies to no open decision counted in its results, its
        seats released, and its sink told (unless postponed: a postponed match comes back)."""
        self.summary = summary
        self.stats.rejected_no_open_decision += self._lobby.refused_unknown_by_match.pop(
            self.spec.match_id, 0)
        for seat, presence in enumerate(self._presences):
            if self._presence_changed in presence.listeners:
                presence.listeners.remove(self._presence_changed)
            ref = SeatRef(self.spec.match_id, seat)
            if ref in presence.seats:
                presence.seats.remove(ref)
        if self.sink is not None and not summary.postponed:
            self.sink.match_finished(summary)
        return summary

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

    # ------------------------------------------------------------------ telling the seats

    def _table_seats(self, *, before_hands: bool = False) -> tuple[m.SeatInfo, ...]:
        """Every seat with its stack now, between hands (a dealer's-choice request's seats), or
        ``before_hands`` with the starting stack."""
        stacks = [self.rules.starting_stack] * self.seat_count if before_hands else self._stacks
        return tuple(m.SeatInfo(seat=p, name=s.name, bot_id=s.bot_id,
                                stack_chips=stacks[p], bet_chips=0, committed_chips=0,
                                up_cards=(), hole_card_count=0,
                                status=m.SeatStatus.OUT if stacks[p] <= 0
                                else m.SeatStatus.ACTIVE if self._presences[p].is_connected
                                else m.SeatStatus.ABSENT)
                     for p, s in enumerate(self.spec.seats))

    def _match_started(self, viewer: int) -> m.MatchStarted:
        rules = self.rules
        per_game = rules.hands_per_game or self.seat_count
        rules_text = {k: json.dumps(v, separators=(",", ":"))
                      for k, v in rules.to_mapping().items()}
        return m.MatchStarted(seats=self._table_seats(before_hands=True), your_seat=viewer, games=rules.games,
                              hands_per_game=per_game, total_hands=self.spec.hands,
                              stakes=rules.stakes, starting_stack_chips=rules.starting_stack,
                              decision_seconds=rules.decision_seconds,
                              time_bank_seconds=rules.time_bank_seconds, rules=rules_text,
                              duplicate_copies=self.spec.copies_total,
                              tournament=self.spec.tournament)

