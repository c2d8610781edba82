"""Connect a bot function to an arena dealer: authentication, the Play stream and reconnects
(each connection is a :class:`arena_bot.session.Session`)."""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Awaitable, Callable

import grpc

from arena_bot import eventloop
from arena_bot._proto import arena_pb2 as pb
from arena_bot.session import BotFunction, PlayResult, Session
from arena_bot.strategy import Drawn

log = logging.getLogger("arena_bot")

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
               on_drawn: Callable[[Drawn], None] | None = None,
               events: bool | None = None,
               clock: Callable[[], float] = time.monotonic,
               sleep: Callable[[float], Awaitable[object]] = asyncio.sleep) -> PlayResult:
    """Play until the dealer ends the stream normally (all matches over) or the caller stops it.

    Each decision is answered on its own (:mod:`arena_bot.session`): a plain ``bot`` function
    runs on a thread of its own for each decision being answered, so it may be called from
    several threads at once (one per table waiting for it; guard state the calls share with a
    lock); an ``async`` one runs as a task on the event loop. Either way no table waits for
    another, and a decision the dealer has closed (timed out) is dropped.

    The first connection is tried for ``connect_seconds``; a dealer that cannot be reached by
    then raises :class:`BotError` ("cannot reach HOST:PORT"). Once connected, a lost connection
    (a dealer or league restart) is retried with exponential backoff up to
    ``max_backoff_seconds`` between attempts, for ever unless ``reconnect_seconds`` bounds the
    time without a connection; the dealer gives the seats back and re-sends an open decision.
    A refused token raises :class:`BotError` at once. ``on_message`` sees every dealer message
    (batches already unpacked); ``clock`` and ``sleep`` are for tests.

    ``on_drawn``: called with a :class:`arena_bot.strategy.Drawn` (the decision, the declared
    :class:`~arena_bot.strategy.Strategy` and the action the dealer drew from it) whenever the
    dealer has drawn the action of a strategy the bot returned, on the event loop (keep it
    short). It needs every event (the dealer's ``ActionTaken``), so ``events`` may not be False.

    ``events``: whether to receive every event. The bot function sees decision requests only,
    so by default (None) every event is asked for only when ``on_message`` is given; otherwise
    the bot subscribes to requests and results (``SUBSCRIPTION_REQUESTS_AND_RESULTS``: match,
    game and hand starts, its own cards, showdowns, hand and match ends), which costs the
    dealer and the bot less per decision.
    """
    if on_drawn is not None and events is False:
        raise ValueError("on_drawn needs every event (the dealer's ActionTaken): "
                         "leave events unset or True")
    every_event = (on_message is not None or on_drawn is not None) if events is None else events
    # Each bot gets its own connection, even when several bots share a process: one bot's
    # flow control (a slow reader) then never holds up another's stream.
    options = (("grpc.use_local_subchannel_pool", 1),)
    credentials = (None if root_certificates is None
                   else grpc.ssl_channel_credentials(root_certificates))
    hello = pb.BotMessage(hello=pb.Hello(
        bot_name=name, bot_version=version, protocol_version=PROTOCOL_VERSION,
        accept_batches=True, subscription=pb.SUBSCRIPTION_EVERY_EVENT if every_event
        else pb.SUBSCRIPTION_REQUESTS_AND_RESULTS))
    result = PlayResult()
    lost_at = clock()
    backoff = 0.05
    while True:
        connections_before = result.connections
        session = Session(bot, result, server, on_message, on_drawn)
        try:
            await session.run(hello, token=token, credentials=credentials, options=options)
            result.final_status = "OK"
            return result
        except grpc.aio.AioRpcError as exc:
            code, details = exc.code(), exc.details() or ""
            result.final_status = code.name
            if result.matches_over:  # the dealer said so before the stream broke: done
                return result
            # A reconnect refused because the dealer still holds the stream it lost (it has
            # not noticed the drop yet; by default the newer stream is refused): try again.
            stale = (code is grpc.StatusCode.ALREADY_EXISTS and result.connections > 0
                     and result.connections == connections_before)
            if code in FATAL and not stale:
                raise refusal(server, code, details) from None
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


def run(bot: BotFunction, **kwargs: object) -> PlayResult:
    """Blocking form of :func:`play`, on uvloop's event loop when it is installed, else
    asyncio's (``ARENA_BOT_EVENT_LOOP``: :mod:`arena_bot.eventloop`)."""
    return eventloop.run(play(bot, **kwargs))  # type: ignore[arg-type]  # play's keywords, passed on
