"""A coroutine run eagerly (arena.server.eager): its first step at once, the rest as a task's."""

from __future__ import annotations

import asyncio

import pytest

from arena.server.eager import Eager

pytestmark = [pytest.mark.no_dealer, pytest.mark.timeout(30)]


def test_runs_at_once_until_it_awaits_then_from_the_futures_callback() -> None:
    async def main() -> list[str]:
        loop = asyncio.get_running_loop()
        steps: list[str] = []
        first: asyncio.Future[int] = loop.create_future()
        second: asyncio.Future[int] = loop.create_future()
        ended: list[BaseException | None] = []

        async def work() -> None:
            steps.append("started")
            steps.append(f"got {await first}")
            await asyncio.sleep(0)  # a bare yield: resumed soon
            steps.append(f"got {await second}")

        run = Eager(work(), lambda r, error: ended.append(error), loop)
        assert run.running and steps == []
        run.start()
        assert steps == ["started"]  # the first step ran in this callback
        first.set_result(1)
        await asyncio.sleep(0)
        await asyncio.sleep(0)
        second.set_result(2)
        for _ in range(3):
            await asyncio.sleep(0)
        assert ended == [None] and not run.running
        return steps

    assert asyncio.run(main()) == ["started", "got 1", "got 2"]


def test_an_error_raised_in_the_first_step_or_later_is_handed_to_done() -> None:
    async def main() -> list[str]:
        loop = asyncio.get_running_loop()
        errors: list[str] = []

        async def at_once() -> None:
            raise ValueError("at once")

        async def later(future: asyncio.Future[None]) -> None:
            await future
            raise KeyError("later")

        Eager(at_once(), lambda r, e: errors.append(repr(e)), loop).start()
        assert errors == ["ValueError('at once')"]  # done called inside start()
        future: asyncio.Future[None] = loop.create_future()
        Eager(later(future), lambda r, e: errors.append(repr(e)), loop).start()
        future.set_result(None)
        await asyncio.sleep(0)
        return errors

    assert asyncio.run(main()) == ["ValueError('at once')", "KeyError('later')"]


def test_cancel_resumes_the_coroutine_with_cancelled_error() -> None:
    async def main() -> tuple[list[str], list[type]]:
        loop = asyncio.get_running_loop()
        seen: list[str] = []
        ended: list[type] = []
        never: asyncio.Future[None] = loop.create_future()

        async def work() -> None:
            try:
                await never
            except asyncio.CancelledError:
                seen.append("cancelled")
                raise

        run = Eager(work(), lambda r, e: ended.append(type(e)), loop)
        run.start()
        run.cancel()
        await asyncio.sleep(0)
        return seen, ended

    seen, ended = asyncio.run(main())
    assert seen == ["cancelled"]
    assert ended == [asyncio.CancelledError]
