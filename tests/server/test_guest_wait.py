"""Trio's guest run waiting on the asyncio loop (arena.server.guest_wait), and its fallback."""

from __future__ import annotations

import asyncio
import threading
import time

import pytest
import trio

from arena.host import fastpaths
from arena.server import guest_wait
from arena.server.bridge import TrioGuest

# The tests of the fast path itself (the others hold either way: `make unit-plain`).
fast_path_only = pytest.mark.skipif(fastpaths.why_not(fastpaths.GUEST_WAIT) is not None,
                                    reason="the trio guest-wait fast path is off here")


def _run(main: object) -> object:
    return asyncio.run(main)  # type: ignore[arg-type]


@fast_path_only
def test_trio_idles_on_the_host_loop_without_a_helper_thread() -> None:
    """Deadlines, wake-ups through the trio token and a trio task woken from an asyncio
    callback all work, and trio never starts its waiting thread."""

    async def main() -> tuple[str, list[str], float, int]:
        guest = TrioGuest()
        box: dict[str, trio.Event] = {}
        seen: list[str] = []

        async def trio_main() -> str:
            box["event"] = trio.Event()
            for _ in range(20):
                await trio.sleep(0.002)  # timers: the host's call_later wakes trio
            seen.append("slept")
            with trio.fail_after(5):
                await box["event"].wait()  # set from an asyncio callback (force_wakeup path)
            seen.append("woken")
            return type(trio.lowlevel.current_root_task()).__name__

        before = threading.active_count()
        await guest.start(trio_main)
        await asyncio.sleep(0.2)
        assert guest.call_soon(seen.append, "token")  # TrioToken.run_sync_soon path
        await asyncio.sleep(0.05)
        started = time.perf_counter()
        box["event"].set()
        result = await guest.wait()
        return result, seen, time.perf_counter() - started, threading.active_count() - before

    result, seen, woken_after, new_threads = _run(main())
    assert result == "Task"
    assert seen == ["slept", "token", "woken"]
    assert woken_after < 5.0  # woken, not timed out (fail_after above); no speed asked of the machine
    assert new_threads == 0


@fast_path_only
def test_the_guest_state_is_adopted_and_the_reader_removed_at_the_end() -> None:
    async def main() -> tuple[str, bool, bool]:
        loop = asyncio.get_running_loop()
        states: list[object] = []
        schedule = guest_wait.HostWaiting(loop)

        def spy(tick: guest_wait.Tick) -> object:
            states.append(getattr(tick, "__self__", None))
            return schedule(tick)

        done: asyncio.Future[object] = loop.create_future()

        async def trio_main() -> int:
            await trio.sleep(0.01)
            return 7

        trio.lowlevel.start_guest_run(trio_main, run_sync_soon_threadsafe=loop.call_soon_threadsafe,
                                      run_sync_soon_not_threadsafe=spy,
                                      done_callback=done.set_result,
                                      host_uses_signal_set_wakeup_fd=True)
        await asyncio.sleep(0)
        state = states[0]
        fd = type(state).guest_tick.__self__.fd  # type: ignore[attr-defined]
        registered = fd in loop._selector.get_map()  # type: ignore[attr-defined]
        assert (await done).unwrap() == 7  # type: ignore[attr-defined]
        still = fd in loop._selector.get_map()  # type: ignore[attr-defined]
        return type(state).__name__, registered, still

    name, registered, still = _run(main())  # type: ignore[misc]
    assert name == "HostWaitingGuestState"
    assert registered and not still


def test_an_unknown_guest_state_is_left_to_trios_own_thread(monkeypatch: pytest.MonkeyPatch
                                                            ) -> None:
    """Another trio version (no GuestState as expected): stock guest mode, same results."""
    monkeypatch.setattr(guest_wait, "_GuestState", None)

    async def main() -> int:
        guest = TrioGuest()

        async def trio_main() -> int:
            await trio.sleep(0.01)
            return 3

        await guest.start(trio_main)
        return int(await guest.wait())

    assert _run(main()) == 3



@fast_path_only
def test_call_here_wakes_trio_without_its_wake_up_socket(monkeypatch: pytest.MonkeyPatch) -> None:
    """A trio task woken by ``call_here`` from an asyncio callback runs in the next tick, and
    trio's wake-up socket is never written for it; with stock guest mode it goes through the
    trio token instead."""
    from trio._core._wakeup_socketpair import WakeupSocketpair

    writes = [0]
    original = WakeupSocketpair.wakeup_thread_and_signal_safe

    def counted(self: WakeupSocketpair) -> None:
        writes[0] += 1
        original(self)

    monkeypatch.setattr(WakeupSocketpair, "wakeup_thread_and_signal_safe", counted)

    async def main() -> tuple[list[str], int]:
        guest = TrioGuest()
        box: dict[str, trio.Event] = {}
        seen: list[str] = []

        async def trio_main() -> None:
            for _ in range(3):
                box["event"] = trio.Event()
                with trio.fail_after(5):
                    await box["event"].wait()
                seen.append("woken")
            counted_writes.append(writes[0])  # not the run's own shutdown

        counted_writes: list[int] = []
        await guest.start(trio_main)
        await asyncio.sleep(0.05)
        writes[0] = 0
        for _ in range(3):
            await asyncio.sleep(0.05)  # trio idles, waiting on this loop
            assert guest.call_here(lambda: box["event"].set())
        await guest.wait()
        return seen, counted_writes[0]

    seen, socket_writes = _run(main())  # type: ignore[misc]
    assert seen == ["woken"] * 3
    assert socket_writes == 0
    monkeypatch.setattr(guest_wait, "_GuestState", None)  # stock guest mode: the token's way
    seen, socket_writes = _run(main())  # type: ignore[misc]
    assert seen == ["woken"] * 3
    assert socket_writes >= 3


