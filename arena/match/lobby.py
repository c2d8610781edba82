"""Who is connected, which seats each bot holds, and which decisions are open (trio side).

The transport calls :meth:`Lobby.attach`, :meth:`Lobby.detach` and :meth:`Lobby.submit` from
inside trio (through the asyncio/trio bridge); tests call them directly. None of them blocks.
"""

from __future__ import annotations

import dataclasses
import math
import time
from collections import Counter, deque
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Final

import trio

from arena.engine.actions import ActionKind
from arena.engine.errors import ArenaError, IllegalAction, MalformedInput, StaleDecision
from arena.match.clock import DecisionClock, Now
from arena.match.faults import BotFault, CloseReason, DecisionClosed, FaultKind
from arena.match.messages import Outbox, Outgoing, Prompt, Rejection, Reply, WrongSeat

REPLY_BUFFER: Final = 8  # replies queued for one open decision; more in a burst are refused
MAX_DECISION_ID_CHARS: Final = 128  # the dealer's ids are far shorter; longer ones are never echoed


@dataclass(frozen=True, slots=True)
class SeatRef:
    match_id: str
    seat: int


class ReplyBox:
    """The replies queued for one open decision: bounded, never blocks the sender.

    A reply that arrives once the decision's ``deadline`` has passed (or after
    :meth:`expire`) is late: it is kept to be refused at :meth:`close`, never read.
    """

    __slots__ = ("_late", "_now", "_replies", "_waiter", "closed", "deadline", "expired")

    def __init__(self, deadline: float = math.inf, now: Now = trio.current_time) -> None:
        self._replies: deque[Reply] = deque()
        self._late: list[Reply] = []
        self._waiter: trio.lowlevel.Task | None = None  # the table's task, parked in get()
        self.closed = False
        self.deadline = deadline
        self.expired = False
        self._now = now  # the table's clock (clock_reader's: the same times, fewer calls)

    def put(self, reply: Reply) -> bool:
        if self.closed or len(self._replies) + len(self._late) >= REPLY_BUFFER:
            return False
        if self.expired or self._now() >= self.deadline:
            self.expire()
            self._late.append(reply)
            return True
        self._replies.append(reply)
        self._wake()
        return True

    def expire(self) -> None:
        """The deadline has passed: replies queued before it are still read, then None."""
        self.expired = True
        self._wake()

    async def get(self) -> Reply | None:
        """The next reply in time, or None once the deadline has passed and none is left."""
        while not self._replies:
            if self.expired:
                return None
            # Parked by hand: a trio.Event (and its parking lot) per wait costs more.
            self._waiter = trio.lowlevel.current_task()
            await trio.lowlevel.wait_task_rescheduled(self._abort)
        return self._replies.popleft()

    def _wake(self) -> None:
        task = self._waiter
        if task is not None:
            self._waiter = None
            trio.lowlevel.reschedule(task)

    def _abort(self, _raise_cancel: object) -> trio.lowlevel.Abort:
        self._waiter = None  # cancelled while parked (the match is being cancelled)
        return trio.lowlevel.Abort.SUCCEEDED

    def close(self) -> list[Reply]:
        """Stop taking replies; returns those never read (late ones last)."""
        self.closed = True
        left = [*self._replies, *self._late]
        self._replies.clear()
        self._late.clear()
        return left


@dataclass(eq=False, slots=True, kw_only=True)
class OpenDecision:
    """A decision waiting for its seat's reply (one per decision)."""

    decision_id: str
    seat: int  # the table seat asked
    prompt: Prompt  # the request as first sent
    clock: DecisionClock
    presence: Presence  # the bot's presence at this table
    replies: ReplyBox = field(default_factory=ReplyBox)
    refused: int = 0  # replies to it the lobby refused (wrong seat, too many, stale at close)

    def refreshed_prompt(self) -> Prompt:
        """The prompt with its time fields as of now (for a re-send after a reconnect)."""
        now = trio.current_time()
        wall = time.time()
        return dataclasses.replace(
            self.prompt,
            decision_time_left_seconds=self.clock.decision_left(now),
            time_bank_left_seconds=self.clock.bank_left(now),
            deadline_unix_seconds=wall + self.clock.total_left(now),
            sent_unix_seconds=wall,
            trigger_received_at=None,
        )


