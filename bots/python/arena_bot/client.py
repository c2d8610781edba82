"""Connect a bot function to an arena dealer: authentication, the Play stream and reconnects."""

from __future__ import annotations

import asyncio
import inspect
import logging
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field

import grpc

from arena_bot import _direct, eventloop
from arena_bot._proto import arena_pb2 as pb
from arena_bot._proto import arena_pb2_grpc as pb_grpc
from arena_bot.view import Action, SeatView

log = logging.getLogger("arena_bot")

BotFunction = Callable[[SeatView], Action | Awaitable[Action]]
PROTOCOL_VERSION = 1
# Statuses after which reconnecting cannot help.
FATAL = {grpc.StatusCode.UNAUTHENTICATED, grpc.StatusCode.PERMISSION_DENIED,
         grpc.StatusCode.FAILED_PRECONDITION, grpc.StatusCode.ALREADY_EXISTS,
         grpc.StatusCode.UNIMPLEMENTED, grpc.StatusCode.INVALID_ARGUMENT}


class BotError(Exception):
    """The dealer refused the bot for good (bad token, protocol mismatch, replaced), or it could
    not be reached at all. ``str(error)`` is one line meant for people."""

    def __init__(self, code: grpc.StatusCode, details: str, *, message: str = "") -> None:
        super().__init__(message or f"{code.name}: {details}")
        self.code = code
        self.details = details


@dataclass
class PlayResult:
    """What happened: decisions answered, matches seen to their end, connections made."""

    decisions: int = 0
    rejections: int = 0
    fallbacks: int = 0  # decisions answered by check/fold after a rejection or a bot exception
    connections: int = 0
    matches_ended: list[pb.MatchEnded] = field(default_factory=list)
    final_status: str = ""


def unbatch(message: pb.DealerMessage) -> list[pb.DealerMessage]:
    if message.WhichOneof("payload") == "batch":
        return list(message.batch.messages)
    return [message]


def refusal(server: str, code: grpc.StatusCode, details: str) -> BotError:
    """The one-line error for a status after which reconnecting cannot help."""
    if code is grpc.StatusCode.UNAUTHENTICATED:
        text = f"the dealer at {server} refused the token ({code.name}: {details})"
    else:
        text = f"the dealer at {server} refused the bot ({code.name}: {details})"
    return BotError(code, details, message=text)


async def play(bot: BotFunction, *, server: str, token: str, name: str = "bot",
               version: str = "", root_certificates: bytes | None = None,
               reconnect_seconds: float | None = None, connect_seconds: float = 10.0,
               max_backoff_seconds: float = 1.0,
               on_message: Callable[[pb.DealerMessage], None] | None = None,
               events: bool | None = None,
               clock: Callable[[], float] = time.monotonic,
               sleep: Callable[[float], Awaitable[object]] = asyncio.sleep) -> PlayResult:
    """Play until the dealer ends the stream normally (all matches over) or the caller stops it.

    The first connection is tried for ``connect_seconds``; a dealer that cannot be reached by
    then raises :class:`BotError` ("cannot reach HOST:PORT"). Once connected, a lost connection
    (a dealer or league restart) is retried with exponential backoff up to
    ``max_backoff_seconds`` between attempts, for ever unless ``reconnect_seconds`` bounds the
    time without a connection; the dealer gives the seats back and re-sends an open decision.
    A refused token raises :class:`BotError` at once. ``on_message`` sees every dealer message
    (batches already unpacked); ``clock`` and ``sleep`` are for tests.

    ``events``: whether to receive every event. The bot function sees decision requests only,
    so by default (None) every event is asked for only when ``on_message`` is given; otherwise
    the bot subscribes to requests and results (``SUBSCRIPTION_REQUESTS_AND_RESULTS``: match,
    game and hand starts, its own cards, showdowns, hand and match ends), which costs the
    dealer and the bot less per decision.
    """
    every_event = on_message is not None if events is None else events
    direct = on_message is None and _direct.chosen()  # the session on a thread of its own
    result = PlayResult()
    lost_at = clock()
    backoff = 0.05
    while True:
        connections_before = result.connections
        try:
            result.final_status = await _session(
                bot, server=server, token=token, name=name, version=version,
                root_certificates=root_certificates, on_message=on_message, result=result,
                every_event=every_event, direct=direct)
            return result
        except grpc.aio.AioRpcError as exc:
            code, details = exc.code(), exc.details() or ""
            if code in FATAL:
                raise refusal(server, code, details) from None
            result.final_status = code.name
        now = clock()
        if result.connections > connections_before:  # we had been connected: restart the clock
            lost_at, backoff = now, 0.05
            log.warning("connection to %s lost (%s: %s); reconnecting until stopped",
                        server, code.name, details)
        elif result.connections == 0 and now - lost_at > connect_seconds:
            raise BotError(code, details, message=f"cannot reach the dealer at {server} "
                                                  f"after {connect_seconds:g} s ({code.name}: {details})")
        elif reconnect_seconds is not None and now - lost_at > reconnect_seconds:
            log.warning("giving up: no connection to %s for %.0f s", server, now - lost_at)
            return result
        await sleep(backoff)
        backoff = min(backoff * 2, max_backoff_seconds)


