"""Threads that run a bot's plain (non-async) function, one decision per thread at a time.

A thread is started whenever every thread is busy, so a decision never waits for another one
(a bot slow at one table holds up no other table); idle threads wait for the next decision and
are reused. They are daemon threads: a bot function that never returns does not keep the
process alive once the bot is done.
"""

from __future__ import annotations

import asyncio
import contextlib
import queue
import threading
from collections.abc import Callable
from typing import Any, TypeVar

T = TypeVar("T")
A = TypeVar("A")
_Job = tuple[Callable[[Any], Any], Any, asyncio.AbstractEventLoop, "asyncio.Future[Any]"]


class Workers:
    """A pool that grows to the number of calls running at once (up to ``max_threads``; past
    that a call waits for a thread: a bot stuck in many decisions at once must not make a
    thread for every decision of a league)."""

    def __init__(self, name: str = "arena-bot", max_threads: int = 128) -> None:
        self._name = name
        self._max_threads = max_threads
        self._jobs: queue.SimpleQueue[_Job] = queue.SimpleQueue()
        self._lock = threading.Lock()
        self._busy = 0  # calls handed over and not finished
        self.threads = 0

    def run(self, function: Callable[[A], T], argument: A) -> asyncio.Future[T]:
        """``function(argument)`` on a thread of the pool; its outcome as a future of the
        running loop. Cancelling the future drops the outcome (the call runs to its end)."""
        loop = asyncio.get_running_loop()
        future: asyncio.Future[T] = loop.create_future()
        with self._lock:
            self._busy += 1
            start = self._busy > self.threads and self.threads < self._max_threads
            if start:
                self.threads += 1
        self._jobs.put((function, argument, loop, future))
        if start:
            threading.Thread(target=self._work, name=f"{self._name}-{self.threads}",
                             daemon=True).start()
        return future

    def _work(self) -> None:
        while True:
            function, argument, loop, future = self._jobs.get()
            try:
                outcome: tuple[Any, BaseException | None] = (function(argument), None)
            except BaseException as exc:  # handed to the awaiting task, as the call's outcome
                outcome = (None, exc)
            with self._lock:  # free before the outcome is handed over: the caller's next call
                self._busy -= 1  # may come at once, and must find this thread idle
            with contextlib.suppress(RuntimeError):  # the loop has closed: nobody waits
                loop.call_soon_threadsafe(_settle, future, outcome)
            del function, argument, future, outcome  # hold nothing while idle


def _settle(future: asyncio.Future[Any], outcome: tuple[Any, BaseException | None]) -> None:
    if future.done():  # cancelled: the decision closed
        return
    value, error = outcome
    if error is not None:
        future.set_exception(error)
    else:
        future.set_result(value)


WORKERS = Workers()  # one pool per process, shared by its bots