@dataclass(eq=False)
class Presence:
    """One bot: its connection's outbox (None while absent), its seats and open decisions."""

    bot_id: str
    outbox: Outbox | None = None
    # False: the connected bot asked for requests and results only (its outbox's
    # ``every_event``); the tables then leave out the events its requests repeat.
    every_event: bool = True
    seats: list[SeatRef] = field(default_factory=list)
    open: dict[str, OpenDecision] = field(default_factory=dict)
    listeners: list[Callable[[], None]] = field(default_factory=list)
    # Told of every refused reply (bot id, error), for metrics; shared by the lobby's presences.
    rejection_observers: list[Callable[[str, ArenaError], None]] = field(default_factory=list)
    # Told of every fault (rejections here; timeouts and fallbacks by the table and the
    # transport), with hand and seat; shared by the lobby's presences (:meth:`Lobby.report`).
    fault_observers: list[Callable[[BotFault], None]] = field(default_factory=list)

    @property
    def is_connected(self) -> bool:
        return self.outbox is not None

    def deliver(self, item: Outgoing) -> None:
        if isinstance(item, Rejection):
            for observer in self.rejection_observers:
                observer(self.bot_id, item.error)
            if self.fault_observers:
                self._rejected(item)
        if self.outbox is not None:
            self.outbox.deliver(item)

    def _rejected(self, item: Rejection) -> None:
        decision = self.open.get(item.decision_id)
        prompt = decision.prompt if decision is not None else None
        fault = BotFault(
            bot_id=self.bot_id, kind=FaultKind.REJECTED, decision_id=item.decision_id,
            match_id=prompt.match_id if prompt is not None else "",
            hand_number=prompt.hand_number if prompt is not None else 0,
            seat=prompt.seat if prompt is not None else -1,
            street=prompt.street if prompt is not None else "", detail=str(item.error))
        for observer in self.fault_observers:
            observer(fault)

    def _changed(self) -> None:
        for listener in self.listeners:
            listener()


