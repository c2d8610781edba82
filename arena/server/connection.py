"""One bot's Play stream: a bounded outbox the tables write into, its writes and a reader.

Tables never wait for a bot: :meth:`Connection.deliver` encodes an item and appends it to a
queue; what a trio tick queued goes out in one write started when that tick ends, in the same
host callback (no writer task to wake). A bot that stops reading lets its queue grow to
``max_queued_messages`` or ``max_queued_bytes`` and is then cut off; a bot that sends more
messages or bytes than its token buckets allow is cut off too (each decision request written
gives one message back: answers never count against the rate). Either way only its own stream
ends (RESOURCE_EXHAUSTED) and its seats become absent; no other table notices. Bytes that are
not a ``BotMessage`` end the stream INVALID_ARGUMENT, a dealer bug INTERNAL, each with a
logged reason.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections import deque
from collections.abc import Callable
from typing import Any, cast

import grpc

from arena.host import fastpaths
from arena.match import messages as m
from arena.server import wire
from arena.server.config import Limits
from arena.server.eager import Eager
from arena.server.errors import Flooding, Internal, Malformed, StreamEnded
from arena.server.guard import TokenBucket
from arena.server.stats import TransportStats
from arena.v1 import arena_pb2 as pb

log = logging.getLogger("arena.server")

Item = m.Outgoing | pb.DealerMessage
MAX_BATCH = 256  # messages per batch write
WRITE_DRAIN_SECONDS = 0.5  # how long a closing stream waits for its write in flight

# Events that go out at once; the others ride with the seat's next request (one write per
# decision), or go at most ``Limits.event_flush_seconds`` later.
_URGENT_PAYLOADS = (m.MatchStarted, m.MatchEnded)


class Undecodable:
    """What the deserializer hands over for bytes that are not a ``BotMessage``."""

    __slots__ = ("size",)

    def __init__(self, size: int) -> None:
        self.size = size


class Connection:
    """The outbox of one stream (an :class:`~arena.match.messages.Outbox`) and its pumps."""

    def __init__(self, *, bot_id: str, session_id: str, batches: bool, limits: Limits,
                 encoder: wire.Encoder, stats: TransportStats, every_event: bool = True,
                 defer: Callable[[Callable[[], object]], object] | None = None) -> None:
        """``defer(fn)``: run ``fn`` soon on this loop; the service runs it at the end of the
        trio tick that delivered (its default: ``call_soon``)."""
        self.bot_id = bot_id
        self.session_id = session_id
        self.batches = batches
        # False: the bot subscribed to requests and results only (Hello.subscription).
        self.every_event = every_event
        self.subscription = (pb.SUBSCRIPTION_UNSPECIFIED if every_event
                             else pb.SUBSCRIPTION_REQUESTS_AND_RESULTS)
        self.limits = limits
        self._encoder = encoder
        self._stats = stats
        self._loop = asyncio.get_running_loop()
        self._queue: deque[tuple[Item, bytes]] = deque()  # items with their encoding
        self._queued_bytes = 0
        self._defer = defer if defer is not None else self._loop.call_soon
        self._context: grpc.aio.ServicerContext[Any, Any] | None = None  # set by serve()
        self._writing: Eager | asyncio.Task[None] | None = None  # the write in flight
        self._eager = fastpaths.allowed(fastpaths.EAGER_WRITES)
        if self._eager:
            fastpaths.record(fastpaths.EAGER_WRITES, taken=True)
        self._pump_due = False  # a _pump is deferred already
        self._timer: asyncio.TimerHandle | None = None
        self._urgent = False  # something queued must go out now (not only events that may wait)
        self._finishing = False
        self._final: StreamEnded | None = None
        self._result: asyncio.Future[StreamEnded | None] = self._loop.create_future()
        self.done = asyncio.Event()
        self._bucket = TokenBucket(limits.messages_per_second, float(limits.message_burst))
        self._byte_bucket = TokenBucket(limits.bytes_per_second, float(limits.byte_burst))
        self._written: dict[str, float] = {}  # decision id -> when its request was written

    def wire_seconds(self, decision_id: str, now: float) -> float | None:
        """Seconds from writing a decision's request to ``now`` (its reply read), once."""
        written = self._written.pop(decision_id, None)
        return None if written is None else now - written

    @property
    def is_open(self) -> bool:
        return not self._result.done()

    # ------------------------------------------------------------------ outbox (called by trio)

    def deliver(self, item: Item) -> None:
        if self._result.done():
            return
        if len(self._queue) >= self.limits.max_queued_messages:
            self.fail(Flooding(f"{len(self._queue)} messages could not be delivered: "
                               "the bot is not reading its stream"))
            return
        try:
            data = self._encoder.encode(item)
        except Exception:  # a dealer bug: this stream ends, the table goes on
            log.exception("bot %s: cannot encode %s", self.bot_id, type(item).__name__)
            self.fail(Internal("the dealer could not encode a message for this bot"))
            return
        self._queued_bytes += len(data)
        if self._queued_bytes > self.limits.max_queued_bytes:
            self.fail(Flooding(f"{self._queued_bytes} bytes could not be delivered: "
                               "the bot is not reading its stream"))
            return
        self._queue.append((item, data))
        flush_after = self.limits.event_flush_seconds
        if (not self.batches or flush_after <= 0 or not isinstance(item, m.Notice)
                or isinstance(item.payload, _URGENT_PAYLOADS)):
            self._urgent = True
            self._pump_soon()
        elif self._timer is None:
            self._timer = self._loop.call_later(flush_after, self._flush_due)

    def _flush_due(self) -> None:
        """The flush timer: armed by the first event that may wait and left running across
        writes (arming and cancelling it per write cost more than this check), so an event
        goes out at most ``event_flush_seconds`` after it was queued, maybe sooner."""
        self._timer = None
        if self._queue:
            self._urgent = True
            self._pump()

    # ------------------------------------------------------------------ closing

    def finish(self, final: StreamEnded | None = None) -> None:
        """End the stream after sending what is queued; ``final`` is the status (None: OK)."""
        if not self._finishing:
            self._finishing = True
            self._final = final
        self._pump_soon()

    def fail(self, error: StreamEnded | None) -> None:
        """End the stream now, dropping what is queued."""
        self._queue.clear()
        self._queued_bytes = 0
        self._set_result(error)

    def _set_result(self, error: StreamEnded | None) -> None:
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        if not self._result.done():
            self._result.set_result(error)

    # ------------------------------------------------------------------ pumps

    async def serve(self, context: grpc.aio.ServicerContext[Any, Any],
                    on_message: Callable[[Connection, pb.BotMessage], None]) -> StreamEnded | None:
        """Run the reader (and the writes) until the stream ends; returns the closing status."""
        self._context = context
        reader = asyncio.create_task(self._read_loop(context, on_message))
        self._pump()  # what was delivered before (the welcome)
        try:
            return await self._result
        finally:
            reader.cancel()
            if isinstance(self._writing, asyncio.Task):
                # A write still in gRPC's hands would make the closing status a second
                # operation, which gRPC refuses (the bot would see UNAVAILABLE, not the reason):
                # let it finish, for a bounded time (a bot that reads nothing never lets it).
                await asyncio.wait([self._writing], timeout=WRITE_DRAIN_SECONDS)
            if self._writing is not None:
                self._writing.cancel()
            await asyncio.gather(reader, return_exceptions=True)
            self.done.set()

    def _pump_soon(self) -> None:
        if not self._pump_due and self._writing is None:
            self._pump_due = True
            self._defer(self._pump)

    def _pump(self) -> None:
        """Write what is queued when something urgent is (or the stream is finishing) and no
        write is in flight; events that may wait ride along, so a seat gets few, fuller writes.
        The write starts here, in this callback (:class:`~arena.server.eager.Eager`; an asyncio
        task without that fast path), and the next one when it completes (:meth:`_write_done`).
        A finishing stream ends once all is sent."""
        self._pump_due = False
        context = self._context
        if self._writing is not None or context is None or self._result.done():
            return
        queue = self._queue
        if queue and (self._urgent or self._finishing):
            self._urgent = False
            items = list(queue)
            queue.clear()
            self._queued_bytes = 0
            if self._eager:
                writing = Eager(self._write(context, items), self._write_done, self._loop)
                self._writing = writing
                writing.start()  # to its first write's hand-over to gRPC's socket, at least
            else:
                task = self._loop.create_task(self._write(context, items))
                self._writing = task
                task.add_done_callback(self._task_done)
        elif self._finishing:
            self._set_result(self._final)

    def _task_done(self, task: asyncio.Task[None]) -> None:
        self._write_done(task, asyncio.CancelledError() if task.cancelled() else task.exception())

    def _write_done(self, writing: object, error: BaseException | None) -> None:
        if self._writing is writing:
            self._writing = None
        if isinstance(error, asyncio.CancelledError):  # the stream is ending
            return
        if error is not None:
            assert self._context is not None
            self._set_result(self._failure(self._context, cast(Exception, error), "writing"))
        elif self._urgent or self._finishing:
            self._pump()  # more became urgent while writing
        elif self._queue and self._timer is None:
            self._timer = self._loop.call_later(self.limits.event_flush_seconds, self._flush_due)

    def _failure(self, context: grpc.aio.ServicerContext[Any, Any], exc: Exception,
                 doing: str) -> StreamEnded | None:
        """The status for an exception of a pump: none when the call is already gone (the
        peer cancelled or reset it), else INTERNAL with the reason logged."""
        if context.done() or context.cancelled():
            return None
        log.error("bot %s: stream failed while %s: %s: %s", self.bot_id, doing,
                  type(exc).__name__, exc, exc_info=exc)  # a dealer bug: its traceback too
        return Internal(f"the dealer failed while {doing} this stream")

    async def _write(self, context: grpc.aio.ServicerContext[Any, Any],
                     queued: list[tuple[Item, bytes]]) -> None:
        stats = self._stats
        encoder = self._encoder
        items = [item for item, _ in queued]
        if self.batches and len(queued) > 1:
            chunks = [encoder.batch_of(queued[k:k + MAX_BATCH])
                      for k in range(0, len(queued), MAX_BATCH)]
        else:
            chunks = [data for _, data in queued]
        sending = time.perf_counter()  # before the write: a reply can be read before it returns
        prompts = 0
        trigger: float | None = None  # the reply read that led to this write
        for item in items:
            if isinstance(item, m.Prompt):
                prompts += 1
                if len(self._written) > 64:  # answered or abandoned ones are never popped
                    self._written.clear()
                self._written[item.decision_id] = sending
                if item.trigger_received_at is not None:
                    trigger = item.trigger_received_at
            elif isinstance(item, pb.DealerMessage) and item.HasField("decision_request"):
                prompts += 1  # relayed from another worker
        if prompts:
            self._allow_answers(prompts)
        if trigger is not None:  # the turnaround: to the write handed to gRPC
            stats.turnaround_seconds.add(sending - trigger)
        for data in chunks:
            await context.write(data)
            stats.writes += 1
            stats.bytes_out += len(data)
        stats.messages_out += len(items)
        now = time.perf_counter()
        for item in items:
            if isinstance(item, m.Prompt) and item.trigger_received_at is not None:
                stats.overhead_seconds.add(now - item.trigger_received_at)

    def _allow_answers(self, prompts: int) -> None:
        """Each decision request written lets one more message in: a bot's answers are bounded
        by the requests it was sent, so only what it sends unasked draws on the rate, however
        many seats the stream holds and however fast the tables play. Before the write (an
        answer can be read before it returns); never above the burst, so requests a bot leaves
        unanswered buy it no larger flood later."""
        bucket = self._bucket
        bucket.tokens = min(bucket.burst, bucket.tokens + prompts)

    async def _read_loop(self, context: grpc.aio.ServicerContext[Any, Any],
                         on_message: Callable[[Connection, pb.BotMessage], None]) -> None:
        try:
            while not self._result.done():
                message = await context.read()
                if message is grpc.aio.EOF:
                    self.finish(None)
                    return
                self._stats.messages_in += 1
                if isinstance(message, Undecodable):
                    log.warning("bot %s: %d bytes that are not a BotMessage; stream ended",
                                self.bot_id, message.size)
                    self.fail(Malformed(f"{message.size} bytes that are not a BotMessage"))
                    return
                assert isinstance(message, pb.BotMessage)
                if not self._bucket.take():
                    self.fail(Flooding(
                        f"more than {self.limits.message_burst} messages at once or "
                        f"{self.limits.messages_per_second:g} per second"))
                    return
                if not self._byte_bucket.take(message.ByteSize()):
                    self.fail(Flooding(
                        f"more than {self.limits.byte_burst} bytes at once or "
                        f"{self.limits.bytes_per_second:g} bytes per second"))
                    return
                on_message(self, message)
        except asyncio.CancelledError:
            raise
        except Exception as exc:
            self._set_result(self._failure(context, exc, "reading"))