async def _session(bot: BotFunction, *, server: str, token: str, name: str, version: str,
                   root_certificates: bytes | None,
                   on_message: Callable[[pb.DealerMessage], None] | None,
                   result: PlayResult, every_event: bool = True, direct: bool = False) -> str:
    """One connection: hello, then answer requests until the stream ends. ``direct``: on a
    thread of its own (:mod:`arena_bot._direct`; never with ``on_message``), the bot function
    called there (:func:`_answer_now`); else on grpc.aio and the event loop."""
    # Each bot gets its own connection, even when several bots share a process: one bot's
    # flow control (a slow reader) then never holds up another's stream.
    options = (("grpc.use_local_subchannel_pool", 1),)
    credentials = (None if root_certificates is None
                   else grpc.ssl_channel_credentials(root_certificates))
    hello = pb.BotMessage(hello=pb.Hello(
        bot_name=name, bot_version=version, protocol_version=PROTOCOL_VERSION,
        accept_batches=True, subscription=pb.SUBSCRIPTION_EVERY_EVENT if every_event
        else pb.SUBSCRIPTION_REQUESTS_AND_RESULTS))
    dispatch = _Dispatch(server, result)
    if direct and on_message is None:
        loop = asyncio.get_running_loop()

        def handle(envelope: pb.DealerMessage, call: _direct.Stream) -> None:
            messages = unbatch(envelope)
            last = messages[-1] if messages else None
            for message in messages:
                if message is last:  # its reply goes out with the next read (_direct.Stream)
                    call.hold()
                request = dispatch.handle(message, call.write)
                if request is not None:
                    reply, fell_back = _answer_now(bot, request, loop)
                    call.write(reply)
                    dispatch.answered(fell_back)

        return await _direct.session(hello, handle, server=server, token=token,
                                     credentials=credentials, options=options)
    if credentials is not None:
        channel = grpc.aio.secure_channel(server, credentials, options=options)
    else:
        channel = grpc.aio.insecure_channel(server, options=options)
    async with channel:
        stub = pb_grpc.DealerStub(channel)
        call = stub.Play(metadata=(("authorization", f"Bearer {token}"),))
        await call.write(hello)
        fallbacks: list[pb.BotMessage] = []
        async for envelope in call:
            for message in unbatch(envelope):
                if on_message is not None:
                    on_message(message)
                request = dispatch.handle(message, fallbacks.append)
                if request is not None:
                    reply, fell_back = await _answer(bot, request)
                    await call.write(reply)
                    dispatch.answered(fell_back)
                while fallbacks:
                    await call.write(fallbacks.pop(0))
        return (await call.code()).name


