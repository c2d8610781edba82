"""A stream's writes (arena.server.connection): what a trio tick delivers goes out in one write,
started in the callback that ends the tick, the next write when the one in flight completes."""

from __future__ import annotations

import asyncio
import dataclasses
import time
from collections.abc import Callable

import pytest

from arena.server import wire
from arena.server.config import Limits
from arena.server.connection import Connection
from arena.server.errors import Internal, StreamEnded
from arena.server.stats import TransportStats
from arena.v1 import arena_pb2 as pb
from tests.server.test_wire import _hands

pytestmark = pytest.mark.timeout(30)


class FakeContext:
    """The servicer context's part a connection uses; each write waits until completed."""

    def __init__(self, fail_writes: bool = False) -> None:
        self.writes: list[bytes] = []
        self.in_flight: list[asyncio.Future[None]] = []
        self.fail_writes = fail_writes
        self._never: asyncio.Future[None] = asyncio.get_running_loop().create_future()

    async def write(self, data: bytes) -> None:
        if self.fail_writes:
            raise RuntimeError("the transport broke")
        self.writes.append(data)
        done = asyncio.get_running_loop().create_future()
        self.in_flight.append(done)
        await done

    async def read(self) -> object:
        await self._never  # a bot that says nothing
        return None

    def done(self) -> bool:
        return False

    def cancelled(self) -> bool:
        return False


def _pong(nonce: int) -> pb.DealerMessage:
    return pb.DealerMessage(pong=pb.Pong(nonce=nonce))


def _nonces(data: bytes) -> list[int]:
    message = pb.DealerMessage.FromString(data)
    if message.WhichOneof("payload") == "batch":
        return [inner.pong.nonce for inner in message.batch.messages]
    return [message.pong.nonce]


Deferred = list[Callable[[], object]]


async def _serving(context: FakeContext
                   ) -> tuple[Connection, Deferred, asyncio.Task[StreamEnded | None]]:
    """A batching connection serving ``context``, whose deferred calls wait in a list."""
    deferred: Deferred = []
    conn = Connection(bot_id="b", session_id="s", batches=True, limits=Limits(),
                      encoder=wire.Encoder(), stats=TransportStats(), defer=deferred.append)
    serving = asyncio.create_task(conn.serve(context, lambda c, m: None))  # type: ignore[arg-type]
    await _settle()
    return conn, deferred, serving


async def _settle() -> None:
    for _ in range(3):
        await asyncio.sleep(0)


def test_deliveries_of_one_tick_go_out_in_one_write_started_by_the_deferred_call() -> None:
    async def main() -> tuple[list[list[int]], StreamEnded | None]:
        context = FakeContext()
        conn, deferred, serving = await _serving(context)
        conn.deliver(_pong(1))
        conn.deliver(_pong(2))
        assert context.writes == [] and len(deferred) == 1  # one write, deferred to the tick's end
        deferred.pop()()
        await _settle()  # started in that very call (an asyncio task without the fast path)
        assert len(context.writes) == 1
        conn.deliver(_pong(3))
        conn.deliver(_pong(4))
        assert deferred == []  # a write is in flight: the next one follows its completion
        context.in_flight.pop().set_result(None)
        await _settle()
        assert len(context.writes) == 2
        context.in_flight.pop().set_result(None)
        await _settle()
        conn.finish(None)
        for call in deferred:
            call()
        return [_nonces(data) for data in context.writes], await serving

    writes, ended = asyncio.run(main())
    assert writes == [[1, 2], [3, 4]]
    assert ended is None


def test_what_is_queued_is_sent_before_a_finishing_stream_ends() -> None:
    async def main() -> tuple[list[list[int]], StreamEnded | None]:
        context = FakeContext()
        conn, deferred, serving = await _serving(context)
        conn.deliver(_pong(1))
        conn.finish(None)
        for call in deferred:
            call()
        await _settle()
        assert not serving.done()  # its write is still in flight
        context.in_flight.pop().set_result(None)
        await _settle()
        return [_nonces(data) for data in context.writes], await serving

    writes, ended = asyncio.run(main())
    assert writes == [[1]]
    assert ended is None


def test_a_failed_write_ends_the_stream_internal() -> None:
    async def main() -> StreamEnded | None:
        conn, deferred, serving = await _serving(FakeContext(fail_writes=True))
        conn.deliver(_pong(1))
        deferred.pop()()
        return await serving

    assert isinstance(asyncio.run(main()), Internal)


def test_the_turnaround_runs_from_the_reply_read_to_the_next_request_handed_to_the_transport(
) -> None:
    """``TransportStats.turnaround_seconds``: one sample per request that answers a reply,
    taken once its write has started (not completed)."""
    prompt = _hands("FT", 1, seed=1)[0][0][0]

    async def main() -> tuple[int, float, int]:
        context = FakeContext()
        conn, deferred, serving = await _serving(context)
        stats = conn._stats
        conn.deliver(dataclasses.replace(prompt, trigger_received_at=time.perf_counter()))
        conn.deliver(_pong(1))  # not a request: no sample of its own
        deferred.pop()()
        await _settle()
        count, value = stats.turnaround_seconds.count, stats.turnaround_seconds.values[0]
        assert context.writes and context.in_flight  # started, not completed
        context.in_flight.pop().set_result(None)
        await _settle()
        conn.deliver(prompt)  # a hand's first request answers no reply: no sample
        deferred.pop()()
        await _settle()
        context.in_flight.pop().set_result(None)
        await _settle()
        conn.fail(None)
        await serving
        return count, value, stats.turnaround_seconds.count

    count, value, later = asyncio.run(main())
    assert count == 1 and 0 <= value < 5.0
    assert later == 1