@fast_path_only
def test_a_lone_call_here_runs_trios_tick_and_what_it_defers_in_the_same_callback() -> None:
    """Trio idle and no asyncio task woken: the trio task ``call_here`` wakes, and what that
    tick defers with ``after_tick``, have run when it returns; with another task's wake-up
    queued (more replies read) the tick comes after it instead."""

    async def main() -> list[str]:
        loop = asyncio.get_running_loop()
        guest = TrioGuest()
        box: dict[str, trio.Event] = {}
        order: list[str] = []

        async def trio_main() -> None:
            for _ in range(2):
                box["event"] = trio.Event()
                with trio.fail_after(5):
                    await box["event"].wait()
                order.append("trio ran")
                guest.after_tick(lambda: order.append("deferred ran"))
                order.append("the tick goes on")

        await guest.start(trio_main)
        await asyncio.sleep(0.05)  # trio idles, waiting on this loop

        def lone() -> None:
            assert guest.call_here(box["event"].set)
            order.append("call_here returned")

        loop.call_soon(lone)
        await asyncio.sleep(0.05)
        order.append("--")
        woken: asyncio.Future[None] = loop.create_future()

        async def other_reader() -> None:
            await woken

        other = asyncio.create_task(other_reader())
        await asyncio.sleep(0)

        def with_a_task_woken() -> None:
            woken.set_result(None)  # that task's wake-up is queued now
            assert guest.call_here(box["event"].set)
            order.append("call_here returned")

        loop.call_soon(with_a_task_woken)
        await guest.wait()
        await other
        return order

    assert _run(main()) == ["trio ran", "the tick goes on", "deferred ran", "call_here returned",
                            "--", "call_here returned", "trio ran", "the tick goes on",
                            "deferred ran"]


def test_trios_own_io_is_seen_while_trio_never_idles() -> None:
    """Trio's epoll is polled between batches only once the host saw its fd readable: a
    socket becoming readable still wakes its trio task while other trio tasks keep trio busy."""
    import socket

    async def main() -> tuple[list[bytes], int]:
        guest = TrioGuest()
        a, b = socket.socketpair()
        a.setblocking(False)
        got: list[bytes] = []

        async def trio_main() -> int:
            async def reader() -> None:
                await trio.lowlevel.wait_readable(a)
                got.append(a.recv(1))

            spins = 0
            async with trio.open_nursery() as nursery:
                nursery.start_soon(reader)
                while not got and spins < 100_000:
                    await trio.sleep(0)  # always runnable: trio never waits for anything
                    spins += 1
                    if spins == 50:
                        b.send(b"x")
            return spins

        await guest.start(trio_main)
        spins = int(await guest.wait())
        a.close()
        b.close()
        return got, spins

    got, spins = _run(main())  # type: ignore[misc]
    assert got == [b"x"]
    assert spins < 100_000


def test_a_wake_up_queued_by_another_thread_mid_look_does_not_fail_the_reader() -> None:
    """Other threads append to the host loop's ready queue (``call_soon_threadsafe``: trio's
    wake-ups from the league writer's thread) while a reader looks for waiting tasks in it. The
    look once walked the queue itself, step by step, and such an append ended the bot's stream
    with "deque mutated during iteration"; here the append comes mid-walk, every time."""
    from collections import deque

    class Handle:
        def __init__(self, queue: deque[object], name: str) -> None:
            self._queue = queue
            self._name = name

        @property
        def _callback(self) -> object:
            self._queue.append(Handle(self._queue, "later"))  # another thread, mid-walk

            def task_wakeup() -> None: ...

            def other() -> None: ...

            return task_wakeup if self._name == "task" else other

    class Loop:
        def __init__(self) -> None:
            self._ready: deque[object] = deque()
            self._ready.extend([Handle(self._ready, "first"), Handle(self._ready, "task")])

    assert guest_wait._tasks_woken(Loop()) is True  # type: ignore[arg-type]
    quiet = Loop()
    quiet._ready.pop()
    assert guest_wait._tasks_woken(quiet) is False  # type: ignore[arg-type]
