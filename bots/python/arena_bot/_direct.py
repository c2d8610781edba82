"""A bot's session on its own thread, which polls gRPC core's completion queue and answers: one
wake-up per decision, where grpc.aio hands each completion from its poller thread to the event
loop through a socket (two, and the event loop around them).

It uses grpcio's own single-threaded call (``cygrpc``'s segregated call, as grpc's
single-threaded unary-stream calls do), so only with the grpcio versions this SDK is tested
with (:data:`AVAILABLE`); ``ARENA_BOT_TRANSPORT=aio`` keeps every session on grpc.aio.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import threading
from collections import deque
from collections.abc import Callable, Coroutine, Mapping
from typing import Any, TypeVar

import grpc
import grpc.aio

from arena_bot._grpc_io import TESTED_VERSIONS
from arena_bot._proto import arena_pb2 as pb

ENV = "ARENA_BOT_TRANSPORT"
CHOICES = ("auto", "direct", "aio")
METHOD = b"/arena.v1.Dealer/Play"
_CODES = {code.value[0]: code for code in grpc.StatusCode}

try:  # grpcio's internals: checked here, used only with the versions tested (_grpc_io)
    from grpc._cython import cygrpc as _cygrpc  # type: ignore[attr-defined]

    AVAILABLE = (grpc.__version__.startswith(TESTED_VERSIONS)
                 and all(hasattr(_cygrpc, n) for n in (
                     "Channel", "SegregatedCall", "SendInitialMetadataOperation",
                     "SendMessageOperation", "ReceiveMessageOperation",
                     "ReceiveInitialMetadataOperation", "ReceiveStatusOnClientOperation",
                     "build_census_context", "PropagationConstants")))
except ImportError:  # pragma: no cover - another grpcio build
    AVAILABLE = False

T = TypeVar("T")
_STATUS, _SEND, _RECEIVE, _BOTH, _OTHER = "status", "send", "receive", "both", "other"
# A process's bot functions are called one at a time, as on one event loop, whatever thread
# reads (client._answer_now).
BOT_LOCK = threading.Lock()


class TransportChoiceError(ValueError):
    """``ARENA_BOT_TRANSPORT`` names no transport (one line for people)."""


def chosen(environ: Mapping[str, str] | None = None) -> bool:
    """Whether a session runs here (else on grpc.aio): ``ARENA_BOT_TRANSPORT`` ``auto``, the
    default, or ``direct`` (here when :data:`AVAILABLE`), or ``aio``."""
    value = (os.environ if environ is None else environ).get(ENV, "").strip().lower() or "auto"
    if value not in CHOICES:
        raise TransportChoiceError(f"{ENV}={value!r}: choose one of {', '.join(CHOICES)}")
    return value != "aio" and AVAILABLE


class Stream:
    """One Play stream on a segregated call: at most one read and one write in flight.

    A write starts at once, except one made after :meth:`hold` (the handler's, while it handles
    the last message it was handed): it starts with the next :meth:`read`, in one batch, so
    the thread goes from the reply's ``sendmsg`` straight to its wait for the next message,
    one completion for both (no second batch started, no second event). That batch's send
    ends only when the next message is read, which holds no write back: the session writes
    only while it handles a message."""

    def __init__(self, server: str, token: str, credentials: grpc.ChannelCredentials | None,
                 options: tuple[tuple[str, Any], ...], method: bytes = METHOD) -> None:
        channel = _cygrpc.Channel(
            server.encode(), options,
            None if credentials is None else credentials._credentials)  # type: ignore[attr-defined]
        metadata = (("authorization", f"Bearer {token}"),)
        call = channel.segregated_call(
            _cygrpc.PropagationConstants.GRPC_PROPAGATE_DEFAULTS, method, None, None, metadata,
            None, (((_cygrpc.SendInitialMetadataOperation(metadata, 0),), _OTHER),
                   ((_cygrpc.ReceiveInitialMetadataOperation(0),), _OTHER),
                   ((_cygrpc.ReceiveStatusOnClientOperation(0),), _STATUS)),
            _cygrpc.build_census_context(), None)
        self._setup(call, channel, due=3)

    @classmethod
    def on_call(cls, call: Any, *, due: int = 0) -> Stream:
        """A stream on ``call`` (``operate``, ``next_event``, ``cancel``: a segregated call's,
        or a stand-in's) with ``due`` batches already started, and no channel of its own."""
        stream = cls.__new__(cls)
        stream._setup(call, None, due=due)
        return stream

    def _setup(self, call: Any, channel: Any, *, due: int) -> None:
        self.call = call
        self.channel = channel
        self.due = due  # batches started and not completed: the call lives until none is
        self.sending = False
        self.queued: deque[bytes] = deque()
        self.status: tuple[grpc.StatusCode, str] | None = None
        self._holding = False  # handling a message: the latest write waits in _held
        self._held: bytes | None = None

    def _operate(self, operations: tuple[Any, ...], tag: str) -> bool:
        started = bool(self.call.operate(operations, tag))
        self.due += started
        return started

    def write(self, message: pb.BotMessage) -> None:
        data = message.SerializeToString()
        if self._holding:  # the one before it goes now; this one with the next read
            held, self._held = self._held, data
            if held is not None:
                self._send(held)
            return
        self._send(data)

    def _send(self, data: bytes) -> None:
        if self.sending or self.status is not None:
            if self.status is None:
                self.queued.append(data)
            return
        self.sending = self._operate((_cygrpc.SendMessageOperation(data, 0),), _SEND)

    def hold(self) -> None:
        """Until the next :meth:`read`, keep the latest write back to start it with that read
        (call it when no write can follow but the handler's last: its reply)."""
        self._holding = True

    def read(self) -> bool:
        """Start reading the next message, with the held write if any (one batch)."""
        self._holding = False
        held, self._held = self._held, None
        if self.status is not None:
            return False
        if held is not None and not self.sending:
            self.sending = self._operate((_cygrpc.SendMessageOperation(held, 0),
                                          _cygrpc.ReceiveMessageOperation(0)), _BOTH)
            return self.sending
        if held is not None:  # after the write in flight, as every write
            self.queued.append(held)
        return self._operate((_cygrpc.ReceiveMessageOperation(0),), _RECEIVE)

    def next(self) -> bytes | None:
        """The next message's bytes; None once the stream has ended (see ``status``)."""
        while self.due:
            event = self.call.next_event()
            self.due -= 1
            tag = event.tag
            if tag in (_RECEIVE, _BOTH):
                if tag == _BOTH:
                    self._sent(event.success)
                data: bytes | None = (event.batch_operations[-1].message() if event.success
                                      else None)
                if data is not None:
                    return data
            elif tag == _SEND:
                self._sent(event.success)
            elif tag == _STATUS:
                operation = event.batch_operations[0]
                code = _CODES.get(operation.code(), grpc.StatusCode.UNKNOWN)
                self.status = (code, operation.details() or "")
        return None

    def _sent(self, success: bool) -> None:
        self.sending = False
        if self.queued and success:
            self.sending = self._operate(
                (_cygrpc.SendMessageOperation(self.queued.popleft(), 0),), _SEND)

    def cancel(self) -> None:
        self.call.cancel(_cygrpc.StatusCode.cancelled, "the bot stopped")

    def close(self) -> None:
        """End the call if it is still on (its operations completed, as gRPC requires before
        the call is freed), then the channel."""
        if self.due:
            self.cancel()
            while self.due:
                self.call.next_event()
                self.due -= 1
        if self.channel is not None:
            self.channel.close(_cygrpc.StatusCode.cancelled, "the bot's session ended")



Handler = Callable[[pb.DealerMessage, "Stream"], None]


def _serve(call: Stream, handle: Handler) -> tuple[grpc.StatusCode, str]:
    """Read and handle messages until the stream ends: its status."""
    while True:
        call.read()  # not started once the stream has ended: next() then drains what is due
        data = call.next()
        if data is None:
            assert call.status is not None
            return call.status
        handle(pb.DealerMessage.FromString(data), call)


async def session(hello: pb.BotMessage, handle: Handler, *, server: str, token: str,
                  credentials: grpc.ChannelCredentials | None,
                  options: tuple[tuple[str, Any], ...]) -> str:
    """One connection, its messages handled on a thread of its own by ``handle`` (which writes
    through the call it is given): the final status's name, or grpc.aio.AioRpcError for a
    status other than OK, as a grpc.aio session. Cancelling it cancels the call."""
    loop = asyncio.get_running_loop()
    done: asyncio.Future[tuple[grpc.StatusCode, str]] = loop.create_future()
    holder: list[Stream] = []
    stopped: list[bool] = []  # set by a cancellation, possibly before the call exists

    def finish(result: Any, error: BaseException | None) -> None:
        if not done.done():
            if error is not None:
                done.set_exception(error)
            else:
                done.set_result(result)

    def body() -> None:
        result: Any = None
        error: BaseException | None = None
        try:
            call = Stream(server, token, credentials, options)
            holder.append(call)
            if stopped:
                call.cancel()
            try:
                call.write(hello)
                result = _serve(call, handle)
            finally:
                call.close()
        except BaseException as exc:  # handed to the awaiting coroutine
            error = exc
        with contextlib.suppress(RuntimeError):  # a closed loop: nobody is waiting any more
            loop.call_soon_threadsafe(finish, result, error)

    thread = threading.Thread(target=body, name="arena-bot-session", daemon=True)
    thread.start()
    try:
        code, details = await asyncio.shield(done)
    except asyncio.CancelledError:
        stopped.append(True)
        if holder:
            holder[0].cancel()
        raise
    if code is not grpc.StatusCode.OK:
        raise grpc.aio.AioRpcError(code, grpc.aio.Metadata(), grpc.aio.Metadata(), details)
    return code.name


def run_on_loop(loop: asyncio.AbstractEventLoop, coroutine: Coroutine[Any, Any, T]) -> T:
    """Run ``coroutine`` on ``loop`` from a session's thread and wait for its result (an
    async bot's answer is awaited on the event loop, as on grpc.aio)."""
    return asyncio.run_coroutine_threadsafe(coroutine, loop).result()