class _Dispatch:
    """What a session does with each message besides answering requests: the welcome, the
    rejections (a check/fold fallback when a retry is allowed), the ends of matches."""

    def __init__(self, server: str, result: PlayResult) -> None:
        self.server = server
        self.result = result
        self.open_requests: dict[str, pb.DecisionRequest] = {}

    def handle(self, message: pb.DealerMessage, write: Callable[[pb.BotMessage], object]
               ) -> pb.DecisionRequest | None:
        """The request to answer, if ``message`` is one; a fallback goes to ``write``."""
        kind = message.WhichOneof("payload")
        if kind == "decision_request":
            request = message.decision_request
            self.open_requests = {request.decision_id: request}
            return request
        result = self.result
        if kind == "welcome":
            result.connections += 1
            log.info("connected to %s as %s (seats: %s)", self.server, message.welcome.bot_name,
                     ", ".join(f"{s.match_id} seat {s.seat}" for s in message.welcome.seats)
                     or "none yet")
        elif kind == "action_rejected":
            rejected = message.action_rejected
            result.rejections += 1
            log.warning("reply to %s rejected: %s", rejected.decision_id, rejected.message)
            open_request = self.open_requests.pop(rejected.decision_id, None)
            if rejected.retry_allowed and open_request is not None:
                safe = SeatView(open_request).check_or_fold()
                log.warning("falling back to %s for decision %s after the rejection",
                            safe.kind, rejected.decision_id)
                result.fallbacks += 1
                write(_reply(open_request, safe, 0.0, fallback="rejected"))
        elif kind == "event" and message.event.WhichOneof("payload") == "match_ended":
            result.matches_ended.append(message.event.match_ended)
        return None

    def answered(self, fell_back: bool) -> None:
        self.result.decisions += 1
        self.result.fallbacks += fell_back


async def _answer(bot: BotFunction, request: pb.DecisionRequest) -> tuple[pb.BotMessage, bool]:
    """The bot's reply, and whether it is the check/fold fallback after an exception."""
    view = SeatView(request)
    started = time.perf_counter()
    try:
        chosen = bot(view)
        if type(chosen) is not Action:  # the common case first: a plain Action, no await
            chosen = await _checked(chosen)
    except Exception:
        return _failed(view, started), True
    return _reply(request, chosen, time.perf_counter() - started), False


def _answer_now(bot: BotFunction, request: pb.DecisionRequest, loop: asyncio.AbstractEventLoop
                ) -> tuple[pb.BotMessage, bool]:
    """:func:`_answer` on a session's own thread: the process's bot functions are called one at
    a time, as on one event loop, and an awaitable answer is awaited on ``loop`` (so async
    bots still think at the same time)."""
    view = SeatView(request)
    started = time.perf_counter()
    try:
        with _direct.BOT_LOCK:
            chosen = bot(view)
        if type(chosen) is not Action:
            chosen = _direct.run_on_loop(loop, _checked(chosen))
    except Exception:
        return _failed(view, started), True
    return _reply(request, chosen, time.perf_counter() - started), False


async def _checked(chosen: object) -> Action:
    """A bot's answer other than a plain Action: awaited if awaitable, then type-checked."""
    if inspect.isawaitable(chosen):
        chosen = await chosen
    if not isinstance(chosen, Action):
        raise TypeError(f"a bot must return an Action, not {chosen!r}")
    return chosen


def _failed(view: SeatView, started: float) -> pb.BotMessage:
    """The check/fold fallback after the bot raised (logged with its traceback)."""
    safe = view.check_or_fold()
    log.exception("the bot failed on decision %s; falling back to %s", view.request.decision_id,
                  safe.kind)
    return _reply(view.request, safe, time.perf_counter() - started, fallback="exception")


_FALLBACKS = {"": pb.FALLBACK_UNSPECIFIED, "rejected": pb.FALLBACK_AFTER_REJECTION,
              "exception": pb.FALLBACK_AFTER_EXCEPTION}


def _reply(request: pb.DecisionRequest, action: Action, think_seconds: float, *,
           fallback: str = "") -> pb.BotMessage:
    message = pb.BotMessage()  # set field by field: half the cost of nested constructors
    reply = message.action_reply
    reply.decision_id = request.decision_id
    reply.seat = request.your_seat
    action.fill_proto(reply.action)
    reply.think_seconds = think_seconds
    reply.fallback = _FALLBACKS[fallback]
    return message


def run(bot: BotFunction, **kwargs: object) -> PlayResult:
    """Blocking form of :func:`play`, on uvloop's event loop when it is installed, else
    asyncio's (``ARENA_BOT_EVENT_LOOP``: :mod:`arena_bot.eventloop`)."""
    return eventloop.run(play(bot, **kwargs))  # type: ignore[arg-type]
