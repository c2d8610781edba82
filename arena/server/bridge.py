"""The asyncio/trio bridge: trio runs as a guest on the asyncio loop that runs grpc.aio.

Both loops share one thread, so plain objects are shared without locks. The two directions:

* asyncio -> trio: :meth:`TrioGuest.call_soon` runs a function inside trio (via the trio token);
* trio -> asyncio: trio code may call non-blocking asyncio APIs (``Event.set``,
  ``loop.call_soon``) directly, because every trio step runs as an asyncio callback.

Stock guest mode waits for trio's I/O and timers in a helper thread, three or four thread
switches every time trio goes idle (once per decision). On Linux :mod:`arena.server.guest_wait`
lets the asyncio loop wait for trio instead (trio's epoll fd in the loop's selector, a timer
for trio's next deadline): the same ticks, on one thread.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import Any

import outcome
import trio

from arena.server.guest_wait import HostWaiting


class TrioGuest:
    """One trio run hosted by the running asyncio loop."""

    def __init__(self) -> None:
        self._token: trio.lowlevel.TrioToken | None = None
        self._scope: trio.CancelScope | None = None
        self._done: asyncio.Future[outcome.Outcome[Any]] | None = None
        self._host: HostWaiting | None = None

    async def start(self, main: Callable[[], Awaitable[Any]]) -> None:
        """Start ``main`` in trio and return once trio runs; :meth:`wait` gets its outcome.

        Call after installing any asyncio signal handlers, so that trio leaves SIGINT to asyncio.
        """
        loop = asyncio.get_running_loop()
        done: asyncio.Future[outcome.Outcome[Any]] = loop.create_future()
        started: asyncio.Future[None] = loop.create_future()
        self._done = done

        async def guest_main() -> Any:
            self._token = trio.lowlevel.current_trio_token()
            started.set_result(None)
            with trio.CancelScope() as scope:
                self._scope = scope
                return await main()
            return None

        def finished(result: outcome.Outcome[Any]) -> None:
            self._token = None
            if not done.done():
                done.set_result(result)
            if not started.done():
                started.set_result(None)

        self._host = HostWaiting(loop)
        trio.lowlevel.start_guest_run(
            guest_main,
            run_sync_soon_threadsafe=loop.call_soon_threadsafe,
            run_sync_soon_not_threadsafe=self._host,
            done_callback=finished,
            host_uses_signal_set_wakeup_fd=True,
        )
        await started

    @property
    def is_running(self) -> bool:
        return self._token is not None

    def call_soon(self, fn: Callable[..., object], *args: object) -> bool:
        """Run ``fn(*args)`` inside trio soon; False if trio is not running (any more)."""
        token = self._token
        if token is None:
            return False
        try:
            token.run_sync_soon(fn, *args)
        except trio.RunFinishedError:
            return False
        return True

    def call_here(self, fn: Callable[..., object], *args: object) -> bool:
        """Run the synchronous trio-side ``fn(*args)`` now when trio waits on this loop
        (:mod:`arena.server.guest_wait`), else soon inside trio (:meth:`call_soon`); False if
        trio is not running (any more). Call it from this loop's thread only."""
        waiter = self._host.waiter if self._host is not None else None
        if waiter is None or self._token is None:
            return self.call_soon(fn, *args)
        waiter.call_here(fn, *args)
        return True

    def after_tick(self, fn: Callable[[], object]) -> None:
        """Run ``fn()`` on this loop once trio's running tick ends (the tables' deliveries of
        that tick are all queued then: one write each), else soon (``call_soon``). Call it
        from this loop's thread only."""
        waiter = self._host.waiter if self._host is not None else None
        if waiter is None or not waiter.after_tick(fn):
            asyncio.get_running_loop().call_soon(fn)

    def cancel(self) -> None:
        """Cancel the trio run's root scope (thread-safe, idempotent)."""
        scope = self._scope
        if scope is not None:
            self.call_soon(scope.cancel)

    async def wait(self) -> Any:
        """Wait for the trio run to end and return its value (or raise its error)."""
        assert self._done is not None, "start() first"
        result = await self._done
        return result.unwrap()
