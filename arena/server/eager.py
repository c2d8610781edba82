"""A coroutine started at once, in the caller's callback, without an asyncio task.

:class:`Eager` steps the coroutine right away and resumes it from the done callbacks of the
futures it awaits, as ``asyncio.Task`` does, but without the task's first hop through the event
loop (Python 3.12's eager tasks do the same). The connection's writes use it: a prompt produced in
a trio tick goes on the wire in that same host callback.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Coroutine, Generator
from typing import Any

Done = Callable[["Eager", BaseException | None], None]
# What ``next`` returns once the coroutine has returned: its end seen without a StopIteration
# caught here.
_ENDED: Any = object()


class Eager:
    """Runs ``coro`` from :meth:`start`; ``done(self, error)`` is called once when it ends
    (``error`` None when it returned, the exception it raised otherwise, ``CancelledError``
    after :meth:`cancel`)."""

    __slots__ = ("_coro", "_done", "_loop", "_steps", "_waiting_on")

    def __init__(self, coro: Coroutine[Any, Any, None], done: Done,
                 loop: asyncio.AbstractEventLoop) -> None:
        self._coro: Coroutine[Any, Any, None] | None = coro
        self._steps: Generator[Any, None, None] = coro.__await__()  # coro.send(None) as next()
        self._done = done
        self._loop = loop
        self._waiting_on: asyncio.Future[Any] | None = None

    @property
    def running(self) -> bool:
        return self._coro is not None

    def start(self) -> None:
        """The coroutine's first step, now (it may end in it: ``done`` is then called here)."""
        self._step()

    def cancel(self) -> None:
        """Cancel the future it awaits: it resumes with ``CancelledError`` (as a cancelled task
        does); ``done`` follows."""
        waiting_on = self._waiting_on
        if waiting_on is not None:
            waiting_on.cancel()

    def _step(self, _future: object = None) -> None:
        coro = self._coro
        if coro is None:
            return
        self._waiting_on = None
        try:
            yielded = next(self._steps, _ENDED)
        except (Exception, asyncio.CancelledError) as exc:
            self._end(exc)
            return
        if yielded is _ENDED:
            self._end(None)
        elif getattr(yielded, "_asyncio_future_blocking", None):  # an awaited asyncio future
            yielded._asyncio_future_blocking = False
            self._waiting_on = yielded
            yielded.add_done_callback(self._step)
        elif yielded is None:  # a bare yield (asyncio.sleep(0)): resume soon
            self._loop.call_soon(self._step)
        else:
            self._end(RuntimeError(f"a coroutine run eagerly yielded {yielded!r}"))
            coro.close()

    def _end(self, error: BaseException | None) -> None:
        self._coro = None
        self._done(self, error)
