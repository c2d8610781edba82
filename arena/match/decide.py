"""The decisions of a live table: a request with its clock, the replies applied or refused, and
the dealer acting for a seat that is absent or silent past its deadline (docs/house-rules.md §6).

Every decision waits until its deadline: the decision time plus the seat's time bank, kept by the
table's :class:`~arena.match.timer.DecisionTimer`. Invalid replies are refused without changing
anything and the seat may answer again while its time lasts.
"""

from __future__ import annotations

from typing import Final

import trio

from arena.engine.actions import ActionKind
from arena.engine.errors import ArenaError, MalformedAction
from arena.engine.phhtext import phh_next_line
from arena.engine.rules import Rules
from arena.match import messages as m
from arena.match.clock import DecisionClock, Now
from arena.match.explain import explained
from arena.match.faults import CloseReason
from arena.match.hand_run import HandRun
from arena.match.lobby import Lobby, Presence
from arena.match.records import TableStats
from arena.match.strategy_draw import StrategyDrawer
from arena.match.timer import DecisionTimer

_ACTED: Final = {ActionKind.CHECK: "checked", ActionKind.FOLD: "folded",
                 ActionKind.BRING_IN: "posted the bring-in"}


class DecisionDesk:
    """Opens one table's decisions and closes them. ``bank`` is the table's time bank per
    seat (shared, updated here); ``now`` is set to the run's clock reader once it runs."""

    def __init__(self, *, rules: Rules, lobby: Lobby, presences: list[Presence],
                 bank: list[float], stats: TableStats, drawer: StrategyDrawer) -> None:
        self.rules = rules
        self._lobby = lobby
        self._presences = presences
        self._bank = bank
        self.stats = stats
        self.drawer = drawer
        self.timer = DecisionTimer()
        self.now: Now = trio.current_time  # the run's clock_reader() once it runs

    async def decide(self, run: HandRun) -> None:
        """The hand's next decision, answered by its seat or taken for it."""
        state = run.state
        engine_seat = state.actor
        assert engine_seat is not None
        seat = run.ctx.order[engine_seat]
        presence = self._presences[seat]
        if not presence.is_connected:
            self.act_for(run, engine_seat, m.AutoReason.ABSENT)
            return
        now = self.now()
        clock = DecisionClock(opened_at=now, decision_seconds=self.rules.decision_seconds,
                              bank_seconds=self._bank[seat])
        run.decisions += 1
        prompt = run.feed.prompt(f"{run.ctx.hand_id}-d{run.decisions}", clock, now, run.trigger)
        self.stats.prompts += 1
        decision = self._lobby.open(presence, prompt, clock, self.now)
        replies = decision.replies
        timer = self.timer
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
            acted = self.act_for(run, engine_seat, reason, decision_id=prompt.decision_id)
            closed = CloseReason.TIMEOUT
        finally:
            timer.disarm()
            self._lobby.close(decision, "the seat has acted")
            if closed is not None:
                open_seconds = self.now() - clock.opened_at
                self._lobby.closed_unanswered(
                    presence, prompt, closed, acted, open_seconds, timeout_detail=(
                        f"no answer within {open_seconds:.2f} s; the dealer "
                        f"{_ACTED.get(acted, 'acted') if acted is not None else 'acted'} for the "
                        "seat" if closed is CloseReason.TIMEOUT else ""))
            # Refusals by the lobby count with the table's own (issue 7: counts that add up).
            self.stats.rejected += decision.refused
            run.rejected[engine_seat] += decision.refused

    def _try_reply(self, run: HandRun, engine_seat: int, reply: m.Reply, clock: DecisionClock,
                   presence: Presence) -> bool:
        """Apply a reply if it is legal; otherwise refuse it (the state is unchanged)."""
        state = run.state
        try:
            line = 0  # the PHH line of an SDK fallback's action (DecisionTimings.fault_lines)
            if reply.strategy is not None and not reply.problem:  # issue 40: the dealer draws
                run.strategies.append(self.drawer.apply(state, run.feed, engine_seat, reply,
                                                         run.ctx.hand_number))
                self.stats.strategy_replies += 1
            else:
                if reply.kind is None:
                    raise MalformedAction(reply.problem or "no action")
                raise_to = reply.raise_to_chips if reply.kind is ActionKind.RAISE else None
                run.feed.note_action(reply.decision_id, None)
                line = phh_next_line(state) if reply.fallback else 0
                if reply.kind is ActionKind.EXCHANGE:  # docs/house-rules.md §26
                    state.exchange(engine_seat, reply.cards)
                else:
                    state.act(engine_seat, reply.kind, raise_to)
        except ArenaError as exc:
            now = self.now()
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
        now = self.now()
        seat = run.ctx.order[engine_seat]
        self._bank[seat] = clock.bank_left(now)
        elapsed = now - clock.opened_at
        self.stats.answered += 1
        self.stats.answer_seconds.append(elapsed)
        # Unrounded: only a sink's record of the hand reads them, rounded (``played_hand``).
        run.action_seconds.append(elapsed)
        run.action_seats.append(engine_seat)
        # A bot's think time is never more than the decision took (issue 7: clamped numbers).
        run.think_seconds.append(min(reply.think_seconds, elapsed)
                                 if reply.think_seconds is not None else -1.0)
        run.wire_seconds.append(reply.wire_seconds if reply.wire_seconds is not None else -1.0)
        run.trigger = reply.received_at or None
        return True

    def act_for(self, run: HandRun, engine_seat: int, reason: m.AutoReason,
                decision_id: str = "") -> ActionKind:
        """docs/house-rules.md §6: check if legal, else fold; a due bring-in is posted. Returns
        the kind."""
        state = run.state
        action = state.legal_actions().default_action()
        run.feed.note_action(decision_id, reason)
        line = phh_next_line(state)
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
