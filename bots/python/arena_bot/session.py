"""One connection to the dealer (grpc.aio): the Play stream read in one loop, each decision
answered by a task of its own, so that no decision waits for another.

A plain bot function runs on a thread of :data:`arena_bot.workers.WORKERS`, an ``async`` one as
a task on the event loop; either way the stream goes on being read while the bot thinks, so a
rejection is answered at once (the check/fold fallback) and a slow decision at one table holds
up no other table. When the dealer says a decision has closed (``DecisionClosed``: it timed
out and the dealer acted), the SDK drops the work on it: the task is cancelled and an answer
still to come is never sent.
"""

from __future__ import annotations

import asyncio
import inspect
import logging
import os
import time
import traceback
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path

import grpc
import grpc.aio

from arena_bot._proto import arena_pb2 as pb
from arena_bot._proto import arena_pb2_grpc as pb_grpc
from arena_bot.strategy import Drawn, Strategy
from arena_bot.view import _KIND_NAMES, Action, SeatView
from arena_bot.workers import WORKERS

log = logging.getLogger("arena_bot")

Answer = Action | Strategy  # what a bot function returns: an action, or a strategy to draw from
BotFunction = Callable[[SeatView], Answer | Awaitable[Answer]]
_PACKAGE_DIR = str(Path(__file__).resolve().parent) + os.sep
MAX_DETAIL_CHARS = 2000  # of a fallback's detail (the dealer keeps no more)
_FALLBACKS = {"": pb.FALLBACK_UNSPECIFIED, "rejected": pb.FALLBACK_AFTER_REJECTION,
              "exception": pb.FALLBACK_AFTER_EXCEPTION}


@dataclass
class PlayResult:
    """What happened over every connection of one :func:`arena_bot.play`."""

    decisions: int = 0  # replies sent: the bot's own and its fallbacks
    rejections: int = 0  # replies the dealer refused
    fallbacks: int = 0  # replies by check/fold after a rejection or a bot exception
    exceptions: int = 0  # decisions where the bot's function raised (or returned no Action,
    # or a Strategy that is not valid for the decision)
    strategy_replies: int = 0  # replies sent as a Strategy (the dealer draws the action)
    timeouts: int = 0  # decisions the dealer closed before a reply came (it acted)
    dropped: int = 0  # answers not sent because their decision had closed
    connections: int = 0
    matches_ended: list[pb.MatchEnded] = field(default_factory=list)
    final_status: str = ""
    end_message: str = ""  # the dealer's last word (StreamEnding.message)
    matches_over: bool = False  # the dealer said every match is over: do not reconnect


def unbatch(message: pb.DealerMessage) -> list[pb.DealerMessage]:
    if message.WhichOneof("payload") == "batch":
        return list(message.batch.messages)
    return [message]


@dataclass(eq=False)
class _Open:
    """A decision the bot holds: its request, the task answering it, whether it fell back."""

    request: pb.DecisionRequest
    task: asyncio.Task[None] | None = None
    fell_back: bool = False