class Lobby:
    """All bots known to the running tables, by bot id."""

    def __init__(self) -> None:
        self._bots: dict[str, Presence] = {}
        self.rejection_observers: list[Callable[[str, ArenaError], None]] = []
        # Told of every fault of every bot, with hand and seat (:class:`BotFault`).
        self.fault_observers: list[Callable[[BotFault], None]] = []
        # Told of every decision opened (spectators: whose turn, the clock; never the cards).
        self.decision_observers: list[Callable[[Prompt], None]] = []
        # Replies to no open decision, per bot (metrics) and per match (its results): the
        # match the decision id names if the bot sits there, else the bot's first seated match.
        self.refused_unknown: Counter[str] = Counter()
        self.refused_unknown_by_match: Counter[str] = Counter()

    def presence(self, bot_id: str) -> Presence:
        found = self._bots.get(bot_id)
        if found is None:
            found = self._bots[bot_id] = Presence(bot_id,
                                                  rejection_observers=self.rejection_observers,
                                                  fault_observers=self.fault_observers)
        return found

    def report(self, fault: BotFault) -> None:
        """Tell the fault observers of a timeout or a fallback."""
        for observer in self.fault_observers:
            observer(fault)

    def closed_unanswered(self, presence: Presence, prompt: Prompt, reason: CloseReason,
                          action: ActionKind | None, open_seconds: float, *,
                          timeout_detail: str = "") -> None:
        """A decision closed without an accepted reply: its bot is told (it drops the work)
        and, given the ``timeout_detail``, a timeout is reported as a fault."""
        presence.deliver(DecisionClosed(
            decision_id=prompt.decision_id, match_id=prompt.match_id,
            hand_number=prompt.hand_number, seat=prompt.seat, reason=reason, action=action,
            open_seconds=open_seconds))
        if timeout_detail:
            self.report(BotFault(
                bot_id=presence.bot_id, kind=FaultKind.TIMEOUT, decision_id=prompt.decision_id,
                match_id=prompt.match_id, hand_number=prompt.hand_number, seat=prompt.seat,
                street=prompt.street, seconds=open_seconds, detail=timeout_detail))

    def open_prompt(self, bot_id: str, decision_id: str) -> Prompt | None:
        """The request of a bot's decision while it is open (None once closed or unknown)."""
        presence = self._bots.get(bot_id)
        decision = presence.open.get(decision_id) if presence is not None else None
        return decision.prompt if decision is not None else None

    def seats_of(self, bot_id: str) -> list[SeatRef]:
        found = self._bots.get(bot_id)
        return list(found.seats) if found is not None else []

    # ------------------------------------------------------------------ connections

    def attach(self, bot_id: str, outbox: Outbox) -> None:
        """A bot (re)connected: its seats are live again and open decisions are re-sent."""
        presence = self.presence(bot_id)
        presence.outbox = outbox
        presence.every_event = bool(getattr(outbox, "every_event", True))
        for decision in presence.open.values():
            outbox.deliver(decision.refreshed_prompt())
        presence._changed()

    def detach(self, bot_id: str, outbox: Outbox) -> None:
        """A connection ended; ignored if the bot has since reconnected on another one."""
        presence = self._bots.get(bot_id)
        if presence is not None and presence.outbox is outbox:
            presence.outbox = None
            presence._changed()

    # ------------------------------------------------------------------ decisions

    def open(self, presence: Presence, prompt: Prompt, clock: DecisionClock,
             now: Now = trio.current_time) -> OpenDecision:
        """``now``: the table's clock, for the replies' box (the clock :func:`clock_reader`
        gives, or trio's own)."""
        decision = OpenDecision(decision_id=prompt.decision_id, seat=prompt.seat, prompt=prompt,
                                clock=clock, presence=presence,
                                replies=ReplyBox(clock.deadline, now))
        presence.open[prompt.decision_id] = decision
        presence.deliver(prompt)
        for observer in self.decision_observers:
            observer(prompt)
        return decision

    def close(self, decision: OpenDecision, reason: str) -> None:
        """Forget a decision; replies still queued for it are refused as stale."""
        decision.presence.open.pop(decision.decision_id, None)
        for reply in decision.replies.close():
            decision.refused += 1
            decision.presence.deliver(_stale(reply, reason))

    def submit(self, bot_id: str, reply: Reply) -> None:
        """Route a reply to its open decision, or refuse it at once."""
        presence = self._bots.get(bot_id)
        if presence is None:
            return
        if len(reply.decision_id) > MAX_DECISION_ID_CHARS:
            self._refuse_malformed_id(presence, reply)
            return
        decision = presence.open.get(reply.decision_id)
        if decision is None:
            self.refused_unknown[bot_id] += 1
            match_id = _match_named(presence, reply.decision_id)
            if match_id is not None:
                self.refused_unknown_by_match[match_id] += 1
            presence.deliver(_stale(reply, "it is not open (answered, timed out or unknown)"))
            return
        if reply.seat != decision.seat:
            error: ArenaError = WrongSeat(f"decision {reply.decision_id} is for seat "
                                          f"{decision.seat}, not seat {reply.seat}")
        elif not decision.replies.put(reply):
            error = IllegalAction(f"too many replies to decision {reply.decision_id} at once")
        else:
            return
        decision.refused += 1
        presence.deliver(Rejection(decision_id=reply.decision_id, error=error, reply=reply,
                                   retry_allowed=True,
                                   time_left_seconds=decision.clock.total_left(trio.current_time())))

    def _refuse_malformed_id(self, presence: Presence, reply: Reply) -> None:
        """A reply whose decision id is too long to be the dealer's: it names no open decision,
        so it counts as the replies to none do (per bot; in the bot's first seated match) and
        is refused as malformed with the id cut short (never echoed whole)."""
        self.refused_unknown[presence.bot_id] += 1
        match_id = presence.seats[0].match_id if presence.seats else None
        if match_id is not None:
            self.refused_unknown_by_match[match_id] += 1
        shown = reply.decision_id[:16] + "..."
        error = MalformedInput(f"malformed decision id: {len(reply.decision_id)} characters "
                               f"(at most {MAX_DECISION_ID_CHARS})")
        short = Reply(decision_id=shown, seat=reply.seat, kind=reply.kind,
                      raise_to_chips=reply.raise_to_chips)
        presence.deliver(Rejection(decision_id=shown, error=error, reply=short,
                                   retry_allowed=True, time_left_seconds=0.0))


def _match_named(presence: Presence, decision_id: str) -> str | None:
    """The bot's seated match a decision id names (ids start ``<match id>-h``), else its first
    seated match; None when it sits nowhere."""
    named = [s.match_id for s in presence.seats if decision_id.startswith(s.match_id + "-h")]
    if named:
        return max(named, key=len)
    return presence.seats[0].match_id if presence.seats else None


def _stale(reply: Reply, why: str) -> Rejection:
    error = StaleDecision(f"decision {reply.decision_id!r} is closed: {why}")
    return Rejection(decision_id=reply.decision_id, error=error, reply=reply, retry_allowed=False,
                     time_left_seconds=0.0)
