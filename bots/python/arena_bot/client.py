"""Connect a bot function to an arena dealer: authentication, the Play stream and reconnects."""

from __future__ import annotations

import asyncio
import inspect
import logging
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field

import grpc

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
    """The dealer refused the bot for good (bad token, protocol mismatch, replaced)."""

    def __init__(self, code: grpc.StatusCode, details: str) -> None:
        super().__init__(f"{code.name}: {details}")
        self.code = code
        self.details = details


@dataclass
class PlayResult:
    """What happened: decisions answered, matches seen to their end, connections made."""

    decisions: int = 0
    rejections: int = 0
    connections: int = 0
    matches_ended: list[pb.MatchEnded] = field(default_factory=list)
    final_status: str = ""


def unbatch(message: pb.DealerMessage) -> list[pb.DealerMessage]:
    if message.WhichOneof("payload") == "batch":
        return list(message.batch.messages)
    return [message]


async def play(bot: BotFunction, *, server: str, token: str, name: str = "bot",
               version: str = "", root_certificates: bytes | None = None,
               reconnect_seconds: float = 30.0,
               on_message: Callable[[pb.DealerMessage], None] | None = None) -> PlayResult:
    """Play until the dealer ends the stream normally (all matches over).

    After a lost connection the bot reconnects with its token (the dealer gives its seats back
    and re-sends an open decision) for up to ``reconnect_seconds``. ``on_message`` sees every
    dealer message (batches already unpacked).
    """
    result = PlayResult()
    lost_at: float | None = None
    backoff = 0.05
    while True:
        connections_before = result.connections
        try:
            result.final_status = await _session(
                bot, server=server, token=token, name=name, version=version,
                root_certificates=root_certificates, on_message=on_message, result=result)
            return result
        except grpc.aio.AioRpcError as exc:
            code = exc.code()
            if code in FATAL:
                raise BotError(code, exc.details() or "") from None
            result.final_status = code.name
            log.warning("connection lost (%s: %s); reconnecting", code.name, exc.details())
        if result.connections > connections_before:  # we had been connected: restart the clock
            lost_at, backoff = None, 0.05
        now = time.monotonic()
        if lost_at is None:
            lost_at = now
        elif now - lost_at > reconnect_seconds:
            return result
        await asyncio.sleep(backoff)
        backoff = min(backoff * 2, 1.0)


async def _session(bot: BotFunction, *, server: str, token: str, name: str, version: str,
                   root_certificates: bytes | None,
                   on_message: Callable[[pb.DealerMessage], None] | None,
                   result: PlayResult) -> str:
    """One connection: hello, then answer requests until the stream ends."""
    # Each bot gets its own connection, even when several bots share a process: one bot's
    # flow control (a slow reader) then never holds up another's stream.
    options = [("grpc.use_local_subchannel_pool", 1)]
    if root_certificates is not None:
        channel = grpc.aio.secure_channel(server, grpc.ssl_channel_credentials(root_certificates),
                                          options=options)
    else:
        channel = grpc.aio.insecure_channel(server, options=options)
    async with channel:
        stub = pb_grpc.DealerStub(channel)
        call = stub.Play(metadata=(("authorization", f"Bearer {token}"),))
        await call.write(pb.BotMessage(hello=pb.Hello(
            bot_name=name, bot_version=version, protocol_version=PROTOCOL_VERSION,
            accept_batches=True)))
        open_requests: dict[str, pb.DecisionRequest] = {}
        async for envelope in call:
            for message in unbatch(envelope):
                if on_message is not None:
                    on_message(message)
                kind = message.WhichOneof("payload")
                if kind == "welcome":
                    result.connections += 1
                elif kind == "decision_request":
                    request = message.decision_request
                    open_requests = {request.decision_id: request}
                    await call.write(await _answer(bot, request))
                    result.decisions += 1
                elif kind == "action_rejected":
                    rejected = message.action_rejected
                    result.rejections += 1
                    log.warning("reply to %s rejected: %s", rejected.decision_id,
                                rejected.message)
                    request = open_requests.pop(rejected.decision_id, None)
                    if rejected.retry_allowed and request is not None:
                        safe = SeatView(request).check_or_fold()
                        await call.write(_reply(request, safe, 0.0))
                elif kind == "event" and message.event.WhichOneof("payload") == "match_ended":
                    result.matches_ended.append(message.event.match_ended)
        return (await call.code()).name


async def _answer(bot: BotFunction, request: pb.DecisionRequest) -> pb.BotMessage:
    view = SeatView(request)
    started = time.perf_counter()
    try:
        chosen = bot(view)
        if inspect.isawaitable(chosen):
            chosen = await chosen
        assert isinstance(chosen, Action), f"a bot must return an Action, not {chosen!r}"
    except Exception:
        log.exception("the bot failed on decision %s; checking or folding", request.decision_id)
        chosen = view.check_or_fold()
    return _reply(request, chosen, time.perf_counter() - started)


def _reply(request: pb.DecisionRequest, action: Action, think_seconds: float) -> pb.BotMessage:
    return pb.BotMessage(action_reply=pb.ActionReply(
        decision_id=request.decision_id, seat=request.your_seat, action=action.to_proto(),
        think_seconds=think_seconds))


def run(bot: BotFunction, **kwargs: object) -> PlayResult:
    """Blocking form of :func:`play` (``asyncio.run``)."""
    return asyncio.run(play(bot, **kwargs))  # type: ignore[arg-type]