class Session:
    """The messages of one Play stream and the decisions they open."""

    def __init__(self, bot: BotFunction, result: PlayResult, server: str,
                 on_message: Callable[[pb.DealerMessage], None] | None = None,
                 on_drawn: Callable[[Drawn], None] | None = None) -> None:
        self.bot = bot
        self.result = result
        self.server = server
        self.on_message = on_message
        self.on_drawn = on_drawn
        # With on_drawn: the strategies sent, by decision id, until their ActionTaken comes.
        self.declared: dict[str, tuple[pb.DecisionRequest, Strategy]] = {}
        self.is_async = inspect.iscoroutinefunction(bot) or inspect.iscoroutinefunction(
            getattr(bot, "__call__", None))  # noqa: B004 - an object with an async __call__
        self.open: dict[str, _Open] = {}  # by decision id
        self.tables: dict[tuple[str, int], str] = {}  # (match id, seat) -> its open decision
        # Replies go out in order through one writer task. A decision's task never writes
        # itself: cancelling a task while it awaits a grpc.aio write would cancel the stream.
        self.outbox: asyncio.Queue[pb.BotMessage] = asyncio.Queue()

    async def run(self, hello: pb.BotMessage, *, token: str,
                  credentials: grpc.ChannelCredentials | None,
                  options: tuple[tuple[str, object], ...]) -> None:
        """Connect, say hello and handle messages until the stream ends: returns on status OK,
        raises ``grpc.aio.AioRpcError`` on any other."""
        if credentials is not None:
            channel = grpc.aio.secure_channel(self.server, credentials, options=options)
        else:
            channel = grpc.aio.insecure_channel(self.server, options=options)
        async with channel:
            call = pb_grpc.DealerStub(channel).Play(
                metadata=(("authorization", f"Bearer {token}"),))
            await call.write(hello)
            writer = asyncio.get_running_loop().create_task(self._write_all(call))
            try:
                async for envelope in call:
                    for message in unbatch(envelope):
                        self.handle(message)
            finally:
                for held in self.open.values():
                    if held.task is not None:
                        held.task.cancel()
                writer.cancel()  # the stream has ended (or is being cancelled) by now

    # ------------------------------------------------------------------ messages

    def handle(self, message: pb.DealerMessage) -> None:
        if self.on_message is not None:
            self.on_message(message)
        kind = message.WhichOneof("payload")
        result = self.result
        if kind == "decision_request":
            self._opened(message.decision_request)
        elif kind == "action_rejected":
            self._rejected(message.action_rejected)
        elif kind == "decision_closed":
            self._closed(message.decision_closed)
        elif kind == "welcome":
            result.connections += 1
            log.info("connected to %s as %s (seats: %s)", self.server, message.welcome.bot_name,
                     ", ".join(f"{s.match_id} seat {s.seat}" for s in message.welcome.seats)
                     or "none yet")
        elif kind == "stream_ending":
            ending = message.stream_ending
            result.end_message = ending.message
            result.matches_over = ending.reason == pb.STREAM_END_REASON_MATCHES_OVER
            log.info("the dealer ends the stream: %s", ending.message)
        elif kind == "event":
            payload = message.event.WhichOneof("payload")
            if payload == "action_taken" and self.declared:
                self._taken(message.event)
            elif payload == "match_ended":
                result.matches_ended.append(message.event.match_ended)
                self._forget_match(message.event.match_id)

    def _taken(self, event: pb.Event) -> None:
        """Tell ``on_drawn`` the action the dealer drew from one of the bot's strategies."""
        taken = event.action_taken
        declared = self.declared.pop(taken.decision_id, None)
        if declared is None or not taken.drawn_from_strategy or self.on_drawn is None:
            return  # not ours, or answered otherwise (a fallback after a rejection)
        request, strategy = declared
        record = taken.action
        drawn = Drawn(match_id=event.match_id, hand_id=event.hand_id,
                      decision_id=taken.decision_id, seat=request.your_seat, strategy=strategy,
                      action=Action(_KIND_NAMES.get(record.kind, ""),
                                    record.raise_to_chips if record.kind == pb.ACTION_KIND_RAISE
                                    else 0))
        try:
            self.on_drawn(drawn)
        except Exception:  # the bot's callback: logged, never the end of the stream
            log.exception("on_drawn failed for decision %s", taken.decision_id)

    def _opened(self, request: pb.DecisionRequest) -> None:
        decision_id = request.decision_id
        held = self.open.get(decision_id)
        if held is not None and held.task is not None and not held.task.done():
            return  # sent again while it is being answered
        table = (request.match_id, request.your_seat)
        before = self.tables.get(table)
        if before is not None:  # a seat has one decision at a time: the earlier one is over
            self._drop(before)
        self.tables[table] = decision_id
        held = self.open[decision_id] = _Open(request)
        held.task = asyncio.get_running_loop().create_task(self._decide(held))

    def _rejected(self, rejected: pb.ActionRejected) -> None:
        result = self.result
        result.rejections += 1
        log.warning("reply to %s rejected: %s", rejected.decision_id, rejected.message)
        held = self.open.get(rejected.decision_id)
        if held is None:
            return
        if not rejected.retry_allowed:
            self._drop(rejected.decision_id)
        elif not held.fell_back:
            held.fell_back = True
            safe = SeatView(held.request).check_or_fold()
            log.warning("falling back to %s for decision %s after the rejection", safe.kind,
                        rejected.decision_id)
            result.fallbacks += 1
            result.decisions += 1
            self.outbox.put_nowait(_reply(held.request, safe, 0.0, fallback="rejected",
                                          detail=f"rejected: {rejected.message}"))

    def _closed(self, closed: pb.DecisionClosed) -> None:
        timed_out = closed.reason == pb.DECISION_CLOSE_REASON_TIMEOUT
        self.result.timeouts += timed_out
        held = self.open.get(closed.decision_id)
        dropped = held is not None and held.task is not None and not held.task.done()
        self.result.dropped += dropped
        if dropped or timed_out:
            log.warning("decision %s (match %s, hand %d, seat %d) %s after %.2f s%s",
                        closed.decision_id, closed.match_id, closed.hand_number, closed.seat,
                        "timed out" if timed_out else "closed", closed.open_seconds,
                        "; the dealer acted for the bot and its answer is dropped" if dropped
                        else ": the answer came too late")
        self._drop(closed.decision_id)

    def _drop(self, decision_id: str) -> None:
        held = self.open.pop(decision_id, None)
        if held is None:
            return
        if held.task is not None:
            held.task.cancel()
        table = (held.request.match_id, held.request.your_seat)
        if self.tables.get(table) == decision_id:
            del self.tables[table]

    def _forget_match(self, match_id: str) -> None:
        for decision_id in [d for d, held in self.open.items()
                            if held.request.match_id == match_id]:
            self._drop(decision_id)
        for decision_id in [d for d, (request, _) in self.declared.items()
                            if request.match_id == match_id]:
            del self.declared[decision_id]

    # ------------------------------------------------------------------ answers

    async def _decide(self, held: _Open) -> None:
        request = held.request
        view = SeatView(request)
        started = time.perf_counter()
        fallback = detail = ""
        try:
            action = await self._think(view)
        except Exception as exc:
            action = view.check_or_fold()
            fallback = "exception"
            detail = _traceback(exc)
            log.error("the bot failed on decision %s (hand %d, seat %d); falling back to %s",
                      request.decision_id, request.hand_number, request.your_seat, action.kind,
                      exc_info=exc)
            self.result.exceptions += 1
        if held.fell_back or self.open.get(request.decision_id) is not held:
            return
        self.result.decisions += 1
        self.result.fallbacks += bool(fallback)
        if isinstance(action, Strategy):
            self.result.strategy_replies += 1
            if self.on_drawn is not None:
                self.declared[request.decision_id] = (request, action)
        self.outbox.put_nowait(_reply(request, action, time.perf_counter() - started,
                                      fallback=fallback, detail=detail))

    async def _think(self, view: SeatView) -> Answer:
        chosen: object = self.bot(view) if self.is_async else await WORKERS.run(self.bot, view)
        if type(chosen) is Action:  # the common case first: a plain Action
            return chosen
        if inspect.isawaitable(chosen):
            chosen = await chosen
        if isinstance(chosen, Strategy):
            chosen.check(view)  # StrategyError (an action not legal now): the fallback
            return chosen
        if not isinstance(chosen, Action):
            raise TypeError(f"a bot must return an Action or a Strategy, not {chosen!r}")
        return chosen

    async def _write_all(self, call: grpc.aio.StreamStreamCall[pb.BotMessage, pb.DealerMessage]
                         ) -> None:
        """Write the replies in the order they were made until the stream ends (its status
        says why, to the reading loop)."""
        outbox = self.outbox
        try:
            while True:
                await call.write(await outbox.get())
        except (grpc.aio.AioRpcError, grpc.aio.UsageError, asyncio.InvalidStateError):
            return


def _traceback(exc: BaseException) -> str:
    """The exception and its traceback without the SDK's own frames (the bot's code only), its
    last MAX_DETAIL_CHARS."""
    shown = traceback.TracebackException.from_exception(exc)
    shown.stack = traceback.StackSummary.from_list(
        [frame for frame in shown.stack if not frame.filename.startswith(_PACKAGE_DIR)])
    return "".join(shown.format())[-MAX_DETAIL_CHARS:]


def _reply(request: pb.DecisionRequest, action: Answer, think_seconds: float, *,
           fallback: str = "", detail: str = "") -> pb.BotMessage:
    message = pb.BotMessage()  # set field by field: half the cost of nested constructors
    reply = message.action_reply
    reply.decision_id = request.decision_id
    reply.seat = request.your_seat
    if isinstance(action, Strategy):
        action.fill_proto(reply.strategy)
    else:
        action.fill_proto(reply.action)
    reply.think_seconds = think_seconds
    reply.fallback = _FALLBACKS[fallback]
    if detail:
        reply.fallback_detail = detail[-MAX_DETAIL_CHARS:]
    return message
