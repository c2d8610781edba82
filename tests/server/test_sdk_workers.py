"""The SDK's threads for plain bot functions (arena_bot/workers.py): calls run at once, each on a
thread, threads are reused, a cap makes calls past it wait, a cancelled call's outcome is
dropped, and an exception reaches the awaiting task."""

from __future__ import annotations

import asyncio
import threading

import pytest
from arena_bot.workers import Workers

pytestmark = [pytest.mark.no_dealer, pytest.mark.timeout(30)]


def test_calls_run_at_once_and_threads_are_reused() -> None:
    workers = Workers(name="t")
    gate = threading.Barrier(4, timeout=10)  # passes only when four calls run at the same time

    def meet(k: int) -> int:
        gate.wait()
        return k * 10

    async def scenario() -> list[int]:
        first = await asyncio.gather(*(workers.run(meet, k) for k in range(4)))
        again = await asyncio.gather(*(workers.run(lambda k: k + 1, k) for k in range(3)))
        return [*first, *again]

    assert asyncio.run(scenario()) == [0, 10, 20, 30, 1, 2, 3]
    assert workers.threads == 4  # the second round reused them


def test_past_the_cap_a_call_waits_for_a_thread() -> None:
    workers = Workers(name="t", max_threads=2)
    release = threading.Event()
    started: list[int] = []

    def held(k: int) -> int:
        started.append(k)
        release.wait(10)
        return k

    async def scenario() -> list[int]:
        calls = [workers.run(held, k) for k in range(3)]
        await asyncio.sleep(0.2)
        assert sorted(started) == [0, 1] and workers.threads == 2  # the third waits
        release.set()
        return list(await asyncio.gather(*calls))

    assert asyncio.run(scenario()) == [0, 1, 2]


def test_a_cancelled_call_is_dropped_and_an_exception_reaches_the_caller() -> None:
    workers = Workers(name="t")
    release = threading.Event()

    def slow(_k: int) -> int:
        release.wait(10)
        return 1

    def broken(_k: int) -> int:
        raise ZeroDivisionError("bug")

    async def scenario() -> None:
        call = workers.run(slow, 0)
        call.cancel()
        release.set()
        with pytest.raises(ZeroDivisionError, match="bug"):
            await workers.run(broken, 0)
        assert call.cancelled()

    asyncio.run(scenario())
